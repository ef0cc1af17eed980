"""Hand-written runs for the evaluation tests: each test states the records it needs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SCIREX_GOLD = Path(__file__).resolve().parents[2] / ".." / "shared" / "eval" / "scirex-pdf" / "gold.jsonl"


def make_record(file: str, name: str, *, title: str | None = None, link: str | None = None,
           platform: str = "unspecified", content: str | None = None, page: int | None = 1,
           quote: str | None = "We use it.", authors: list[str] | None = None,
           role: str | None = None) -> dict[str, Any]:
    """A results.jsonl line with only the fields a test cares about set."""
    return {
        "dataset_id": f"ds-{file}-{name}",
        "name": name,
        "role": role,
        "dataset_describe": {"content": content, "type": None, "domain": None, "fields": []},
        "paper_refs": {"title": title, "authors": authors or [], "institutions": [], "venue": None,
                       "year": None, "url": None, "is_fellow": None},
        "dataset_link": link,
        "platform": platform,
        "evidence": {"source": file, "page": page, "quote": quote},
    }


def make_paper(file: str, status: str = "ok", records: int = 0) -> dict[str, Any]:
    """A papers.jsonl line."""
    return {"file": file, "status": status, "records": records, "seconds": 1.5, "llm_calls": 2,
            "prompt_tokens": 100, "completion_tokens": 10, "reason": None if status == "ok" else "boom"}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def record() -> Callable[..., dict[str, Any]]:
    """Build a results.jsonl line: record(file, name, title=..., link=...)."""
    return make_record


@pytest.fixture
def paper() -> Callable[..., dict[str, Any]]:
    """Build a papers.jsonl line: paper(file, status="ok", records=0)."""
    return make_paper


@pytest.fixture
def write_run(tmp_path: Path) -> Callable[..., Path]:
    """Write a run directory under tmp_path; None leaves the optional file out."""

    def write(name: str, records: list[dict], papers: list[dict] | None = None, events: list[dict] | None = None,
              condition: str | None = None, run_id: str | None = None) -> Path:
        directory = tmp_path / name
        directory.mkdir()
        write_jsonl(directory / "results.jsonl", records)
        if papers is not None:
            write_jsonl(directory / "papers.jsonl", papers)
        if events is not None:
            write_jsonl(directory / "events.jsonl", events)
        manifest = {"condition": condition or name, "model": "dummy", "backend": "local", "config": {},
                    "counts": {}, "metrics": {}, "failed_papers": [],
                    "mlflow": {"tracking_uri": None, "experiment": None, "run_id": run_id}}
        (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        return directory

    return write


@pytest.fixture
def scirex_gold() -> Path:
    """The shared SciREX gold file, read in place; the test is skipped where it is absent."""
    if not SCIREX_GOLD.is_file():
        pytest.skip(f"{SCIREX_GOLD} is not available")
    return SCIREX_GOLD
