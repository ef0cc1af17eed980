"""The reference summary of one run: counts, rates and event counters computed from its artifacts."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

from dsminer.evaluation.runs import RunData, paper_file, processed_files
from dsminer.schema import DatasetRecord
from dsminer.store import run_metrics

logger = logging.getLogger(__name__)

HEADLINE_EVENTS = ("observation", "reflection", "retry", "memory_injection")
FIELD_SECTIONS = {
    "dataset_describe": ("content", "type", "domain", "fields"),
    "paper_refs": ("title", "authors", "institutions", "venue", "year", "url", "is_fellow"),
    "evidence": ("page", "quote"),
}
TOP_PAPERS = 5


def summarize_run(run: RunData) -> dict[str, Any]:
    """Compute the summary metrics of one run (rates are shares of records, 0.0 when there are none).

    The counts and rates are the run's own metrics (`runstore.run_metrics`, the one function the run's end,
    `runs`, `summarize` and `compare` share), computed from the run's files.
    """
    records = run.records
    per_paper = Counter(paper_file(record) for record in records)
    listed = {str(row.get("file")) for row in run.papers}
    papers = [*run.papers, *({"file": name, "status": "ok"} for name in sorted(set(processed_files(run))
                                                                                | set(per_paper)) if name not in listed)]
    metrics = run_metrics(records, papers, event_counts(run.events), wall_s=0.0)
    return {
        "label": run.label,
        "condition": run.condition,
        "run_id": run.run_id,
        "record_count": metrics["records"],
        "papers_processed": metrics["papers"],
        "papers_failed": metrics["papers_failed"],
        "unique_papers": len(per_paper),
        "datasets_per_paper": metrics["datasets_per_paper"],
        "link_rate": metrics["link_rate"],
        "platform_rate": metrics["platform_rate"],
        "content_rate": metrics["content_rate"],
        "field_nonempty_rates": field_nonempty_rates(records),
        "top_papers": [{"paper": name, "records": count} for name, count in _top(per_paper)],
        "event_counts": event_counts(run.events),
        "usage": _usage(run.papers),
    }


def field_nonempty_rates(records: list[DatasetRecord]) -> dict[str, float]:
    """Share of records with each describe / paper_refs / evidence field filled, keyed ``section.field``."""
    rates: dict[str, float] = {}
    for section, names in FIELD_SECTIONS.items():
        for name in names:
            rates[f"{section}.{name}"] = _rate(records, lambda r: _filled(getattr(getattr(r, section), name)))
    return rates


def event_counts(events: list[dict]) -> dict[str, int]:
    """Events per kind; the headline kinds (observation, reflection, retry, memory_injection) always present."""
    counts = Counter(str(event.get("kind")) for event in events)
    return {**{kind: 0 for kind in HEADLINE_EVENTS}, **dict(sorted(counts.items()))}


def format_summary(summary: dict[str, Any]) -> str:
    """Render a summary as plain text for the terminal."""
    lines = [f"run {summary['label']} (condition {summary['condition']}, run id {summary['run_id'] or '-'})"]
    for key in ("record_count", "papers_processed", "papers_failed", "unique_papers"):
        lines.append(f"  {key:<22} {summary[key]}")
    for key in ("datasets_per_paper", "link_rate", "platform_rate", "content_rate"):
        lines.append(f"  {key:<22} {summary[key]:.3f}")
    lines.append("field non-empty rates")
    lines += [f"  {key:<32} {value:.3f}" for key, value in summary["field_nonempty_rates"].items()]
    lines.append("top papers by records")
    lines += [f"  {row['records']:>4}  {row['paper']}" for row in summary["top_papers"]] or ["  (none)"]
    lines.append("events")
    lines += [f"  {kind:<22} {count}" for kind, count in summary["event_counts"].items()]
    lines.append("usage")
    lines += [f"  {key:<22} {value:g}" for key, value in summary["usage"].items()]
    return "\n".join(lines)


def _usage(papers: list[dict]) -> dict[str, float]:
    """Totals of model calls, tokens and seconds over papers.jsonl."""
    keys = ("llm_calls", "prompt_tokens", "completion_tokens", "seconds")
    return {key: float(sum(_number(row.get(key)) for row in papers)) for key in keys}


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _top(per_paper: Counter[str]) -> list[tuple[str, int]]:
    return sorted(per_paper.items(), key=lambda item: (-item[1], item[0]))[:TOP_PAPERS]


def _filled(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (list, dict)):
        return bool(value)
    return value is not None


def _rate(records: list[DatasetRecord], predicate: Callable[[DatasetRecord], bool]) -> float:
    return _share(sum(1 for record in records if predicate(record)), len(records))


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0
