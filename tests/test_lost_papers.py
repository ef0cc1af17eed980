"""A paper whose names step gets no usable answer is `failed`, the run says so, and a resume redoes it: for each
fault of a broken endpoint that still answers HTTP 200, beginning mid-run."""

import json
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI, scripted
from tests.helpers import CALLS_PER_PAPER, fish_corpus, invoke


def not_json(body: dict) -> tuple[int, str]:
    return 200, "this is not json {"


def truncated(body: dict) -> tuple[int, str]:
    whole = json.dumps(scripted(body)[1])
    return 200, whole[: len(whole) // 2]


def html_error_page(body: dict) -> tuple[int, str]:
    return 200, "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return fish_corpus(tmp_path / "papers", ["a.pdf", "b.pdf", "c.pdf"])


def run(corpus: Path, out: Path, fake: FakeOpenAI, uri: str):
    return invoke("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model", "--out", str(out),
                  "--tracking-uri", uri, "--no-progress")


def records_of(out: Path) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return sorted((row["evidence"]["source"], row["name"]) for row in rows)


@pytest.mark.parametrize("fault", [not_json, truncated, html_error_page])
def test_a_paper_the_endpoint_broke_mid_run_fails_and_a_resume_redoes_it(tmp_path, corpus, fault, monkeypatch):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    with FakeOpenAI(default=scripted) as healthy:
        assert run(corpus, tmp_path / "healthy", healthy, uri).exit_code == 0
    with FakeOpenAI([scripted] * CALLS_PER_PAPER, default=fault) as broken:  # breaks after the first paper
        result = run(corpus, tmp_path / "out", broken, uri)
    assert result.exit_code == 2, result.output
    papers = {row["file"]: row for row in map(json.loads, (tmp_path / "out/papers.jsonl").read_text().splitlines())}
    assert papers["a.pdf"]["status"] == "ok"
    for name in ("b.pdf", "c.pdf"):
        assert papers[name]["status"] == "failed" and "names" in papers[name]["reason"], papers[name]
    with FakeOpenAI(default=scripted) as healthy:
        resumed = run(corpus, tmp_path / "out", healthy, uri)
        calls = len(healthy.requests)
    assert resumed.exit_code == 0, resumed.output
    assert calls == 2 * CALLS_PER_PAPER  # only the two failed papers again
    assert records_of(tmp_path / "out") == records_of(tmp_path / "healthy")


def test_a_proxy_error_page_on_every_paper_stops_the_run_like_an_endpoint_that_is_down(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fish_corpus(corpus, ["d.pdf"])
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    with FakeOpenAI(default=html_error_page) as broken:
        result = run(corpus, tmp_path / "out", broken, uri)
    assert result.exit_code == 1, result.output
    assert "the endpoint failed on 3 papers in a row" in result.output
    with FakeOpenAI(default=scripted) as healthy:
        assert run(corpus, tmp_path / "out", healthy, uri).exit_code == 0
    assert len(records_of(tmp_path / "out")) == 4
