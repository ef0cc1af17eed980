"""The run's structured event log: one JSON object per line, mirrored onto the active MLflow span."""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class EventLog:
    """Append-only JSONL of agent and workflow events, with counts per kind; one whole line per event even
    when papers are processed in parallel threads."""

    def __init__(self, path: Path | None = None, span_sink: Any = None) -> None:
        self.path = path
        self.span_sink = span_sink
        self.counts: Counter[str] = Counter()
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def emit(self, kind: str, paper: str | None = None, step: str | None = None, **fields: Any) -> dict[str, Any]:
        event = {"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "paper": paper,
                 "kind": kind, "step": step, **fields}
        line = json.dumps(event, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self.counts[kind] += 1
            self.events.append(event)
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(line)
        if self.span_sink is not None:
            self.span_sink(event)
        return event

    def for_paper(self, paper: str) -> list[dict[str, Any]]:
        with self._lock:
            return [event for event in self.events if event["paper"] == paper]
