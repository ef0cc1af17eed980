"""Faults where they happen in a real run: an endpoint that fails mid-run, a kill between writes, a torn line,
a second process on the same run directory. Against the fake OpenAI-compatible server on 127.0.0.1."""

import json
import threading
from pathlib import Path

import pytest
from dspy.utils.exceptions import AdapterParseError, LMAuthError, LMInvalidRequestError, LMProviderError, LMServerError

from dsminer.faults import EndpointError, PaperGuard, PaperTimeout, StepFailure
from dsminer.run.harness import default_out_dir
from dsminer.store import RunStore
from tests.fake_openai import FakeOpenAI, scripted
from tests.helpers import CALLS_PER_PAPER, fish_corpus, one_page_pdf, papers, records


def fail(status: int):
    return lambda body: (status, {"error": {"message": f"failure {status}"}})


def malformed(body):
    return 200, "this is not JSON {"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return fish_corpus(tmp_path / "papers", ["a.pdf", "b.pdf", "c.pdf", "d.pdf"])


def uninterrupted(corpus: Path, run_in) -> list[str]:
    with FakeOpenAI([scripted] * 40) as fake:
        assert run_in(corpus, fake, "--out", "whole").exit_code == 0
    return records(Path("whole"))


@pytest.mark.parametrize("fault", [fail(500), fail(503), fail(429)], ids=["500", "503", "429"])
def test_an_endpoint_fault_mid_run_fails_that_paper_and_a_resume_redoes_it(corpus, run_in, fault):
    # a.pdf answers; b.pdf meets the fault on its names step four times (the call and 3 retries)
    replies = [scripted] * (CALLS_PER_PAPER + 1) + [fault] * 4 + [scripted] * 20
    with FakeOpenAI(replies) as fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 2, result.output
    assert "(0 partial, 1 failed)" in result.output
    status = papers()
    assert status["b.pdf"]["status"] == "failed" and status["b.pdf"]["endpoint_retries"] == 3
    assert "endpoint failed 4 times at step names" in status["b.pdf"]["reason"]
    assert {status[name]["status"] for name in ("a.pdf", "c.pdf", "d.pdf")} == {"ok"}
    with FakeOpenAI([scripted] * 20) as fake:
        assert run_in(corpus, fake).exit_code == 0
        assert len(fake.requests) == CALLS_PER_PAPER  # only b.pdf again
    assert records() == uninterrupted(corpus, run_in)


def test_a_fault_that_clears_within_the_retries_loses_nothing(corpus, run_in):
    replies = [scripted] * CALLS_PER_PAPER + [fail(503), fail(503)] + [scripted] * 20
    with FakeOpenAI(replies) as fake:
        assert run_in(corpus, fake).exit_code == 0
    assert papers()["b.pdf"]["status"] == "ok" and papers()["b.pdf"]["endpoint_retries"] == 2


def test_an_endpoint_down_for_papers_in_a_row_stops_the_run_with_one_line(corpus, run_in):
    with FakeOpenAI([scripted] * CALLS_PER_PAPER) as fake:  # then every call gets HTTP 500
        result = run_in(corpus, fake)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: stopped: the endpoint failed on 3 papers in a row")
    assert [row["status"] for row in papers().values()] == ["ok", "failed", "failed", "failed"]
    manifest = json.loads(Path("out/manifest.json").read_text())
    assert manifest["status"] == "stopped"


def test_a_server_gone_mid_run_fails_the_papers_then_stops(corpus, run_in):
    fake = FakeOpenAI()

    def answer_then_go_away(body):
        def close() -> None:
            fake.server.shutdown()
            fake.server.server_close()  # later connections are refused
        threading.Thread(target=close).start()
        return scripted(body)
    fake.replies = [scripted] * (CALLS_PER_PAPER - 1) + [answer_then_go_away]
    with fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 1 and "stopped" in result.output
    assert papers()["a.pdf"]["status"] == "ok"
    assert "LMTransportError" in papers()["b.pdf"]["reason"]


def test_an_auth_error_stops_the_run_at_once(corpus, run_in):
    with FakeOpenAI([scripted] * CALLS_PER_PAPER + [fail(401)] * 10) as fake:
        result = run_in(corpus, fake)
        assert len(fake.requests) == CALLS_PER_PAPER + 1  # not retried
    assert result.exit_code == 1 and "LMAuthError HTTP 401" in result.output
    assert papers()["b.pdf"]["status"] == "failed" and "c.pdf" not in papers()


