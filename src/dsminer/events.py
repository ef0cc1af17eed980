"""The run's structured event log: one JSON object per line, mirrored onto the active MLflow span."""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)
BUFFER_BYTES = 1 << 20


class EventLog:
    """Append-only JSONL of agent and workflow events, with counts per kind; one whole line per event even
    when papers are processed in parallel threads. The file stays open until `close` (or the end of a `with`
    block); lines are buffered and written by `flush`, which the run calls when it commits a paper (before the
    commit, and after its `paper_done`), so a committed paper's events are on disk, and no thread makes a system
    call per event while it holds the log's lock."""

    def __init__(self, path: Path | None = None, span_sink: Any = None) -> None:
        self.path = path
        self.span_sink = span_sink
        self.counts: Counter[str] = Counter()
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._handle: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None

    def emit(self, kind: str, paper: str | None = None, step: str | None = None, **fields: Any) -> dict[str, Any]:
        event = {"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "paper": paper,
                 "kind": kind, "step": step, **fields}
        self._write([event])
        if self.span_sink is not None:
            self.span_sink(event)
        return event

    def extend(self, events: list[dict[str, Any]]) -> None:
        """Add events emitted elsewhere (a Ray task's paper), already on their paper's trace."""
        self._write(events)

    def _write(self, events: list[dict[str, Any]]) -> None:
        text = "".join(json.dumps(event, ensure_ascii=False, default=str) + "\n" for event in events)
        with self._lock:
            self.counts.update(event["kind"] for event in events)
            self.events.extend(events)
            if self.path is not None and text:
                if self._handle is None:
                    self._handle = self.path.open("a", encoding="utf-8", buffering=BUFFER_BYTES)
                self._handle.write(text)

    def flush(self) -> None:
        """Write the buffered lines to the file."""
        with self._lock:
            if self._handle is not None:
                self._handle.flush()


_RECORDING: ContextVar[EventLog | None] = ContextVar("dsminer_events", default=None)


@contextmanager
def recording(events: EventLog) -> Iterator[EventLog]:
    """Make `events` the log that a program's steps write to while the block runs (in this thread or task)."""
    token = _RECORDING.set(events)
    try:
        yield events
    finally:
        _RECORDING.reset(token)


def current_events() -> EventLog:
    """The log set by `recording`, or a new log kept in memory when no run records (a program called alone)."""
    return _RECORDING.get() or EventLog()
