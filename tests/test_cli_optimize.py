"""`dsminer optimize`, `run --program` and `eval-module candidates` through the CLI (against a fake OpenAI-compatible
server where a model is called)."""

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import mlflow

from dsminer.cli.optimize import is_sentence_gold
from dsminer.evaluation.scirex import read_document
from dsminer.evidence.candidate_ranker import CandidateRanker
from dsminer.programs.module_eval import score_candidates
from tests.fake_openai import FakeOpenAI, chat_fields, chat_reply, scripted
from tests.helpers import assert_one_line_error, invoke
from tests.scirex_docs import reef_doc, scirex_doc

DEMO_SENTENCE = "We train and evaluate FishNet on the ReefCount dataset of reef images."


def reef_names(body: dict) -> tuple[int, dict]:
    return 200, chat_reply(chat_fields(names=[{"name": "ReefCount", "kind": "dataset", "role": "used"}]))


def scirex_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    train = tmp_path / "train"
    train.mkdir()
    for doc_id in ("t1", "t2", "heldout"):
        (train / f"{doc_id}.json").write_text(json.dumps(reef_doc(doc_id)))
    dev = tmp_path / "dev.jsonl"
    dev.write_text("\n".join(json.dumps(reef_doc(doc_id)) for doc_id in ("d1", "d2")) + "\n")
    exclude = tmp_path / "manifest.jsonl"
    exclude.write_text(json.dumps({"scirex_doc_id": "heldout", "local_pdf": "x.pdf"}) + "\n")
    return train, dev, exclude


def compile_labeled(tmp_path: Path, uri: str) -> tuple[Any, list[dict], Path]:
    """`optimize` of the names step with one labelled demonstration into prog.json: the result, the requests
    the fake server got and the dev file."""
    train, dev, exclude = scirex_files(tmp_path)
    with FakeOpenAI(default=reef_names) as fake:
        result = invoke("optimize", "--train", str(train), "--dev", str(dev), "--exclude", str(exclude),
                        "--api-base", fake.api_base, "--model", "fake-model", "--demos", "1",
                        "--out", "prog.json", "--tracking-uri", uri)
    assert result.exit_code == 0, result.output
    return result, fake.requests, dev


def test_optimize_writes_a_program_that_run_loads_into_its_prompts(tmp_path, corpus, monkeypatch):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    result, requests, _ = compile_labeled(tmp_path, uri)
    assert "names: dev score 1.000 uncompiled, 1.000 compiled (labeled)" in result.output
    assert len(requests) == 4  # two dev papers, before and after; the labeled optimiser calls no model
    saved = json.loads(Path("prog.json").read_text())
    assert saved["meta"]["model"] == "fake-model" and saved["meta"]["excluded_documents"] == 1
    assert saved["meta"]["dev_scores"] == {"names": {"uncompiled": 1.0, "compiled": 1.0}}
    (demo,) = saved["steps"]["names"]["demos"]
    assert DEMO_SENTENCE in demo["context"]
    (compile_run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.get_experiment_by_name("dsminer").experiment_id], "tags.kind = 'optimize'")
    assert compile_run.data.params["optimizer"] == "labeled" and compile_run.data.params["train_documents"] == "2"
    assert compile_run.data.metrics["names.dev_compiled"] == 1.0 and compile_run.data.metrics["names.demos"] == 1
    assert compile_run.data.metrics["names.compile_lm_calls"] == 0 and "compiled with 0 model calls" in result.output
    assert mlflow.artifacts.load_dict(f"{compile_run.info.artifact_uri}/prog.json")["format"] == "dsminer-program/1"

    with FakeOpenAI(default=scripted) as fake:
        result = invoke("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model", "--out", "out",
                        "--program", "prog.json", "--tracking-uri", uri, "--no-progress")
    assert result.exit_code == 2, result.output  # the corpus holds a broken PDF
    names_prompts = [json.dumps(r["messages"]) for r in fake.requests if "`names`" in json.dumps(r["messages"])]
    assert len(names_prompts) == 2 and all(DEMO_SENTENCE in prompt for prompt in names_prompts)
    digest = hashlib.sha256(Path("prog.json").read_bytes()).hexdigest()
    manifest = json.loads(Path("out/manifest.json").read_text())
    assert manifest["program_sha256"] == digest and manifest["program_file"] == str(tmp_path / "prog.json")
    run = mlflow.MlflowClient(uri).get_run(manifest["mlflow"]["run_id"])
    assert run.data.params["program_sha256"] == digest
    traces = mlflow.MlflowClient(uri).search_traces(locations=[run.info.experiment_id], max_results=10)
    assert any(DEMO_SENTENCE in json.dumps(span.inputs) for trace in traces for span in trace.data.spans
               if span.span_type == "CHAT_MODEL")

    with FakeOpenAI(default=scripted) as fake:
        resumed = invoke("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model",
                         "--out", "out", "--program", "none", "--tracking-uri", uri, "--no-progress")
    assert_one_line_error(resumed, "program_sha256")