def test_a_malformed_body_is_retried_once_then_the_step_fails(corpus, run_in):
    once = [scripted] * CALLS_PER_PAPER + [malformed] + [scripted] * 20
    with FakeOpenAI(once) as fake:
        assert run_in(corpus, fake).exit_code == 0
        asked, again = fake.requests[CALLS_PER_PAPER], fake.requests[CALLS_PER_PAPER + 1]
    assert papers()["b.pdf"]["status"] == "ok" and papers()["b.pdf"]["answer_retries"] == 1
    # the retry asks the same, sampled afresh: at temperature 0 the model would answer the same again
    assert again["messages"] == asked["messages"] and asked.get("temperature", 0) == 0 and again["temperature"] > 0

    # the metadata step of b.pdf fails: its records are kept and it is partial
    metadata = [scripted] * CALLS_PER_PAPER + [malformed, malformed] + [scripted] * 20
    with FakeOpenAI(metadata) as fake:
        result = run_in(corpus, fake, "--out", "second")
    assert result.exit_code == 0 and "(1 partial, 0 failed)" in result.output
    row = papers(Path("second"))["b.pdf"]
    assert row["status"] == "partial" and row["reason"] == "failed steps: metadata" and row["records"] == 1

    # its names step fails: it has nothing, so it failed, and a resume processes it again
    names = [scripted] * CALLS_PER_PAPER + [scripted, malformed, malformed] + [scripted] * 20
    with FakeOpenAI(names) as fake:
        result = run_in(corpus, fake, "--out", "third")
    assert result.exit_code == 2 and "(0 partial, 1 failed)" in result.output
    row = papers(Path("third"))["b.pdf"]
    assert row["status"] == "failed" and row["reason"].startswith("the names step got no usable answer: ")


def test_an_unexpected_error_in_one_paper_does_not_end_the_run(corpus, run_in, monkeypatch):
    from dsminer.run.parsing import PaperParser

    real = PaperParser.parse

    def broken_for_c(parser, path, timeout=None):
        if Path(path).name == "c.pdf":
            raise OSError("disk read failed")
        return real(parser, path, timeout)
    monkeypatch.setattr(PaperParser, "parse", broken_for_c)
    with FakeOpenAI([scripted] * 20) as fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 2
    assert papers()["c.pdf"]["reason"] == "unexpected error: OSError: disk read failed"
    assert papers()["d.pdf"]["status"] == "ok"


def test_a_parse_that_hangs_fails_its_paper_at_the_time_limit_and_the_run_goes_on(corpus, run_in, monkeypatch):
    from dsminer.run.parsing import PaperParser
    from tests.helpers import hang_on_stuck

    one_page_pdf(corpus / "stuck.pdf", ["Stuck", "A PDF the parser never finishes."])
    real = PaperParser.__init__
    monkeypatch.setattr(PaperParser, "__init__", lambda parser, paths, processes, ahead:
                        real(parser, paths, processes, ahead, reader=hang_on_stuck))
    monkeypatch.setenv("DSMINER_PAPER_TIMEOUT_S", "5")
    with FakeOpenAI([scripted] * 40) as fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 2
    assert papers()["stuck.pdf"]["status"] == "failed"
    assert "stuck.pdf: parsing took longer than the time limit of 5 s" in papers()["stuck.pdf"]["reason"]
    assert {name: row["status"] for name, row in papers().items() if name != "stuck.pdf"} == dict.fromkeys(
        ["a.pdf", "b.pdf", "c.pdf", "d.pdf"], "ok")


def test_a_kill_between_records_and_status_then_resume_gives_the_records_of_an_uninterrupted_run(corpus, run_in):
    with FakeOpenAI([scripted] * 40) as fake:
        assert run_in(corpus, fake, "--limit", "2").exit_code == 0
    store = RunStore(Path("out"))
    # b.pdf's status line is lost (the kill came after its records), and the records file ends torn
    lines = store.papers_path.read_text().split("\n")
    store.papers_path.write_text("\n".join(line for line in lines if '"b.pdf"' not in line))
    with store.results_path.open("a") as handle:
        handle.write('{"dataset_id": "torn')
    assert records() == ["a.pdf:ReefCount-3k"]  # b.pdf's records are not committed
    with FakeOpenAI([scripted] * 40) as fake:
        assert run_in(corpus, fake).exit_code == 0
    assert records() == uninterrupted(corpus, run_in)
    assert len(store.results_path.read_text().splitlines()) == 4


