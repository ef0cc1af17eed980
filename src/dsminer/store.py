"""The run directory: records, per-paper status, events and the manifest, written as the run goes."""

from __future__ import annotations

import fcntl
import json
import os
import platform
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from dsminer.config import Settings
from dsminer.errors import RunFileError, RunLockedError
from dsminer.jsonl import complete_lines
from dsminer.schema import DatasetRecord

PACKAGES = ("dsminer", "dspy", "mlflow", "pymupdf", "pydantic", "xllamacpp", "litellm")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


DONE = frozenset({"ok", "partial"})  # statuses a resume does not process again


def read_manifest(path: Path) -> dict[str, Any] | None:
    """A run's `manifest.json`: None when there is none; `RunFileError` when it is not a JSON object."""
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunFileError(path, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    if not isinstance(manifest, dict):
        raise RunFileError(path, 1, "the manifest is not a JSON object")
    return manifest


class RunStore:
    """Files of one run: `results.jsonl`, `papers.jsonl`, `events.jsonl`, `manifest.json`.

    A paper is committed by its status line in `papers.jsonl`, written after its records: records of a
    paper without a done status (a kill between the two writes) are not part of the run, and `repair`
    removes them before a resume processes the paper again."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.results_path = self.directory / "results.jsonl"
        self.papers_path = self.directory / "papers.jsonl"
        self.events_path = self.directory / "events.jsonl"
        self.manifest_path = self.directory / "manifest.json"
        self._commit_lock = threading.Lock()
        self._committed_ids: set[str] | None = None

    def read_records(self) -> list[DatasetRecord]:
        """The records of committed papers."""
        records = [DatasetRecord.model_validate_json(line) for line in _lines(self.results_path)]
        return committed_records(records, self.read_papers())

    def read_papers(self) -> list[dict[str, Any]]:
        """One status per paper: the latest line wins (a resumed paper is written again)."""
        return latest_per_file(json.loads(line) for line in _lines(self.papers_path))

    def done_papers(self) -> set[str]:
        return {row["file"] for row in self.read_papers() if row["status"] in DONE}

    def repair(self) -> None:
        """Make the files safe to append to after a kill: cut each file's unterminated last line, and drop
        the records of papers that were never committed."""
        for path in (self.results_path, self.papers_path, self.events_path):
            if path.is_file():
                _cut_torn_tail(path)
        if self.results_path.is_file():
            lines, done = _lines(self.results_path), self.done_papers()
            kept = [line for line in lines if DatasetRecord.model_validate_json(line).evidence.source in done]
            if len(kept) != len(lines):
                _rewrite(self.results_path, kept)

    def commit_paper(self, records: Iterable[DatasetRecord], row: Mapping[str, Any]) -> int:
        """Write a paper's records not already present (by `dataset_id`), then its status line, which commits
        them; return how many records were written. One paper at a time (papers may finish in parallel)."""
        with self._commit_lock:
            if self._committed_ids is None:  # read once; this process is the only writer (the directory lock)
                self._committed_ids = {record.dataset_id for record in self.read_records()}
            fresh = []
            for record in records:
                if record.dataset_id not in self._committed_ids:
                    self._committed_ids.add(record.dataset_id)
                    fresh.append(record)
            _append(self.results_path, [record.model_dump_json() for record in fresh])
            _append(self.papers_path, [json.dumps({**row, "records": len(fresh)}, ensure_ascii=False)])
            return len(fresh)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the run directory; a second process gets a one-line error."""
        with (self.directory / ".lock").open("a+") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                raise RunLockedError(f"{self.directory} is in use by another dsminer run; wait for it or use "
                                     "another --out") from exc
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest of an earlier invocation, if any."""
        return read_manifest(self.manifest_path)

    def event_counts(self) -> dict[str, int]:
        """Events per kind over the whole run (every invocation)."""
        return dict(Counter(json.loads(line).get("kind") for line in _lines(self.events_path)))

    def start_manifest(self, settings: Settings, model: Mapping[str, str], environment: Mapping[str, Any],
                       tracking_uri: str, previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The manifest of this invocation; a resume keeps the first start time and MLflow run and adds the time
        it resumed."""
        manifest = {
            "condition": settings.condition, "variant": settings.variant, "model": model.get("model"),
            "backend": model.get("kind"), "api_base": model.get("api_base"), "config": settings.as_params(),
            "started_at": _now(), "ended_at": None, "status": "running", "environment": dict(environment), "counts": {},
            "metrics": {}, "failed_papers": [], "mlflow": {"tracking_uri": tracking_uri}, "resumed_at": [],
        }
        if previous:
            manifest["started_at"] = previous.get("started_at") or manifest["started_at"]
            manifest["resumed_at"] = [*previous.get("resumed_at", []), _now()]
            manifest["mlflow"] = {**previous.get("mlflow", {}), "tracking_uri": tracking_uri}
            manifest["metrics"] = dict(previous.get("metrics") or {})  # kept if this invocation is killed
        self.write_manifest(manifest)
        return manifest

    def note_mlflow(self, manifest: dict[str, Any], experiment_id: str, run_id: str, experiment: str) -> None:
        manifest["mlflow"].update({"experiment": experiment, "experiment_id": experiment_id, "run_id": run_id})
        self.write_manifest(manifest)

    def finish_manifest(self, manifest: dict[str, Any], metrics: Mapping[str, float], failed: list[dict[str, str]],
                        status: str, event_counts: Mapping[str, int]) -> None:
        keys = ("papers", "papers_ok", "papers_partial", "papers_failed", "papers_with_records", "records")
        manifest.update({"ended_at": _now(), "status": status, "metrics": dict(metrics), "failed_papers": failed,
                         "counts": {key: int(metrics.get(key, 0)) for key in keys}, "event_counts": dict(event_counts)})
        self.write_manifest(manifest)

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        partial = self.manifest_path.with_suffix(".json.part")
        partial.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str))
        os.replace(partial, self.manifest_path)


