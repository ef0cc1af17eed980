"""The agent under the run harness, with a scripted model: its metrics and step spans reach MLflow."""

import json

import mlflow
from dspy.utils import DummyLM

from dsminer.config import Settings
from dsminer.corpus.local import CorpusPaper
from dsminer.programs.registry import build_program
from dsminer.run.harness import run_condition
from dsminer.schema import PaperRefs


def test_agent_metrics_and_step_spans_reach_mlflow(appendix_pdf, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    settings = Settings(condition="s1a", out_dir=tmp_path / "run", tracking_uri=uri, experiment="agent-test",
                        agent={"memory_path": tmp_path / "memory.jsonl"})
    lm = DummyLM([{"names": [{"name": "ReefCount-3k", "kind": "dataset", "role": "used"}]},
                  {"names": [{"name": "KelpScenes", "kind": "dataset", "role": "used"}]}]
                 + [{"content": "images", "data_type": "images", "domain": "marine", "data_fields": ["count"]}] * 2)
    corpus = [CorpusPaper(appendix_pdf, PaperRefs(title="Learning to Count Reef Fish"))]
    outcome = run_condition(settings, corpus, build_program(settings), lm, {"model": "dummy", "kind": "local"})

    assert outcome.metrics["records"] == 2 and outcome.metrics["retries"] == 1
    run = mlflow.MlflowClient(uri).get_run(outcome.run_id)
    assert run.data.metrics["productive_retries"] == 1
    assert run.data.metrics["tool.names.calls"] == 2
    assert run.data.metrics["llm_calls"] == 4 and "prompt_tokens_per_paper" in run.data.metrics
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["metrics"]["reflections"] == 4

    mlflow.set_tracking_uri(uri)
    trace = mlflow.search_traces(locations=[run.info.experiment_id], return_type="list")[0]
    spans = {span.name: span for span in trace.data.spans}
    assert {"paper:reef.pdf", "parse", "names", "details:ReefCount-3k", "details:KelpScenes"} <= set(spans)
    assert {event.name for event in spans["names"].events} >= {"reflection", "retry", "stop"}
    kinds = {span.span_type for span in trace.data.spans}
    assert "CHAT_MODEL" in kinds or "LLM" in kinds  # each model call, with its prompt and answer
    assert not [name for name in spans if name.endswith((".format", ".parse"))]  # no adapter spans
    assert (tmp_path / "memory.jsonl").is_file()