def test_a_torn_status_line_and_a_line_separator_in_metadata_resume_cleanly(corpus, run_in):
    (corpus / "metadata.jsonl").write_text(json.dumps({"file": "a.pdf", "title": "Fish\u2028Counting"}) + "\n")
    with FakeOpenAI([scripted] * 40) as fake:
        assert run_in(corpus, fake, "--limit", "2").exit_code == 0
    with Path("out/papers.jsonl").open("a") as handle:
        handle.write('{"file": "c.pdf", "sta')
    with FakeOpenAI([scripted] * 40) as fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 0, result.output
    assert [row["status"] for row in papers().values()] == ["ok"] * 4
    assert "Fish\u2028Counting" in Path("out/results.jsonl").read_text()


def test_a_second_run_on_a_locked_directory_gets_one_line(corpus, run_in):
    store = RunStore(Path("out"))
    with store.locked(), FakeOpenAI([scripted] * 20) as fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 1 and "in use by another dsminer run" in result.output


def test_a_resume_with_another_condition_is_refused(corpus, run_in):
    with FakeOpenAI([scripted] * 40) as fake:
        assert run_in(corpus, fake, "--limit", "1").exit_code == 0
        result = run_in(corpus, fake, "--condition", "s1a")
    assert result.exit_code == 1 and "holds another run (condition 's0' there, 's1a' now)" in result.output


def test_a_resume_continues_the_same_mlflow_run_with_whole_run_metrics(corpus, run_in, tmp_path):
    import mlflow

    with FakeOpenAI([scripted] * 40) as fake:
        assert run_in(corpus, fake, "--limit", "1").exit_code == 0
        first = json.loads(Path("out/manifest.json").read_text())["mlflow"]["run_id"]
        assert run_in(corpus, fake).exit_code == 0
    manifest = json.loads(Path("out/manifest.json").read_text())
    assert manifest["mlflow"]["run_id"] == first and len(manifest["resumed_at"]) == 1
    run = mlflow.MlflowClient(f"sqlite:///{tmp_path}/mlflow.db").get_run(first)
    assert run.info.status == "FINISHED"
    assert run.data.metrics["papers"] == 4 and run.data.metrics["llm_calls"] == 4 * CALLS_PER_PAPER
    assert manifest["event_counts"]["paper_done"] == 4


def test_run_directories_started_in_the_same_second_differ(tmp_path):
    made = {default_out_dir("s0", parent=tmp_path) for _ in range(3)}
    assert len(made) == 3 and all(path.is_dir() for path in made)


class TestGuard:
    """The bounds of one paper's calls, on exceptions of the installed DSPy."""

    def guard(self, **extra) -> tuple[PaperGuard, list[float], list[str]]:
        waits: list[float] = []
        guard = PaperGuard(fault_retries=3, backoff_s=1.0, sleep=waits.append, **extra)
        return guard, waits, []

    def test_transient_faults_back_off_then_fail_the_paper(self):
        guard, waits, _ = self.guard()
        emitted = []

        def attempt():
            raise LMServerError("overloaded", status=503)
        with pytest.raises(EndpointError, match="endpoint failed 4 times at step names: LMServerError HTTP 503"):
            guard.call(attempt, "names", lambda kind, **f: emitted.append(kind))
        assert waits == [1.0, 2.0, 4.0] and emitted == ["endpoint_retry"] * 3 and guard.endpoint_retries == 3

    def test_a_retry_after_hint_is_honoured(self):
        guard, waits, _ = self.guard()
        answers = iter([LMServerError("busy", status=429, retry_after=7.0), "ok"])

        def attempt():
            value = next(answers)
            if isinstance(value, Exception):
                raise value
            return value
        assert guard.call(attempt, "names", lambda *a, **k: None) == "ok" and waits == [7.0]

    def test_auth_is_fatal_and_not_retried(self):
        guard, waits, _ = self.guard()
        with pytest.raises(EndpointError) as info:
            guard.call(lambda: (_ for _ in ()).throw(LMAuthError("bad key", status=401)), "names", lambda *a, **k: None)
        assert info.value.fatal and waits == []

    @pytest.mark.parametrize("exc, kind", [
        (LMProviderError("not JSON", status=200), "step_failed"),
        (AdapterParseError("JSONAdapter", __import__("dspy").Signature("a -> b"), "junk"), "parse_failed"),
    ])
    def test_a_malformed_answer_is_retried_once_then_the_step_fails(self, exc, kind):
        guard, _, _ = self.guard()
        calls = []

        def attempt():
            calls.append(1)
            raise exc
        with pytest.raises(StepFailure) as info:
            guard.call(attempt, "details", lambda *a, **k: None)
        assert info.value.kind == kind and len(calls) == 2 and guard.failed_steps == ["details"]

    def test_a_malformed_answers_retry_is_the_resample_when_one_is_given(self):
        guard, _, _ = self.guard()

        def attempt():
            raise AdapterParseError("JSONAdapter", __import__("dspy").Signature("a -> b"), "junk")
        assert guard.call(attempt, "names", lambda *a, **k: None, lambda: "resampled") == "resampled"
        assert guard.answer_retries == 1 and guard.failed_steps == []

    def test_a_refused_request_fails_the_step_without_retry(self):
        guard, _, _ = self.guard()
        with pytest.raises(StepFailure):
            guard.call(lambda: (_ for _ in ()).throw(LMInvalidRequestError("too long", status=400)), "names",
                       lambda *a, **k: None)
        assert guard.answer_retries == 0 and guard.endpoint_retries == 0

    def test_the_time_limit_fails_the_paper_before_the_next_call(self):
        guard, _, _ = self.guard(time_limit_s=0.000001)
        with pytest.raises(PaperTimeout, match="time limit"):
            guard.call(lambda: "never", "names", lambda *a, **k: None)


