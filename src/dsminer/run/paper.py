"""One paper through a program: parsed, extracted under its guard, committed with its status line; and what the
local and Ray executors share about the papers' outcomes."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import dspy
import mlflow
from dspy.utils.exceptions import LMProviderError

from dsminer.catalog.memory import CorpusMemory, offering
from dsminer.config import Settings
from dsminer.corpus.local import CorpusPaper
from dsminer.errors import DsminerError
from dsminer.events import EventLog, recording
from dsminer.faults import EndpointError, PaperGuard, describe, guarding
from dsminer.run.parsing import PaperParser
from dsminer.run.usage import Usage, UsageMeter
from dsminer.schema import DatasetRecord
from dsminer.store import RunStore

log = logging.getLogger(__name__)
ESSENTIAL_STEP = "names"  # the step without whose answer a paper has nothing
# writes a paper's records and status line (one unit), returns how many records it wrote
Commit = Callable[[list[DatasetRecord], dict[str, Any]], int]


class SizedIterator:
    """An iterator with a length, for a progress bar over papers in the order they finish."""

    def __init__(self, items: Iterator[Any], size: int) -> None:
        self.items, self.size = items, size

    def __iter__(self) -> Iterator[Any]:
        return self.items

    def __len__(self) -> int:
        return self.size


def stop_when_down(settings: Settings, store: RunStore,
                   checkpoint: Callable[[], None] | None = None) -> Callable[[str], None]:
    """A function to call with each finished paper's outcome, in the order papers finish: it calls
    `checkpoint`, then stops the run (a fatal `EndpointError`) when the endpoint failed
    `settings.stop_after_failed_papers` papers in a row."""
    down = 0

    def finished(outcome: str) -> None:
        nonlocal down
        if checkpoint is not None:
            checkpoint()
        down = down + 1 if outcome == "endpoint_failed" else 0
        if down >= settings.stop_after_failed_papers:
            raise EndpointError(f"stopped: the endpoint failed on {down} papers in a row (last: "
                                f"{store.read_papers()[-1]['reason']}); run again with the same --out to resume",
                                fatal=True)
    return finished


def process_paper(paper: CorpusPaper, parser: PaperParser, program: dspy.Module, lm: dspy.LM, events: EventLog,
                  settings: Settings, commit: Commit, trace_metadata: dict[str, str] | None = None) -> str:
    """Process one paper and `commit` its records and status line; return the outcome: ok, partial, failed, or
    endpoint_failed (failed by the endpoint).

    A paper whose steps all answered is `ok`; one with a failed step keeps its records and is `partial`. A names
    step that never answered (the paper has nothing), an endpoint that stays down, the time limit, an unreadable
    PDF or an unexpected error make it `failed` with the reason (a resume processes it again). An agent with corpus
    memory is offered what was committed before the paper started, and the paper's records join it once committed. A fatal endpoint error is raised after the paper is
    committed, since no later paper can succeed either. `trace_metadata` goes on the paper's trace."""
    name = paper.path.name
    meter = UsageMeter(lm)
    guard = PaperGuard(settings.backend.fault_retries, settings.backend.fault_backoff_s, settings.paper_timeout_s)
    with mlflow.start_span(name=f"paper:{name}") as span:
        if trace_metadata:
            mlflow.update_current_trace(metadata=trace_metadata)
        span.set_inputs({"file": name, "condition": settings.condition})
        events.emit("observation", paper=name, step="parse", path=str(paper.path))

        def failed(reason: str) -> None:
            log.warning("%s: %s", name, reason)
            events.flush()
            _commit(commit, name, [], "failed", reason, meter.take(), guard)
            events.emit("paper_failed", paper=name, reason=reason)
            events.flush()
            span.set_status("ERROR")
            span.set_outputs({"status": "failed", "reason": reason})

        corpus: CorpusMemory | None = getattr(program, "corpus", None)
        try:
            with guarding(guard), recording(events), offering(corpus.view() if corpus is not None else None):
                parsed = parser.parse(paper.path, guard.time_left("parse"))
                records: list[DatasetRecord] = program(paper=parsed, supplied=paper.refs).records
        except EndpointError as exc:
            failed(str(exc))
            if exc.fatal:
                raise
            return "endpoint_failed"
        except DsminerError as exc:
            failed(str(exc))
            return "failed"
        except Exception as exc:  # noqa: BLE001  (one paper's bug must not end the run)
            log.exception("%s: unexpected error", name)
            failed(f"unexpected error: {describe(exc)}")
            return "failed"
        lost = guard.unanswered(ESSENTIAL_STEP)
        if lost is not None:
            failed(f"the {ESSENTIAL_STEP} step got no usable answer: {describe(lost)}")
            # a reply that is not an answer at all (a proxy's error page) is the endpoint failing
            return "endpoint_failed" if isinstance(lost, LMProviderError) else "failed"
        status = "partial" if guard.failed_steps else "ok"
        reason = f"failed steps: {', '.join(guard.failed_steps)}" if guard.failed_steps else None
        used = meter.take()
        events.flush()
        row = _commit(commit, name, records, status, reason, used, guard)
        if corpus is not None:
            corpus.add(records)  # offered to the papers that start from now on
        events.emit("paper_done", paper=name, status=status, records=row["records"], seconds=row["seconds"],
                    llm_calls=used.calls)
        events.flush()
        span.set_outputs({"status": status, "records": row["records"], "llm_calls": used.calls})
        return status


def status_line(name: str, status: str, reason: str | None, used: Usage, guard: PaperGuard) -> dict[str, Any]:
    """A paper's line in `papers.jsonl` (without its record count): how it ended and what it used."""
    return {"file": name, "status": status, "seconds": round(time.monotonic() - guard.started, 2),
            "model_seconds": round(used.model_s, 2), "llm_calls": used.calls, "prompt_tokens": used.prompt_tokens,
            "completion_tokens": used.completion_tokens,
            "endpoint_retries": guard.endpoint_retries, "answer_retries": guard.answer_retries, "reason": reason}


def _commit(commit: Commit, name: str, records: list[DatasetRecord], status: str, reason: str | None, used: Usage,
            guard: PaperGuard) -> dict[str, Any]:
    """Commit a paper's records and its status line, with what it used; return the status line."""
    row = status_line(name, status, reason, used, guard)
    return {**row, "records": commit(records, row)}


def program_metrics(program: dspy.Module) -> dict[str, float]:
    """The program's own run-level metrics (an agent's reflections, retries, memory and tool use), if it has any."""
    report = getattr(program, "run_metrics", None)
    return {key: float(value) for key, value in report().items()} if callable(report) else {}