def test_optimize_errors_are_one_line(tmp_path, corpus):  # noqa: F811
    train, dev, exclude = scirex_files(tmp_path)
    common = ("--api-base", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "p.json"))
    assert_one_line_error(invoke("optimize", "--train", str(tmp_path / "none"), "--dev", str(dev), *common),
                          "SciREX documents not found")
    assert_one_line_error(invoke("optimize", "--train", str(train), "--dev", str(dev), "--optimizer", "sgd", *common),
                          "unknown optimiser 'sgd'")
    assert_one_line_error(invoke("optimize", "--train", str(train), "--dev", str(dev), "--module", "details", *common),
                          "needs labelled examples")
    assert_one_line_error(invoke("optimize", "--train", str(train), "--dev", str(dev), "--exclude",
                                 str(tmp_path / "nope.jsonl"), *common), "--exclude file not found")
    heddes = tmp_path / "sentences.json.gz"
    with gzip.open(heddes, "wt") as handle:
        json.dump({"documents": [{"body_text": [{"text": "We use ReefCount.", "annotation_spans": [
            {"start": 7, "end": 16, "text": "ReefCount", "type": "dataset_name"}]}]}]}, handle)
    assert_one_line_error(invoke("optimize", "--train", str(heddes), "--dev", str(dev), "--module", "details",
                                 "--optimizer", "bootstrap", *common), "trains on SciREX documents")
    assert_one_line_error(invoke("run", str(corpus), "--program", str(tmp_path / "nope.json")),
                          "program file not found")


def test_a_json_train_file_is_read_by_its_content(tmp_path):
    train, _, _ = scirex_files(tmp_path)
    sentences = {"documents": [{"body_text": [{"text": "We use ReefCount.", "annotation_spans": []}]}]}
    (tmp_path / "sentences.json").write_text(json.dumps(sentences))
    (tmp_path / "broken.json").write_text("{not json")
    assert is_sentence_gold(tmp_path / "sentences.json")
    assert not is_sentence_gold(train / "t1.json")  # one SciREX document
    assert not is_sentence_gold(tmp_path / "broken.json")  # left to the SciREX reader's error
    assert not is_sentence_gold(train)


def test_the_optimisers_trial_scores_are_logged_per_trial(tmp_path):
    from types import SimpleNamespace

    from dsminer import tracking
    from dsminer.cli.optimize import log_trials

    # as MIPROv2 leaves them on its program (Evaluate's percentages), and as GEPA keeps its candidates' scores
    mipro = SimpleNamespace(trial_logs={1: {"full_eval_score": 45.1, "full_eval_program": object()},
                                        2: {"mb_score": 50.0}, 3: {"full_eval_score": 47.5}})
    gepa = SimpleNamespace(detailed_results=SimpleNamespace(val_aggregate_scores=[0.404, 0.376]))
    experiment_id = tracking.use_experiment(f"sqlite:///{tmp_path}/mlflow.db", "trials")
    with mlflow.start_run(experiment_id=experiment_id) as run:
        log_trials("names", mipro)
        log_trials("details", gepa)
    client = mlflow.MlflowClient()
    history = {key: [(m.step, m.value) for m in client.get_metric_history(run.info.run_id, key)]
               for key in ("names.trial_dev_score", "names.trial_minibatch_score", "details.trial_dev_score")}
    assert sorted(history["names.trial_dev_score"]) == [(1, 0.451), (3, 0.475)]
    assert history["names.trial_minibatch_score"] == [(2, 0.5)]
    assert sorted(history["details.trial_dev_score"]) == [(0, 0.404), (1, 0.376)]