def latest_per_file(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One papers.jsonl row per file, in the order of their latest lines: a resumed paper's last line wins."""
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:
        latest.pop(str(row.get("file")), None)
        latest[str(row.get("file"))] = dict(row)
    return list(latest.values())


def committed_records(records: Iterable[DatasetRecord], papers: Iterable[Mapping[str, Any]]) -> list[DatasetRecord]:
    """The records whose paper has a done status (all records when no status was written at all)."""
    papers = list(papers)
    done = {row.get("file") for row in papers if row.get("status") in DONE}
    return [record for record in records if not papers or record.evidence.source in done]


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return [line for line in complete_lines(path) if line.strip()]


def _cut_torn_tail(path: Path) -> None:
    """Truncate the file after its last newline, so the next append starts a line of its own."""
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end != len(data):
        with path.open("r+b") as handle:
            handle.truncate(end)


def _rewrite(path: Path, lines: list[str]) -> None:
    partial = path.with_suffix(path.suffix + ".part")
    partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(partial, path)


def _append(path: Path, lines: list[str]) -> None:
    if not lines:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))
        handle.flush()
        os.fsync(handle.fileno())


def environment_snapshot() -> dict[str, Any]:
    """Python, platform, CPU count and the versions of the packages that shape a run."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "packages": versions}


def run_metrics(records: list[DatasetRecord], papers: list[dict[str, Any]], event_counts: Mapping[str, int],
                wall_s: float) -> dict[str, float]:
    """The run-level metrics, computed from the run's files: logged to MLflow and kept in the manifest at the
    run's end, and used by `runs`, `summarize` and `compare`."""
    n_records = len(records)
    ok = [p for p in papers if p.get("status", "ok") == "ok"]
    partial = [p for p in papers if p.get("status") == "partial"]
    rate = (lambda hits: round(hits / n_records, 4) if n_records else 0.0)
    processed = max(len(papers), 1)
    return {
        "records": n_records, "papers": len(papers), "papers_ok": len(ok), "papers_partial": len(partial),
        "papers_failed": len(papers) - len(ok) - len(partial),
        "papers_with_records": len({r.evidence.source for r in records}),
        "datasets_per_paper": round(n_records / max(len(ok) + len(partial), 1), 3),
        "link_rate": rate(sum(bool(r.dataset_link) for r in records)),
        "platform_rate": rate(sum(r.platform != "unspecified" for r in records)),
        "content_rate": rate(sum(bool((r.dataset_describe.content or "").strip()) for r in records)),
        "evidence_rate": rate(sum(r.evidence.page is not None for r in records)),
        "llm_calls": sum(p.get("llm_calls", 0) for p in papers),
        "prompt_tokens": sum(p.get("prompt_tokens", 0) for p in papers),
        "completion_tokens": sum(p.get("completion_tokens", 0) for p in papers),
        "llm_calls_per_paper": round(sum(p.get("llm_calls", 0) for p in papers) / processed, 3),
        "prompt_tokens_per_paper": round(sum(p.get("prompt_tokens", 0) for p in papers) / processed, 1),
        "completion_tokens_per_paper": round(sum(p.get("completion_tokens", 0) for p in papers) / processed, 1),
        "wall_time_s": round(wall_s, 2),
        "seconds_per_paper": round(sum(p.get("seconds", 0) for p in papers) / processed, 2),
        "model_seconds_per_paper": round(sum(p.get("model_seconds", 0) for p in papers) / processed, 2),
        "links_rejected": event_counts.get("link_rejected", 0),
        "evidence_missing": event_counts.get("evidence_missing", 0),
        "step_failures": event_counts.get("step_failed", 0) + event_counts.get("parse_failed", 0),
        "parse_failures": event_counts.get("parse_failed", 0),
        "endpoint_retries": sum(p.get("endpoint_retries", 0) for p in papers),
        "answer_retries": sum(p.get("answer_retries", 0) for p in papers),
    }
