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


def test_a_later_paper_is_offered_what_earlier_papers_committed_and_a_resume_offers_it_again(paper_pdf, tmp_path,
                                                                                            monkeypatch):
    import shutil

    monkeypatch.chdir(tmp_path)
    second = shutil.copy(paper_pdf, tmp_path / "second.pdf")
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    both = {"names": [{"name": "ReefCount-3k", "kind": "dataset", "role": "used"},
                      {"name": "KelpScenes", "kind": "dataset", "role": "used"}]}
    detail = {"content": "images", "data_type": "images", "domain": "marine", "data_fields": ["count"]}
    corpus = [CorpusPaper(paper_pdf, PaperRefs(title="Reef")), CorpusPaper(second, PaperRefs(title="Reef"))]

    def run(papers, limit=None):
        settings = Settings(condition="s1a", out_dir=tmp_path / "run", tracking_uri=uri, experiment="corpus",
                            limit=limit, agent={"memory": False})
        lm = DummyLM([both, detail, detail] * 2)
        return run_condition(settings, papers, build_program(settings), lm, {"model": "dummy", "kind": "local"})

    def offered(paper):
        events = [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
        return [[d["name"] for d in e["datasets"]] for e in events
                if e["kind"] == "corpus_offered" and e["paper"] == paper]

    run(corpus[:1])
    assert offered("reef.pdf") == []  # nothing was committed before the first paper
    outcome = run(corpus)  # the resume reads the first paper's records back before the second starts
    assert offered("second.pdf") == [["ReefCount-3k", "KelpScenes"]]
    assert outcome.metrics["corpus_offered"] == 2


def test_papers_of_one_run_are_offered_the_datasets_of_those_committed_before(paper_pdf, tmp_path, monkeypatch):
    import shutil

    monkeypatch.chdir(tmp_path)
    second = shutil.copy(paper_pdf, tmp_path / "second.pdf")
    settings = Settings(condition="s1a", out_dir=tmp_path / "run", tracking_uri=f"sqlite:///{tmp_path}/mlflow.db",
                        experiment="corpus", agent={"memory": False})
    both = {"names": [{"name": "ReefCount-3k", "kind": "dataset", "role": "used"},
                      {"name": "KelpScenes", "kind": "dataset", "role": "used"}]}
    detail = {"content": "images", "data_type": "images", "domain": "marine", "data_fields": ["count"]}
    corpus = [CorpusPaper(paper_pdf, PaperRefs(title="Reef")), CorpusPaper(second, PaperRefs(title="Reef"))]
    program = build_program(settings)
    run_condition(settings, corpus, program, DummyLM([both, detail, detail] * 2), {"model": "dummy", "kind": "local"})
    events = [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    offered = [(e["paper"], [d["papers"] for d in e["datasets"]]) for e in events if e["kind"] == "corpus_offered"]
    assert offered == [("second.pdf", [["reef.pdf"], ["reef.pdf"]])]
    assert len(program.corpus) == 2
    off = Settings(condition="s1a", agent={"memory": False, "corpus_memory": False})
    assert build_program(off).corpus is None
