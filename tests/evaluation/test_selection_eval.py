"""`dsminer eval-module selection`: the gold datasets given as the names step's answer, what the selection keeps."""

from __future__ import annotations

import json

import mlflow
import pytest
from typer.testing import CliRunner

from dsminer.cli import app
from tests.helpers import build_pdf

PAGES = [
    "Cohorts of Reef Fish\n\n"
    "We analysed 2,000 dives from the ReefWatch cohort and counts taken from the KelpCount archive.\n\n"
    "Hourly water temperature was taken from the OceanGrid reanalysis. The BERT model reads notes.\n\n"
    "The ShoalBase catalogue is cited only for completeness.",
]
GOLD = {"file": "reef.pdf", "datasets": [
    {"name": "ReefWatch", "role": "used"}, {"name": "KelpCount archive", "aliases": ["KelpCount"], "role": "used"},
    {"name": "Ocean temperature grid", "aliases": ["OceanGrid"], "role": "used"},
    {"name": "ShoalBase", "role": "mentioned"}, {"name": "Tide gauge records", "role": "used"},
    {"name": "BERT", "role": "used"}]}


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "fields" / "pdfs").mkdir(parents=True)
    build_pdf(tmp_path / "fields" / "pdfs" / "reef.pdf", PAGES)
    gold = tmp_path / "fields" / "gold.jsonl"
    gold.write_text(json.dumps(GOLD) + "\n", encoding="utf-8")
    return gold


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_selection_keeps_the_used_gold_datasets_the_paper_writes_and_says_why_it_drops_the_others(tmp_path, corpus):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    out = tmp_path / "selection.json"
    result = invoke("eval-module", "selection", "--gold", f"{corpus}:1-1", "--tracking-uri", uri, "--out", str(out))
    assert result.exit_code == 0, result.output
    scores = dict(pair.split("=") for pair in result.output.split())
    # four used datasets are written (not the descriptive "Tide gauge records"; ShoalBase is only mentioned)
    assert scores["fields:1-1.gold_written"] == "4.0"
    assert scores["fields:1-1.kept_share"] == "0.75" and scores["fields:1-1.dropped.non_dataset"] == "1.0"
    assert scores["fields:1-1.role_kept_share"] == "1.0"
    dropped = json.loads(out.read_text())["dropped"]["fields:1-1"]
    assert dropped == [{"file": "reef.pdf", "name": "BERT", "reason": "non_dataset"}]
    (run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.get_experiment_by_name("dsminer").experiment_id], "tags.module = 'selection'")
    assert run.data.metrics["fields_1-1.kept_share"] == 0.75  # MLflow keys have no colon


@pytest.mark.parametrize("suffix, message", [(":2-3", "lines 2-3 are not within the file's 1 papers"),
                                             ("", "PDFs are not in")])
def test_a_bad_corpus_is_one_line(tmp_path, corpus, suffix, message):
    if not suffix:
        (tmp_path / "fields" / "pdfs" / "reef.pdf").unlink()
    result = invoke("eval-module", "selection", "--gold", f"{corpus}{suffix}",
                    "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db")
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output


def test_names_and_candidates_read_one_gold(tmp_path):
    result = invoke("eval-module", "candidates", "--gold", "a", "--gold", "b")
    assert result.exit_code == 1 and "reads one --gold" in result.output


def fit_corpus(tmp_path, write_run):
    """Two papers, each writing six datasets as data and naming six other things; a run whose names step called
    all twelve datasets."""
    (tmp_path / "dev" / "pdfs").mkdir(parents=True)
    gold, events = [], []
    for paper in ("p1", "p2"):
        data = [f"{paper.upper()}Set{i}" for i in range(6)]
        other = [f"Widget{paper}{i}" for i in range(6)]
        text = " ".join(f"We evaluate on the {name} dataset. The {name} corpus has 9,000 rows." for name in data)
        text += "\n\n" + " ".join(f"The {name} was painted." for name in other)
        build_pdf(tmp_path / "dev" / "pdfs" / f"{paper}.pdf", [text])
        gold.append({"file": f"{paper}.pdf", "datasets": [{"name": name, "role": "used"} for name in data]})
        events.append({"kind": "result", "step": "names", "paper": f"{paper}.pdf",
                       "raw": [{"name": name, "kind": "dataset", "role": "used"} for name in data + other]})
    (tmp_path / "dev" / "gold.jsonl").write_text("".join(json.dumps(row) + "\n" for row in gold), encoding="utf-8")
    return tmp_path / "dev" / "gold.jsonl", write_run("s0-dev", [], events=events)