def test_four_workers_give_the_records_of_one_and_keep_every_line_and_trace_on_its_paper(tmp_path, run_in):
    import mlflow

    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(8):
        one_page_pdf(folder / f"p{number}.pdf", ["Counting Fish", f"Part {number}: we evaluate on the ReefCount-3k dataset."])
    with FakeOpenAI([scripted] * 100) as fake:
        assert run_in(folder, fake, "--out", "serial").exit_code == 0
        assert run_in(folder, fake, "--workers", "4").exit_code == 0
    assert records() == records(Path("serial"))
    rows = papers()
    assert len(rows) == 8 and all(row["llm_calls"] == CALLS_PER_PAPER for row in rows.values())
    events = [json.loads(line) for line in Path("out/events.jsonl").read_text().splitlines()]  # no torn lines
    assert sorted(e["paper"] for e in events if e["kind"] == "paper_done") == sorted(rows)
    run_id = json.loads(Path("out/manifest.json").read_text())["mlflow"]["run_id"]
    client = mlflow.MlflowClient(f"sqlite:///{tmp_path}/mlflow.db")
    traces = client.search_traces(locations=[client.get_run(run_id).info.experiment_id],
                                  filter_string=f"metadata.mlflow.sourceRun = '{run_id}'", max_results=50)
    assert len(traces) == 8
    for trace in traces:
        root = next(span for span in trace.data.spans if span.parent_id is None)
        paper = root.name.removeprefix("paper:")
        on_spans = {event.attributes.get("paper") for span in trace.data.spans for event in span.events}
        assert on_spans == {paper}


def test_an_agent_condition_with_two_workers_gives_the_records_of_one(corpus, run_in):
    with FakeOpenAI([scripted] * 200) as fake:
        assert run_in(corpus, fake, "--condition", "s1a", "--out", "serial").exit_code == 0
        assert run_in(corpus, fake, "--condition", "s1a", "--workers", "2").exit_code == 0
    assert records() == records(Path("serial")) and len(records()) == 4
    serial = {name: row["llm_calls"] for name, row in papers(Path("serial")).items()}
    assert {name: row["llm_calls"] for name, row in papers().items()} == serial


