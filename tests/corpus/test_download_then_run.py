"""A downloaded corpus goes straight into `dsminer run`: supplied metadata fills paper_refs, no metadata call."""

import json
from pathlib import Path

import pymupdf
from neurips_site import PAPERS, Route, publish
from typer.testing import CliRunner

from dsminer.cli import app
from dsminer.corpus.neurips import download_neurips
from tests.fake_openai import FakeOpenAI, scripted


def paper_pdf(title: str) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate([title, "We evaluate on the ReefCount-3k dataset of underwater reef images.",
                              "ReefCount-3k has 3,000 images annotated with fish counts by divers."]):
        page.insert_text((72, 72 + 16 * i), line, fontsize=10)
    data = doc.tobytes()
    doc.close()
    return data


def test_downloaded_metadata_is_used_without_a_metadata_call(fake_site, tmp_path, monkeypatch):
    papers = PAPERS[:2]
    publish(fake_site, 2024, papers)
    for paper in papers:
        fake_site.routes[paper.pdf_path(2024)] = Route(paper_pdf(paper.title), content_type="application/pdf")
    corpus = tmp_path / "corpus"
    report = download_neurips(2024, corpus, base_url=fake_site.base_url, delay_s=0, timeout_s=5, progress=False)
    assert len(report.downloaded) == 2

    monkeypatch.chdir(tmp_path)
    with FakeOpenAI([scripted] * 10) as fake:
        result = CliRunner().invoke(app, ["run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model",
                                          "--out", "run", "--tracking-uri", f"sqlite:///{tmp_path}/m.db", "--no-progress"])
        prompts = [json.dumps(request["messages"]) for request in fake.requests]
    assert result.exit_code == 0, result.output
    assert not any('"title"' in prompt and "first_page" in prompt for prompt in prompts)
    assert len(prompts) == 6  # names, check and details per paper, no metadata step
    records = [json.loads(line) for line in Path("run/results.jsonl").read_text().splitlines()]
    by_title = {record["paper_refs"]["title"]: record["paper_refs"] for record in records}
    assert set(by_title) == {paper.title for paper in papers}
    for paper in papers:
        refs = by_title[paper.title]
        assert refs["authors"] == list(paper.authors)
        assert refs["year"] == 2024 and refs["venue"] == "NeurIPS 2024" and refs["url"].startswith(fake_site.base_url)
        assert refs["is_fellow"] is None
    events = [json.loads(line) for line in Path("run/events.jsonl").read_text().splitlines()]
    assert sum(event["kind"] == "metadata_supplied" for event in events) == 2