def test_fit_selection_learns_the_evidence_model_from_a_runs_answers_and_a_run_uses_it(tmp_path, write_run):
    from dsminer.config import Settings
    from dsminer.programs.compiled import bundled_program_path, load_program
    from dsminer.programs.registry import build_program

    gold, run = fit_corpus(tmp_path, write_run)
    out = tmp_path / "program.json"
    result = invoke("fit-selection", "--run", str(run), "--gold", str(gold), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "24 names (12 datasets)" in result.output and "cross-validated precision 1.0" in result.output
    program = load_program(out)
    assert program.evidence_model.fitted["runs"] == [str(run)] and program.evidence_model.fitted["f1_cv"] == 1.0
    assert program.steps.keys() == load_program(bundled_program_path()).steps.keys()  # the base program's steps
    s0 = build_program(Settings(condition="s0", program=str(out)))
    agent = build_program(Settings(condition="s1a", program=str(out), out_dir=tmp_path / "agent"))
    assert s0.evidence_model == program.evidence_model == agent.steps["names"].evidence_model


def test_selection_scores_a_runs_answers_weighed_by_the_programs_evidence_model(tmp_path, write_run):
    gold, run = fit_corpus(tmp_path, write_run)
    program = tmp_path / "program.json"
    assert invoke("fit-selection", "--run", str(run), "--gold", str(gold), "--out", str(program)).exit_code == 0
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    config = tmp_path / "cap.toml"
    config.write_text("max_records_per_paper = 20\n", encoding="utf-8")
    scores = {}
    for choice in ("none", str(program)):
        result = invoke("eval-module", "selection", "--gold", str(gold), "--run", str(run), "--program", choice,
                        "--config", str(config), "--tracking-uri", uri)
        assert result.exit_code == 0, result.output
        scores[choice] = dict(pair.split("=") for pair in result.output.split())
    unweighed, weighed = scores["none"], scores[str(program)]
    assert float(unweighed["dev.run.precision"]) < 1.0 == float(weighed["dev.run.precision"])
    assert weighed["dev.run.precision_lenient"] == "1.0" and weighed["dev.run.recall_used"] == "1.0"
    runs = mlflow.MlflowClient(uri).search_runs([mlflow.get_experiment_by_name("dsminer").experiment_id],
                                                "tags.module = 'selection'")
    assert sorted(r.data.params["evidence_model"] for r in runs) == sorted(["none", str(program)])


def test_fit_selection_without_enough_examples_is_one_line(tmp_path, write_run, corpus):
    run = write_run("s0-small", [], events=[{"kind": "result", "step": "names", "paper": "reef.pdf",
                                              "raw": [{"name": "ReefWatch", "kind": "dataset", "role": "used"}]}])
    result = invoke("fit-selection", "--run", str(run), "--gold", str(corpus), "--out", str(tmp_path / "p.json"))
    assert result.exit_code == 1 and "too few examples" in result.output


def test_a_run_without_answers_for_the_gold_papers_is_one_line(tmp_path, write_run, corpus):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    answer = {"kind": "result", "step": "names", "raw": [{"name": "ReefWatch", "kind": "dataset", "role": "used"}]}
    other = write_run("s0-other", [], events=[{**answer, "paper": "other.pdf"}])
    silent = write_run("s0-silent", [], events=[])
    for run, message in ((other, "no paper of run"), (silent, "recorded no names answers")):
        for args in (["eval-module", "selection", "--gold", str(corpus), "--run", str(run), "--tracking-uri", uri],
                     ["fit-selection", "--run", str(run), "--gold", str(corpus), "--out", str(tmp_path / "p.json")]):
            result = invoke(*args)
            assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output, args


def _ranker_corpus(tmp_path, papers: int):
    """Invented papers, each writing its dataset beside "archive" among sentences that write none."""
    folder = tmp_path / "ranker"
    (folder / "pdfs").mkdir(parents=True)
    rows = []
    filler = " ".join(f"The pump {i} ran at a steady pace for the whole day." for i in range(8))
    for number in range(papers):
        build_pdf(folder / "pdfs" / f"p{number}.pdf", [f"{filler} Tides came from the Marlo{number} archive. {filler}"])
        rows.append({"file": f"p{number}.pdf", "datasets": [{"name": f"Marlo{number}", "role": "used"}]})
    gold = folder / "gold.jsonl"
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return gold


def test_fit_ranker_writes_a_ranker_a_run_can_read_and_logs_its_held_out_shares(tmp_path):
    from dsminer.evidence.ranking import SentenceRanker

    uri, out = f"sqlite:///{tmp_path}/mlflow.db", tmp_path / "ranker.json"
    result = invoke("fit-ranker", "--gold", str(_ranker_corpus(tmp_path, 5)), "--out", str(out), "--tracking-uri", uri)
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output and "held out, the names context holds: ranker#1 1.0" in result.output
    ranker = SentenceRanker.load(out)
    assert ranker.weights and not any("marlo" in name for name in ranker.weights)
    (run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.get_experiment_by_name("dsminer").experiment_id], "tags.module = 'ranker'")
    assert run.data.metrics["ranker_1.context_share"] == 1.0  # MLflow keys have no "#"


def test_fit_ranker_on_one_paper_is_one_line(tmp_path):
    result = invoke("fit-ranker", "--gold", str(_ranker_corpus(tmp_path, 1)), "--out", str(tmp_path / "r.json"))
    assert result.exit_code != 0 and "at least two papers" in result.output and "Traceback" not in result.output


def test_selection_of_a_runs_answers_leaves_out_what_its_check_step_read_as_something_else(tmp_path, write_run,
                                                                                           corpus):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    names = {"kind": "result", "step": "names", "paper": "reef.pdf",
             "raw": [{"name": name, "kind": "dataset", "role": "used"} for name in ("ReefWatch", "KelpCount",
                                                                                    "OceanGrid")]}
    checks = [{"kind": "result", "step": "check", "paper": "reef.pdf", "dataset": name, "read_as": kind}
              for name, kind in (("ReefWatch", "dataset"), ("KelpCount", "software"))]
    scores = {}
    for label, events in (("unchecked", [names]), ("checked", [names, *checks])):
        run = write_run(f"s0-{label}", [], events=events)
        result = invoke("eval-module", "selection", "--gold", str(corpus), "--run", str(run), "--tracking-uri", uri)
        assert result.exit_code == 0, result.output
        scores[label] = dict(pair.split("=") for pair in result.output.split())
    # the run's check read KelpCount as software: left out; OceanGrid was never checked: it stays
    assert scores["unchecked"]["fields.run.records"] == "3.0" and scores["checked"]["fields.run.records"] == "2.0"
    assert float(scores["checked"]["fields.run.recall_used"]) < float(scores["unchecked"]["fields.run.recall_used"])