def test_a_run_killed_twice_with_sigkill_then_resumed_has_the_records_of_an_uninterrupted_run(tmp_path, run_in):
    import os
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path / "killed"
    folder.mkdir()
    for number in range(6):
        one_page_pdf(folder / f"k{number}.pdf", ["Counting Fish", f"Part {number}: we evaluate on the ReefCount-3k dataset."])

    def slow(body):
        time.sleep(0.15)
        return scripted(body)

    dsminer = Path(sys.executable).with_name("dsminer")
    with FakeOpenAI([slow] * 200) as fake:
        command = [str(dsminer), "run", str(folder), "--api-base", fake.api_base, "--model", "fake-model",
                   "--out", "out", "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db", "--no-progress"]
        for _ in range(2):
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       start_new_session=True)
            deadline = time.monotonic() + 60
            done_before = len(papers()) if Path("out/papers.jsonl").exists() else 0
            while time.monotonic() < deadline and (not Path("out/papers.jsonl").exists()
                                                   or len(papers()) < done_before + 2):
                time.sleep(0.05)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        assert len(papers()) < 6  # the kills came mid-run
        assert subprocess.run(command, capture_output=True, check=False).returncode == 0
        assert run_in(folder, fake, "--out", "whole").exit_code == 0
    assert records() == records(Path("whole")) and len(records()) == 6
    lines = Path("out/results.jsonl").read_text().splitlines()
    assert len(lines) == 6  # nothing written twice


def test_two_runs_starting_together_on_a_new_sqlite_store_do_not_race(tmp_path):
    import subprocess
    import sys

    uri = f"sqlite:///{tmp_path}/new/mlflow.db"
    code = ("import sys; from dsminer.tracking import use_experiment; "
            "print(use_experiment(sys.argv[1], 'shared'))")
    processes = [subprocess.Popen([sys.executable, "-c", code, uri], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], outputs
    assert len({out.strip() for out, _ in outputs}) == 1  # one experiment, found by all


def test_an_agent_run_resumed_counts_its_reflections_over_the_whole_run(corpus, run_in):
    with FakeOpenAI([scripted] * 200) as fake:
        assert run_in(corpus, fake, "--condition", "s1a", "--limit", "2").exit_code == 0
        first = json.loads(Path("out/manifest.json").read_text())["metrics"]["reflections"]
        assert run_in(corpus, fake, "--condition", "s1a").exit_code == 0
        assert run_in(corpus, fake, "--condition", "s1a", "--out", "whole").exit_code == 0
    resumed = json.loads(Path("out/manifest.json").read_text())["metrics"]
    whole = json.loads(Path("whole/manifest.json").read_text())["metrics"]
    assert 0 < first < resumed["reflections"] == whole["reflections"]
    assert resumed["tool.names.calls"] == whole["tool.names.calls"]


def test_a_resume_after_a_kill_keeps_the_agent_counters_of_the_papers_committed_before_it(corpus, run_in,
                                                                                        monkeypatch):
    from dsminer.run import harness

    with FakeOpenAI([scripted] * 200) as fake:
        assert run_in(corpus, fake, "--condition", "s1a", "--out", "whole").exit_code == 0
        with monkeypatch.context() as killed:  # killed after two papers: the run is never finished
            killed.setattr(harness, "_finish", lambda *args, **kwargs: None)
            assert run_in(corpus, fake, "--condition", "s1a", "--limit", "2").exit_code == 0
        assert json.loads(Path("out/manifest.json").read_text())["status"] == "running"
        assert run_in(corpus, fake, "--condition", "s1a").exit_code == 0
    whole = json.loads(Path("whole/manifest.json").read_text())["metrics"]
    resumed = json.loads(Path("out/manifest.json").read_text())["metrics"]
    assert whole["reflections"] > 0
    for key in ("reflections", "retries", "memory_writes", "tool.names.calls", "papers", "llm_calls"):
        assert resumed[key] == whole[key], key


def test_each_paper_records_the_time_its_model_calls_waited(corpus, run_in):
    def slow(body):
        threading.Event().wait(0.1)
        return scripted(body)

    with FakeOpenAI(default=slow) as fake:
        assert run_in(corpus, fake, "--limit", "2").exit_code == 0
    for row in papers().values():
        assert row["llm_calls"] == CALLS_PER_PAPER
        assert 0.1 * CALLS_PER_PAPER <= row["model_seconds"] <= row["seconds"]
    manifest = json.loads(Path("out/manifest.json").read_text())
    assert manifest["metrics"]["model_seconds_per_paper"] >= 0.1 * CALLS_PER_PAPER


def test_a_run_directory_whose_manifest_is_not_json_is_one_line(corpus, run_in):
    Path("out").mkdir()
    Path("out/manifest.json").write_text('{"condition": "s0",', encoding="utf-8")
    with FakeOpenAI([scripted] * 20) as fake:
        result = run_in(corpus, fake)
    assert result.exit_code == 1 and "manifest.json, line 1: not valid JSON" in result.output, result.output
    assert not fake.requests
