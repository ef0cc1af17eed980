"""`dsminer run` through the CLI: one-line errors, and a whole run against a fake OpenAI-compatible server."""

import json
import re
import time
from pathlib import Path

import mlflow

from dsminer.backend.local_server import free_port
from dsminer.schema import DatasetRecord
from tests.fake_openai import FakeOpenAI, scripted
from tests.helpers import assert_one_line_error, invoke


def test_missing_directory(tmp_path):
    assert_one_line_error(invoke("run", str(tmp_path / "nope")), "nope")


def test_folder_without_pdfs(tmp_path):
    assert_one_line_error(invoke("run", str(tmp_path)), "no PDF")


def test_bad_config_value(tmp_path, corpus):
    config = tmp_path / "bad.toml"
    config.write_text("max_records_per_paper = -2\n")
    assert_one_line_error(invoke("run", str(corpus), "--config", str(config)), "max_records_per_paper")


def test_unknown_condition(corpus):
    assert_one_line_error(invoke("run", str(corpus), "--condition", "s7"), "condition")


def test_unreachable_backend_fails_within_seconds(corpus):
    started = time.monotonic()
    result = invoke("run", str(corpus), "--api-base", f"http://127.0.0.1:{free_port()}/v1")
    assert_one_line_error(result, "not reachable")
    assert time.monotonic() - started < 30


def test_run_survives_a_corrupt_pdf_and_logs_everything(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    with FakeOpenAI([scripted] * 20) as fake:
        result = invoke("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model",
                        "--out", "out", "--tracking-uri", uri, "--no-progress")
    assert result.exit_code == 2, result.output  # finished, with a failed paper
    assert re.search(r"2 records from 2 papers \(0 partial, 1 failed\)", result.output)
    records = [DatasetRecord.model_validate_json(x) for x in Path("out/results.jsonl").read_text().splitlines()]
    assert {r.evidence.source for r in records} == {"a.pdf", "b.pdf"}
    manifest = json.loads(Path("out/manifest.json").read_text())
    assert [f["file"] for f in manifest["failed_papers"]] == ["broken.pdf"]
    assert manifest["counts"]["records"] == 2 and manifest["status"] == "finished"
    run = mlflow.MlflowClient(uri).get_run(manifest["mlflow"]["run_id"])
    assert run.data.tags["condition"] == "s0"
    # metadata, names, check and details for each of the two papers
    assert run.data.metrics["papers_failed"] == 1 and run.data.metrics["llm_calls"] == 8
    (corpus_input,) = run.inputs.dataset_inputs
    assert corpus_input.dataset.name == "corpus" and json.loads(corpus_input.dataset.source)["uri"].endswith("papers")
    corpus_table = mlflow.artifacts.load_dict(f"{run.info.artifact_uri}/corpus.json")
    assert sorted(corpus_table["data"], key=str)[0][0] == "a.pdf" and len(corpus_table["data"]) == 3
    assert mlflow.artifacts.load_dict(f"{run.info.artifact_uri}/program_state.json")
    traces = mlflow.MlflowClient(uri).search_traces(locations=[run.info.experiment_id], max_results=10)
    status = {next(s for s in t.data.spans if s.parent_id is None).name: t.info.state for t in traces}
    assert status == {"paper:a.pdf": "OK", "paper:b.pdf": "OK", "paper:broken.pdf": "ERROR"}
    listing = invoke("runs", "--tracking-uri", uri)
    assert listing.exit_code == 0 and manifest["mlflow"]["run_id"][:8] in listing.output


def test_rerun_into_the_same_directory_resumes_without_duplicates(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    with FakeOpenAI([scripted] * 20) as fake:
        args = ("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model", "--out", "out",
                "--tracking-uri", uri, "--no-progress")
        assert invoke(*args, "--limit", "1").exit_code == 0
        assert invoke(*args).exit_code == 2  # broken.pdf fails
        calls = len(fake.requests)
    lines = Path("out/results.jsonl").read_text().splitlines()
    assert len(lines) == 2 and len({json.loads(x)["dataset_id"] for x in lines}) == 2
    assert calls == 8  # four calls for each of the two papers: the first was not processed again


def run_experiment(tmp_path: Path, corpus: Path, conditions: str, replies: int):
    """`dsminer experiment` on the corpus against the fake server, scored on a gold naming a.pdf's dataset;
    the result, the tracking URI and the requests the server received."""
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"file": "a.pdf", "title": "Counting Fish",
                                "datasets": [{"name": "ReefCount-3k", "aliases": []}]}) + "\n")
    with FakeOpenAI([scripted] * replies) as fake:
        result = invoke("experiment", str(corpus), "--conditions", conditions, "--api-base", fake.api_base,
                        "--model", "fake-model", "--out", "exp", "--tracking-uri", uri, "--gold", str(gold),
                        "--no-progress")
    return result, uri, fake.requests


