"""Run one condition over a corpus: parse each paper, extract, write records as each paper finishes,
and log the run (params, metrics, traces, artifacts) to MLflow."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import dspy
import mlflow

from dsminer.config import Settings
from dsminer.corpus.local import CorpusPaper
from dsminer.errors import DsminerError
from dsminer.evaluation import tracking
from dsminer.runlog import EventLog
from dsminer.runstore import RunStore, environment_snapshot, run_metrics
from dsminer.schema import DatasetRecord
from dsminer.tools.pdf import parse_pdf
from dsminer.usage import Usage, UsageMeter

log = logging.getLogger(__name__)


@dataclass
class RunOutcome:
    """What a finished (or interrupted) run produced."""

    out_dir: Path
    run_id: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    failed: list[dict[str, str]] = field(default_factory=list)
    status: str = "finished"


def default_out_dir(condition: str) -> Path:
    return Path("runs") / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{condition}"


def run_condition(
    settings: Settings,
    corpus: Sequence[CorpusPaper],
    program: dspy.Module,
    lm: dspy.LM,
    model_info: dict[str, str],
    progress: Callable[[Sequence[CorpusPaper]], Any] | None = None,
    nested: bool = False,
) -> RunOutcome:
    """Process each paper with `program` under `lm`; resumable from the output directory.

    With `nested`, the run is a child of the active MLflow run (an experiment's parent run)."""
    store = RunStore(settings.out_dir or default_out_dir(settings.condition))
    events = EventLog(store.events_path, span_sink=tracking.event_to_span)
    experiment_id = tracking.use_experiment(settings.tracking_uri, settings.experiment)
    todo = [paper for paper in corpus if paper.path.name not in store.done_papers()]
    manifest = store.start_manifest(settings, model_info, environment_snapshot(), mlflow.get_tracking_uri())
    folders = {str(paper.path.parent.absolute()) for paper in corpus}
    manifest["corpus_dir"] = folders.pop() if len(folders) == 1 else None
    outcome = RunOutcome(store.directory, None)
    run_name = f"{settings.condition}-{store.directory.name}"
    with mlflow.start_run(run_name=run_name, experiment_id=experiment_id, nested=nested,
                          tags={"condition": settings.condition, "model": model_info["model"]}) as run:
        outcome.run_id = run.info.run_id
        store.note_mlflow(manifest, experiment_id, run.info.run_id, settings.experiment)
        mlflow.log_params(settings.as_params())
        mlflow.dspy.autolog()
        started = time.monotonic()
        try:
            with dspy.context(lm=lm):
                for paper in progress(todo) if progress else todo:
                    _process_paper(paper, program, lm, store, events, settings)
        except KeyboardInterrupt:
            outcome.status = "interrupted"
            raise
        finally:
            _finish(store, manifest, events, outcome, time.monotonic() - started, program_metrics(program))
    return outcome


def _process_paper(paper: CorpusPaper, program: dspy.Module, lm: dspy.LM, store: RunStore,
                   events: EventLog, settings: Settings) -> None:
    name = paper.path.name
    meter = UsageMeter(lm.history)
    started = time.monotonic()
    with mlflow.start_span(name=f"paper:{name}") as span:
        span.set_inputs({"file": name, "condition": settings.condition})
        events.emit("observation", paper=name, step="parse", path=str(paper.path))
        try:
            parsed = parse_pdf(paper.path)
            records: list[DatasetRecord] = program(paper=parsed, supplied=paper.refs, events=events).records
        except DsminerError as exc:
            _paper_failed(store, events, name, str(exc), meter.take(), time.monotonic() - started)
            span.set_outputs({"status": "failed", "reason": str(exc)})
            return
        written = store.append_records(records)
        used = meter.take()
        seconds = time.monotonic() - started
        store.append_paper({"file": name, "status": "ok", "records": written, "seconds": round(seconds, 2),
                            "llm_calls": used.calls, "prompt_tokens": used.prompt_tokens,
                            "completion_tokens": used.completion_tokens, "reason": None})
        events.emit("paper_done", paper=name, records=written, seconds=round(seconds, 2), llm_calls=used.calls)
        span.set_outputs({"status": "ok", "records": written, "llm_calls": used.calls})


def _paper_failed(store: RunStore, events: EventLog, name: str, reason: str, used: Usage, seconds: float) -> None:
    log.warning("%s", reason)
    store.append_paper({"file": name, "status": "failed", "records": 0, "seconds": round(seconds, 2),
                        "llm_calls": used.calls, "prompt_tokens": used.prompt_tokens,
                        "completion_tokens": used.completion_tokens, "reason": reason})
    events.emit("paper_failed", paper=name, reason=reason)


def program_metrics(program: dspy.Module) -> dict[str, float]:
    """The program's own run-level metrics (an agent's reflections, retries, memory and tool use), if it has any."""
    report = getattr(program, "run_metrics", None)
    return {key: float(value) for key, value in report().items()} if callable(report) else {}


def _finish(store: RunStore, manifest: dict[str, Any], events: EventLog, outcome: RunOutcome, wall_s: float,
            extra: dict[str, float] | None = None) -> None:
    """Write the manifest and log metrics and artifacts, whether the run ended well or not."""
    metrics = {**run_metrics(store.read_records(), store.read_papers(), events.counts, wall_s), **(extra or {})}
    outcome.metrics = metrics
    outcome.failed = [{"file": p["file"], "reason": p["reason"]} for p in store.read_papers() if p["status"] == "failed"]
    store.finish_manifest(manifest, metrics, outcome.failed, outcome.status, dict(events.counts))
    try:
        tracking.log_metrics(metrics)
        tracking.log_outputs(store.directory)
    except Exception as exc:  # noqa: BLE001  (the files on disk are the record; MLflow is the copy)
        log.error("could not log the run to MLflow: %s", exc)
    mlflow.set_tag("status", outcome.status)
