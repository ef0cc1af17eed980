"""Papers as Ray tasks: `dsminer run --executor ray`, on this machine or on a Ray cluster.

The driver (the `dsminer` command) keeps what a run owns: the run directory and its lock, the manifest, the
MLflow run, and the commit of each paper, in the order papers finish. A task processes one paper in a Ray
worker process with the same code as the local executor (`paper.process_paper`): it parses the PDF, runs the
condition's program against one of the endpoints (`backend.api_base` and `backend.api_bases`, one per task in
turn) and returns the paper's records, status line, events and the program's counters, which the driver
commits. A worker that dies mid-paper has written nothing to the run directory: Ray runs its task again
(`ray_task_retries`), and a paper whose every attempt died is `failed` with the reason, so a resume processes
it again. The task writes its paper's trace to the run's MLflow experiment, tagged with the run, so the
tracking store must be reachable from the workers (a server, or a SQLite file on a shared disk).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import dspy
import mlflow
from mlflow.environment_variables import MLFLOW_ENABLE_ASYNC_TRACE_LOGGING

from dsminer import tracking
from dsminer.backend.adapter import build_adapter
from dsminer.backend.lm import build_lm, endpoints
from dsminer.config import Settings
from dsminer.corpus.local import CorpusPaper
from dsminer.errors import ConfigError
from dsminer.events import EventLog
from dsminer.faults import EndpointError, PaperGuard
from dsminer.programs.registry import build_program
from dsminer.run.dspy_tracing import trace_dspy_calls
from dsminer.run.paper import SizedIterator, process_paper, program_metrics, status_line, stop_when_down
from dsminer.run.parsing import PaperParser
from dsminer.run.usage import Usage
from dsminer.schema import DatasetRecord
from dsminer.store import RunStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TraceTarget:
    """Where a task writes its paper's trace: the tracking store, the experiment and the run."""

    tracking_uri: str
    experiment_id: str
    run_id: str


@dataclass(frozen=True)
class PaperJob:
    """One paper for one task: the paper, the endpoint to call, the run's settings (as JSON values)."""

    paper: CorpusPaper
    endpoint: str
    settings: dict[str, Any]
    trace: TraceTarget | None


@dataclass
class PaperDone:
    """What a task returns: the paper's records (as JSON values), its status line, how it ended, its events
    and the program's counters for it."""

    name: str
    records: list[dict[str, Any]] = field(default_factory=list)
    row: dict[str, Any] = field(default_factory=dict)
    outcome: str = "failed"  # ok, partial, failed or endpoint_failed
    fatal: str | None = None  # an endpoint error no later paper can get past
    events: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)


_traced: TraceTarget | None = None


def _trace_into(target: TraceTarget | None) -> None:
    """Point this worker's MLflow at the run's store and experiment, with DSPy autologging (once per target).
    A worker writes a trace as its spans end, not from a background queue: a task would otherwise wait for
    the queue's flush (a second each) before it returns, or end with its trace unwritten."""
    global _traced
    if target is None or target == _traced:
        return
    os.environ[MLFLOW_ENABLE_ASYNC_TRACE_LOGGING.name] = "false"
    mlflow.set_tracking_uri(target.tracking_uri)
    mlflow.set_experiment(experiment_id=target.experiment_id)
    trace_dspy_calls()
    _traced = target


def run_paper(job: PaperJob) -> PaperDone:
    """Process one paper in a Ray worker; nothing is written to the run directory here."""
    settings = Settings.model_validate(job.settings)
    _trace_into(job.trace)
    program = build_program(settings)
    lm = build_lm(settings.backend, job.endpoint)
    events = EventLog(span_sink=tracking.event_to_span)
    done = PaperDone(job.paper.path.name)

    def commit(records: list, row: dict[str, Any]) -> int:
        done.records, done.row = [record.model_dump(mode="json") for record in records], dict(row)
        return len(records)

    metadata = {"mlflow.sourceRun": job.trace.run_id} if job.trace else None
    with dspy.context(lm=lm, adapter=build_adapter(settings)), PaperParser([job.paper.path], 0, 0) as parser:
        try:
            done.outcome = process_paper(job.paper, parser, program, lm, events, settings, commit, metadata)
        except EndpointError as exc:
            done.outcome, done.fatal = "endpoint_failed", str(exc)
    done.events, done.metrics = events.events, program_metrics(program)
    return done


def process_papers_ray(todo: Sequence[CorpusPaper], settings: Settings, default_endpoint: str,
                       trace: TraceTarget | None, store: RunStore, events: EventLog, counted: dict[str, float],
                       progress: Callable[[Sequence[Any]], Any] | None = None,
                       checkpoint: Callable[[], None] | None = None) -> None:
    """Process the papers as Ray tasks, `settings.workers` at once, committing each as it finishes, and add the
    programs' counters to `counted` (then `checkpoint`). The run stops as with the local executor: a fatal
    endpoint error once its paper is committed, or the endpoint failing papers in a row (`stop_when_down`)."""
    ray = require_ray()
    finished = stop_when_down(settings, store, checkpoint)
    started_here = not ray.is_initialized()
    if started_here:
        _start_ray(ray, settings)
    task = ray.remote(num_cpus=1, max_retries=settings.ray_task_retries)(run_paper)
    values = settings.model_dump(mode="json")
    # the endpoints the backend checked at the start; the local model's server is the run's own one
    targets = endpoints(settings.backend) if settings.backend.kind == "openai" else [default_endpoint]
    queue = iter(enumerate(todo))
    pending: dict[Any, CorpusPaper] = {}

    def submit() -> None:
        for number, paper in queue:
            job = PaperJob(replace(paper, path=paper.path.absolute()), targets[number % len(targets)], values, trace)
            pending[task.remote(job)] = paper
            if len(pending) >= settings.workers:
                return

    def results() -> Iterator[None]:
        submit()
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            paper = pending.pop(ready[0])
            try:
                done: PaperDone = ray.get(ready[0])
            except ray.exceptions.RayError as exc:
                done = _lost(paper, exc)
            events.extend(done.events)
            events.flush()
            store.commit_paper([DatasetRecord.model_validate(record) for record in done.records], done.row)
            for key, value in done.metrics.items():
                counted[key] = counted.get(key, 0.0) + value
            if done.fatal:
                raise EndpointError(done.fatal, fatal=True)
            finished(done.outcome)
            submit()
            yield None

    try:
        steps = SizedIterator(results(), len(todo))
        for _ in progress(steps) if progress else steps:
            pass
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def require_ray() -> Any:
    """The `ray` module, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("the ray executor needs Ray: pip install 'dsminer[ray]'") from exc
    return ray


def _lost(paper: CorpusPaper, exc: BaseException) -> PaperDone:
    """A paper whose task failed on every attempt (its worker died each time): failed, with the reason."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    reason = f"ray task failed: {type(exc).__name__}" + (f": {first}" if first else "")
    log.warning("%s: %s", paper.path.name, reason)
    row = status_line(paper.path.name, "failed", reason, Usage(), PaperGuard())
    return PaperDone(paper.path.name, row=row)


def _start_ray(ray: Any, settings: Settings) -> None:
    """Join the cluster at `ray_address`, or start a local one with a CPU per worker."""
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if settings.ray_address:
        ray.init(address=settings.ray_address, **options)
    else:
        ray.init(num_cpus=settings.workers, **options)
