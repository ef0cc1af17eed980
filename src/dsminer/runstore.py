"""The run directory: records, per-paper status, events and the manifest, written as the run goes."""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from dsminer.config import Settings
from dsminer.schema import DatasetRecord

PACKAGES = ("dsminer", "dspy", "mlflow", "pymupdf", "pydantic", "xllamacpp", "litellm")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunStore:
    """Files of one run: `results.jsonl`, `papers.jsonl`, `events.jsonl`, `manifest.json`."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.results_path = self.directory / "results.jsonl"
        self.papers_path = self.directory / "papers.jsonl"
        self.events_path = self.directory / "events.jsonl"
        self.manifest_path = self.directory / "manifest.json"

    def read_records(self) -> list[DatasetRecord]:
        return [DatasetRecord.model_validate_json(line) for line in _lines(self.results_path)]

    def read_papers(self) -> list[dict[str, Any]]:
        """One status per paper: the latest line wins (a resumed paper is written again)."""
        return latest_per_file(json.loads(line) for line in _lines(self.papers_path))

    def done_papers(self) -> set[str]:
        return {row["file"] for row in self.read_papers() if row["status"] == "ok"}

    def append_records(self, records: Iterable[DatasetRecord]) -> int:
        """Append records not already present (by `dataset_id`); return how many were written."""
        seen = {record.dataset_id for record in self.read_records()}
        fresh = []
        for record in records:
            if record.dataset_id not in seen:
                seen.add(record.dataset_id)
                fresh.append(record)
        _append(self.results_path, [record.model_dump_json() for record in fresh])
        return len(fresh)

    def append_paper(self, row: Mapping[str, Any]) -> None:
        _append(self.papers_path, [json.dumps(row, ensure_ascii=False)])

    def start_manifest(self, settings: Settings, model: Mapping[str, str], environment: Mapping[str, Any],
                       tracking_uri: str) -> dict[str, Any]:
        manifest = {
            "condition": settings.condition, "model": model.get("model"), "backend": model.get("kind"),
            "api_base": model.get("api_base"), "config": settings.as_params(), "started_at": _now(),
            "ended_at": None, "status": "running", "environment": dict(environment), "counts": {},
            "metrics": {}, "failed_papers": [], "mlflow": {"tracking_uri": tracking_uri},
        }
        self.write_manifest(manifest)
        return manifest

    def note_mlflow(self, manifest: dict[str, Any], experiment_id: str, run_id: str, experiment: str) -> None:
        manifest["mlflow"].update({"experiment": experiment, "experiment_id": experiment_id, "run_id": run_id})
        self.write_manifest(manifest)

    def finish_manifest(self, manifest: dict[str, Any], metrics: Mapping[str, float], failed: list[dict[str, str]],
                        status: str, event_counts: Mapping[str, int]) -> None:
        keys = ("papers", "papers_ok", "papers_failed", "papers_with_records", "records")
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


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


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
    """The run-level metrics logged to MLflow and kept in the manifest."""
    n_records = len(records)
    ok = [p for p in papers if p["status"] == "ok"]
    rate = (lambda hits: round(hits / n_records, 4) if n_records else 0.0)
    processed = max(len(papers), 1)
    return {
        "records": n_records, "papers": len(papers), "papers_ok": len(ok),
        "papers_failed": len(papers) - len(ok),
        "papers_with_records": len({r.evidence.source for r in records}),
        "datasets_per_paper": round(n_records / max(len(ok), 1), 3),
        "link_rate": rate(sum(r.dataset_link is not None for r in records)),
        "platform_rate": rate(sum(r.platform != "unspecified" for r in records)),
        "content_rate": rate(sum(bool(r.dataset_describe.content) for r in records)),
        "evidence_rate": rate(sum(r.evidence.page is not None for r in records)),
        "llm_calls": sum(p["llm_calls"] for p in papers),
        "prompt_tokens": sum(p["prompt_tokens"] for p in papers),
        "completion_tokens": sum(p["completion_tokens"] for p in papers),
        "llm_calls_per_paper": round(sum(p["llm_calls"] for p in papers) / processed, 3),
        "prompt_tokens_per_paper": round(sum(p["prompt_tokens"] for p in papers) / processed, 1),
        "completion_tokens_per_paper": round(sum(p["completion_tokens"] for p in papers) / processed, 1),
        "wall_time_s": round(wall_s, 2),
        "seconds_per_paper": round(sum(p["seconds"] for p in papers) / processed, 2),
        "links_rejected": event_counts.get("link_rejected", 0),
        "evidence_missing": event_counts.get("evidence_missing", 0),
        "step_failures": event_counts.get("step_failed", 0) + event_counts.get("parse_failed", 0),
        "parse_failures": event_counts.get("parse_failed", 0),
    }
