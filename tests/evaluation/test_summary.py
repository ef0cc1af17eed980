"""Summary metrics and run loading on hand-written runs with known answers."""

from __future__ import annotations

import pytest

from dsminer.errors import RunNotFoundError
from dsminer.evaluation.runs import RunFileError, assign_labels, load_run
from dsminer.evaluation.summary import format_summary, summarize_run


@pytest.fixture
def run_a(write_run, record, paper):
    records = [
        record("p1.pdf", "MNIST", title="Paper One", link="https://huggingface.co/datasets/mnist",
               platform="HuggingFace", content="handwritten digits", authors=["A. Author"]),
        record("p1.pdf", "CIFAR-10", title="Paper One", content="  ", page=None),
        record("p2.pdf", "SQuAD", link="https://github.com/rajpurkar/squad", platform="GitHub", quote=""),
    ]
    papers = [paper("p1.pdf", records=2), paper("p2.pdf", records=1), paper("p3.pdf", "failed"), paper("p4.pdf")]
    events = [{"kind": "observation"}, {"kind": "observation"}, {"kind": "retry"}, {"kind": "memory_injection"},
              {"kind": "thought"}]
    return load_run(str(write_run("s1a", records, papers, events)))


def test_summary_counts_and_rates(run_a):
    summary = summarize_run(run_a)
    assert summary["record_count"] == 3
    assert summary["papers_processed"] == 4
    assert summary["papers_failed"] == 1
    assert summary["unique_papers"] == 2
    assert summary["datasets_per_paper"] == pytest.approx(1.0)  # 3 records over p1, p2, p4 (p3 failed)
    assert summary["link_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["platform_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["content_rate"] == pytest.approx(1 / 3, abs=1e-4)


def test_summary_field_rates_top_papers_events(run_a):
    summary = summarize_run(run_a)
    rates = summary["field_nonempty_rates"]
    assert rates["paper_refs.title"] == pytest.approx(2 / 3)
    assert rates["paper_refs.authors"] == pytest.approx(1 / 3)
    assert rates["evidence.page"] == pytest.approx(2 / 3)
    assert rates["evidence.quote"] == pytest.approx(2 / 3)
    assert rates["dataset_describe.fields"] == 0.0
    assert summary["top_papers"] == [{"paper": "p1.pdf", "records": 2}, {"paper": "p2.pdf", "records": 1}]
    assert summary["event_counts"] == {"observation": 2, "reflection": 0, "retry": 1, "memory_injection": 1,
                                       "thought": 1}
    assert summary["usage"]["llm_calls"] == 8.0


def test_format_summary_shows_the_numbers(run_a):
    text = format_summary(summarize_run(run_a))
    assert "record_count           3" in text
    assert "link_rate              0.667" in text
    assert "memory_injection       1" in text


def test_resumed_paper_latest_status_wins(write_run, record, paper):
    papers = [paper("a.pdf", "failed"), paper("b.pdf"), paper("a.pdf", records=1)]
    run = load_run(str(write_run("s0", [record("a.pdf", "X")], papers)))
    summary = summarize_run(run)
    assert [row["file"] for row in run.papers] == ["b.pdf", "a.pdf"]
    assert (summary["papers_processed"], summary["papers_failed"], summary["datasets_per_paper"]) == (2, 0, 0.5)
    assert summary["usage"]["llm_calls"] == 4.0


def test_without_papers_file_processed_papers_come_from_records(write_run, record):
    run = load_run(str(write_run("s0", [record("a.pdf", "X"), record("a.pdf", "Y"), record("b.pdf", "Z")])))
    summary = summarize_run(run)
    assert (summary["papers_processed"], summary["datasets_per_paper"]) == (2, 1.5)
    assert run.papers == [] and run.events == []


def test_empty_run_gives_zero_rates(write_run):
    summary = summarize_run(load_run(str(write_run("s2", []))))
    assert summary["record_count"] == 0
    assert summary["link_rate"] == 0.0 and summary["datasets_per_paper"] == 0.0
    assert summary["top_papers"] == []


def test_missing_directory_is_run_not_found(tmp_path):
    with pytest.raises(RunNotFoundError, match="not a run directory"):
        load_run(str(tmp_path / "nope" / "run"))


def test_directory_without_run_files_is_run_not_found(tmp_path):
    with pytest.raises(RunNotFoundError, match="neither results.jsonl nor manifest.json"):
        load_run(str(tmp_path))


def test_bad_results_line_names_the_line(write_run, record):
    directory = write_run("s0", [record("a.pdf", "X")])
    with (directory / "results.jsonl").open("a") as handle:
        handle.write('{"name": "no id"}\n')
    with pytest.raises(RunFileError, match=r"results.jsonl, line 2: bad record field dataset_id"):
        load_run(str(directory))


def test_labels_get_a_run_id_suffix_when_conditions_repeat(write_run):
    runs = [load_run(str(write_run(name, [], condition=condition, run_id=run_id)))
            for name, condition, run_id in (("r1", "s0", "abcdef123"), ("r2", "s0", "987654abc"), ("r3", "s2", None))]
    assign_labels(runs)
    assert [run.label for run in runs] == ["s0-abcdef", "s0-987654", "s2"]


def test_summary_and_the_runs_own_metrics_agree(tmp_path):
    """`summarize` and `compare` read the same numbers the run logged at its end: one metrics function."""
    import json

    from dsminer.evaluation.runs import read_run_dir
    from dsminer.schema import DatasetRecord
    from dsminer.store import RunStore, run_metrics

    store = RunStore(tmp_path / "run")
    record = DatasetRecord.model_validate({
        "dataset_id": "ds-1", "name": "ReefCount", "paper_refs": {"title": "T"},
        "evidence": {"source": "a.pdf", "page": 1, "quote": "q"}, "dataset_link": "https://github.com/x/y",
        "platform": "GitHub"})
    store.commit_paper([record], {"file": "a.pdf", "status": "ok", "seconds": 2.0, "llm_calls": 3,
                                  "prompt_tokens": 10, "completion_tokens": 5})
    store.commit_paper([], {"file": "b.pdf", "status": "failed", "seconds": 1.0, "llm_calls": 1,
                            "prompt_tokens": 4, "completion_tokens": 0, "reason": "x"})
    (tmp_path / "run" / "manifest.json").write_text(json.dumps({"condition": "s0"}))
    logged = run_metrics(store.read_records(), store.read_papers(), store.event_counts(), 3.0)
    summary = summarize_run(read_run_dir(tmp_path / "run"))
    assert (summary["record_count"], summary["papers_processed"], summary["papers_failed"]) == (
        logged["records"], logged["papers"], logged["papers_failed"])
    for key in ("datasets_per_paper", "link_rate", "platform_rate", "content_rate"):
        assert summary[key] == logged[key]


def test_one_run_given_twice_gets_labels_that_are_valid_mlflow_metric_names(write_run):
    from mlflow.utils.validation import _validate_metric_name

    directory = str(write_run("r1", [], condition="s0", run_id="abcdef123"))
    runs = [load_run(directory) for _ in range(2)]
    assign_labels(runs)
    assert [run.label for run in runs] == ["s0-abcdef-1", "s0-abcdef-2"]
    for run in runs:
        _validate_metric_name(f"{run.label}.records")