def test_a_bootstrap_compile_counts_its_model_calls(tmp_path):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    train, dev, exclude = scirex_files(tmp_path)
    with FakeOpenAI(default=reef_names) as fake:
        result = invoke("optimize", "--train", str(train), "--dev", str(dev), "--exclude", str(exclude),
                        "--api-base", fake.api_base, "--model", "fake-model", "--optimizer", "bootstrap",
                        "--budget", "2", "--demos", "1", "--out", str(tmp_path / "prog.json"), "--tracking-uri", uri)
    assert result.exit_code == 0, result.output
    # the two dev papers before and after, and the training papers tried until one demonstration passed
    assert len(fake.requests) == 5 and "names: compiled with 1 model call (" in result.output
    (compile_run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.get_experiment_by_name("dsminer").experiment_id], "tags.kind = 'optimize'")
    assert compile_run.data.metrics["names.compile_lm_calls"] == 1
    assert compile_run.data.metrics["names.compile_prompt_tokens"] > 0


def test_score_program_scores_a_program_file_against_the_uncompiled_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    dev = compile_labeled(tmp_path, uri)[2]
    with FakeOpenAI(default=reef_names) as fake:
        result = invoke("score-program", "prog.json", "--dev", str(dev), "--dev-skip", "1",
                        "--api-base", fake.api_base, "--model", "fake-model", "--tracking-uri", uri)
    assert result.exit_code == 0, result.output
    assert ("names: dev score 1.000 uncompiled, 1.000 with prog.json (compiled at 1.000 on its own dev set) "
            "on 1 document") in result.output
    uncompiled, loaded = (json.dumps(request["messages"]) for request in fake.requests)
    assert uncompiled.count(DEMO_SENTENCE) == 1 and loaded.count(DEMO_SENTENCE) == 2  # the paper, and the demo
    (score_run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.get_experiment_by_name("dsminer").experiment_id], "tags.kind = 'score-program'")
    assert score_run.data.params["program_sha256"] == hashlib.sha256(Path("prog.json").read_bytes()).hexdigest()
    assert score_run.data.params["dev_documents"] == "1" and score_run.data.params["dev_skip"] == "1"
    assert score_run.data.metrics == {"names.dev_uncompiled": 1.0, "names.dev_compiled": 1.0}

    assert_one_line_error(invoke("score-program", "prog.json", "--dev", str(dev), "--dev-skip", "2",
                                 "--api-base", "http://127.0.0.1:9/v1"), "no SciREX documents to use")
    assert_one_line_error(invoke("score-program", "nope.json", "--dev", str(dev), "--api-base",
                                 "http://127.0.0.1:9/v1"), "program file not found")


def test_eval_module_candidates_scores_the_candidate_finder_on_scirex_documents(tmp_path):
    train, _, exclude = scirex_files(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    quiet = tmp_path / "cues-only.json"  # a candidate ranker that finds no phrase likelier a dataset than not
    CandidateRanker({}, -1.0).save(quiet)
    config = tmp_path / "settings.toml"
    config.write_text(f'candidate_ranker = "{quiet}"\n', encoding="utf-8")
    result = invoke("eval-module", "candidates", "--gold", str(train), "--exclude", str(exclude), "--tracking-uri", uri,
                    "--config", str(config))
    assert result.exit_code == 0, result.output
    scores = dict(pair.split("=") for pair in result.output.split())
    assert scores["documents"] == "2" and scores["gold_in_text"] == "2"  # the excluded document is not read
    assert scores["candidate_coverage"] == "1.0" and scores["context_coverage"] == "1.0"
    (run,) = mlflow.MlflowClient(uri).search_runs(
        [mlflow.get_experiment_by_name("dsminer").experiment_id], "tags.module = 'candidates'")
    assert scores["candidate_precision_strict"] == "0.5"  # ReefCount, and ImageNet: a Material mention, not salient
    assert scores["candidate_precision_lenient"] == "1.0"
    assert run.data.metrics["candidates.candidate_coverage"] == 1.0


def test_a_salient_dataset_the_text_never_writes_as_data_is_not_covered_by_the_candidates():
    doc = scirex_doc("doc-kelp", [
        [("Growing Kelp", [])],
        [("section : Experiments", []),
         ("We train KelpNet on the ReefCount dataset .", [("KelpNet", "Method"), ("ReefCount dataset", "Material")]),
         ("KelpSet images look green .", [("KelpSet", "Material")])],
    ], {"ReefCount": ["ReefCount dataset"], "KelpSet": ["KelpSet"]})
    scores = score_candidates([read_document(doc)], 40)
    assert scores["gold_in_text"] == 2 and scores["candidate_coverage"] == 0.5