def test_experiment_runs_conditions_as_child_runs_and_compares(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result, uri, _ = run_experiment(tmp_path, corpus, "s0,s1a", 60)
    assert result.exit_code == 0, result.output
    assert Path("exp/comparison/comparison.md").is_file()
    parents = set()
    for condition in ("s0", "s1a"):
        child_id = json.loads(Path(f"exp/{condition}/manifest.json").read_text())["mlflow"]["run_id"]
        child = mlflow.MlflowClient(uri).get_run(child_id)
        assert child.data.tags["condition"] == condition
        assert child.data.metrics["gold.recall"] == 1.0
        parents.add(child.data.tags.get("mlflow.parentRunId"))
    assert len(parents) == 1 and None not in parents
    assert "s1a" in Path("exp/comparison/comparison.md").read_text()
    page = Path("exp/report/index.html").read_text()
    assert '"found_by": ["s0", "s1a"]' in page and '"mark": "correct"' in page
    parent = mlflow.MlflowClient(uri).list_artifacts(parents.pop(), "report")
    assert [item.path for item in parent] == ["report/index.html"]


def test_s2_and_its_named_variants_run_side_by_side_in_one_experiment(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result, uri, requests = run_experiment(tmp_path, corpus, "s1a,s2,s2-deterministic", 80)
    planner_calls = sum("tool" in json.dumps(body.get("response_format", {})) for body in requests)
    assert result.exit_code == 0, result.output
    client = mlflow.MlflowClient(uri)
    runs = {}
    for label in ("s1a", "s2", "s2-deterministic"):
        manifest = json.loads(Path(f"exp/{label}/manifest.json").read_text())
        runs[label] = client.get_run(manifest["mlflow"]["run_id"])
        assert runs[label].data.tags["variant"] == label and runs[label].data.metrics["gold.recall"] == 1.0
    assert runs["s2-deterministic"].data.tags["condition"] == "s2"
    assert runs["s2-deterministic"].data.params["agent.planner"] == "deterministic"
    assert runs["s2"].data.metrics["s2.decisions_model"] > 0 and planner_calls > 0
    assert runs["s2-deterministic"].data.metrics["s2.decisions_model"] == 0
    assert "s2-deterministic" in Path("exp/comparison/comparison.md").read_text()
    events = [json.loads(line) for line in Path("exp/s2/events.jsonl").read_text().splitlines()]
    sources = {e["source"] for e in events if e["kind"] == "planner_decision"}
    assert "model" in sources and {e["step"] for e in events if e.get("tool")} >= {"parse_pdf", "normalise_records"}


def test_an_unknown_variant_is_one_line(tmp_path, corpus):
    assert_one_line_error(invoke("experiment", str(corpus), "--conditions", "s0,s2-fast"), "s2-fast")


def test_eval_module_rejects_unknown_module(tmp_path):
    assert_one_line_error(invoke("eval-module", "tables", "--gold", str(tmp_path / "g.json")), "unknown module")


def test_ctrl_c_keeps_finished_papers_and_marks_the_run_interrupted(tmp_path, corpus, monkeypatch):
    from dsminer.run.parsing import PaperParser

    real_parse = PaperParser.parse

    def parse_then_interrupt(parser, path, timeout=None):
        if path.name == "b.pdf":
            raise KeyboardInterrupt
        return real_parse(parser, path, timeout)

    monkeypatch.setattr(PaperParser, "parse", parse_then_interrupt)
    monkeypatch.chdir(tmp_path)
    with FakeOpenAI([scripted] * 20) as fake:
        result = invoke("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model", "--out", "out",
                        "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db", "--no-progress")
    assert result.exit_code == 130
    manifest = json.loads(Path("out/manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["counts"]["records"] == 1
    assert [json.loads(x)["file"] for x in Path("out/papers.jsonl").read_text().splitlines()] == ["a.pdf"]
    run = mlflow.MlflowClient(f"sqlite:///{tmp_path}/mlflow.db").get_run(manifest["mlflow"]["run_id"])
    assert run.info.status == "KILLED"


def test_traces_are_written_by_one_thread_unless_the_user_sets_otherwise(tmp_path, monkeypatch):
    from mlflow.environment_variables import MLFLOW_ASYNC_TRACE_LOGGING_MAX_WORKERS as writers

    from dsminer import tracking

    monkeypatch.setenv(writers.name, "")
    monkeypatch.delenv(writers.name)
    tracking.use_experiment(f"sqlite:///{tmp_path}/mlflow.db", "writers")
    assert writers.get() == tracking.TRACE_WRITERS == 1
    monkeypatch.setenv(writers.name, "4")
    tracking.write_traces_in_one_thread()
    assert writers.get() == 4


def test_an_experiment_with_a_gold_that_fits_no_paper_stops_before_any_model_call(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"file": "z.pdf", "title": "Zeta", "datasets": ["ReefCount-3k"]}) + "\n")
    with FakeOpenAI(default=scripted) as fake:
        result = invoke("experiment", str(corpus), "--conditions", "s0", "--api-base", fake.api_base, "--model",
                        "fake-model", "--out", "exp", "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db",
                        "--gold", str(gold), "--no-progress")
        calls = len(fake.requests)
    assert_one_line_error(result, "no paper of the corpus")
    assert calls == 0
