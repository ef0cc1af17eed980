"""Run one condition over a corpus: parse each paper, extract, write records as each paper finishes,
and log the run (params, metrics, traces, artifacts) to MLflow."""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import dspy
import mlflow

from dsminer import tracking
from dsminer.config import Settings
from dsminer.corpus.local import CorpusPaper
from dsminer.errors import ConfigError, DsminerError
from dsminer.events import EventLog
from dsminer.faults import EndpointError
from dsminer.programs.compiled import program_params
from dsminer.run.dspy_tracing import trace_dspy_calls
from dsminer.run.paper import SizedIterator, process_paper, program_metrics, stop_when_down
from dsminer.run.parsing import PaperParser, parse_processes
from dsminer.store import RunStore, environment_snapshot, run_metrics

log = logging.getLogger(__name__)


@dataclass
class RunOutcome:
    """What a finished (or interrupted) run produced."""

    out_dir: Path
    run_id: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    failed: list[dict[str, str]] = field(default_factory=list)
    status: str = "finished"


def default_out_dir(condition: str, parent: Path = Path("runs")) -> Path:
    """A new run directory `<parent>/<time>-<condition>`, suffixed when another run started the same second;
    created here, so two runs never share one."""
    parent.mkdir(parents=True, exist_ok=True)
    stem = f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{condition}"
    for number in range(1, 1000):
        directory = parent / (stem if number == 1 else f"{stem}-{number}")
        try:
            directory.mkdir()
            return directory
        except FileExistsError:
            continue
    raise DsminerError(f"cannot create a new run directory under {parent}")


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

    The directory is locked for the run. A resume (an existing directory) must have the same condition and
    model; it repairs the files a kill may have left, skips committed papers and continues the same MLflow
    run. With `nested`, a new run is a child of the active MLflow run (an experiment's parent run)."""
    if settings.executor == "ray":
        from dsminer.run.ray_executor import require_ray

        require_ray()
    store = RunStore(settings.out_dir or default_out_dir(settings.condition))
    with store.locked():
        store.repair()
        previous = store.read_manifest()
        check_resumable(previous, settings, model_info, store.directory, program)
        todo = [paper for paper in corpus if paper.path.name not in store.done_papers()]
        processes = parse_processes(settings.parse_processes, settings.workers) if settings.executor == "local" else 0
        # parsing starts here, so the first papers are parsed while the MLflow run is set up
        with (PaperParser([paper.path for paper in todo], processes, ahead=settings.workers + processes) as parser,
              EventLog(store.events_path, span_sink=tracking.event_to_span) as events):
            return _run_locked(settings, corpus, todo, parser, events, program, lm, model_info, store, previous,
                               progress, nested)


def check_resumable(previous: dict[str, Any] | None, settings: Settings, model_info: dict[str, str],
                    directory: Path, program: dspy.Module | None = None) -> None:
    """Refuse to resume a run of another condition, model or compiled program into the same directory (one
    line)."""
    if not previous:
        return
    compiled = program_params(getattr(program, "compiled", None))["program_sha256"]
    differs = [f"{key} {previous.get(key)!r} there, {value!r} now"
               for key, value in (("condition", settings.condition), ("model", model_info["model"]),
                                  ("program_sha256", compiled))
               if previous.get(key) not in (None, value)]
    if differs:
        raise ConfigError(f"{directory} holds another run ({'; '.join(differs)}): use another --out")


def _run_locked(settings: Settings, corpus: Sequence[CorpusPaper], todo: list[CorpusPaper], parser: PaperParser,
                events: EventLog, program: dspy.Module, lm: dspy.LM, model_info: dict[str, str], store: RunStore,
                previous: dict[str, Any] | None,
                progress: Callable[[Sequence[CorpusPaper]], Any] | None, nested: bool) -> RunOutcome:
    experiment_id = tracking.use_experiment(settings.tracking_uri, settings.experiment)
    manifest = store.start_manifest(settings, model_info, environment_snapshot(), mlflow.get_tracking_uri(), previous)
    folders = {str(paper.path.parent.absolute()) for paper in corpus}
    manifest["corpus_dir"] = folders.pop() if len(folders) == 1 else None
    outcome = RunOutcome(store.directory, None)
    resumed_id = tracking.existing_run_id((previous or {}).get("mlflow", {}), mlflow.get_tracking_uri())
    start = ({"run_id": resumed_id} if resumed_id else
             {"run_name": f"{settings.label}-{store.directory.name}", "experiment_id": experiment_id,
              "tags": {"condition": settings.condition, "variant": settings.label, "model": model_info["model"]}})
    start["nested"] = nested
    with mlflow.start_run(**start) as run:
        outcome.run_id = run.info.run_id
        store.note_mlflow(manifest, experiment_id, run.info.run_id, settings.experiment)
        compiled = program_params(getattr(program, "compiled", None))
        manifest.update(compiled)
        tracking.log_new_params(run.info.run_id, {**settings.as_params(), **compiled})
        if not resumed_id:
            tracking.log_reproducibility([paper.path for paper in corpus], program)
        trace_dspy_calls()
        corpus = getattr(program, "corpus", None)
        if previous is not None and corpus is not None:
            corpus.add(store.read_records())  # a resume offers what the papers committed before it would have
        started = time.monotonic()
        counted: dict[str, float] = {}  # the program's counters, summed over the Ray tasks' copies

        def counters() -> dict[str, float]:
            return carried_over(counted if settings.executor == "ray" else program_metrics(program), previous)

        def checkpoint() -> None:
            """The program's counters so far, into the manifest after each paper: a resume after a kill adds
            them to its own (a paper in flight at the kill is processed again, and its counts are counted again)."""
            manifest["metrics"].update(counters())
            store.write_manifest(manifest)
        try:
            if settings.executor == "ray":
                from dsminer.run.ray_executor import TraceTarget, process_papers_ray

                target = TraceTarget(mlflow.get_tracking_uri(), experiment_id, run.info.run_id)
                process_papers_ray(todo, settings, model_info["api_base"], target, store, events, counted, progress,
                                   checkpoint)
            else:
                process_papers(todo, parser, program, lm, store, events, settings, progress, checkpoint)
        except KeyboardInterrupt:
            outcome.status = "interrupted"
            raise
        except EndpointError:
            outcome.status = "stopped"
            raise
        finally:
            events.flush()
            _finish(store, manifest, outcome, time.monotonic() - started, counters())
    return outcome


def process_papers(todo: Sequence[CorpusPaper], parser: PaperParser, program: dspy.Module, lm: dspy.LM,
                   store: RunStore, events: EventLog, settings: Settings,
                   progress: Callable[[Sequence[CorpusPaper]], Any] | None = None,
                   checkpoint: Callable[[], None] | None = None) -> None:
    """Process the papers, `settings.workers` at a time, call `checkpoint` as each is committed, and stop the
    run when the endpoint failed on `settings.stop_after_failed_papers` papers in a row (in the order they
    finished).

    `parser` parses the PDFs in separate processes a few papers ahead, so parsing overlaps the model steps.
    Parallel papers share the program (its counters and memory are thread-safe) and each thread has its own
    copy of the LM, so the calls, tokens and events of a paper stay that paper's."""
    finished = stop_when_down(settings, store, checkpoint)
    if settings.workers == 1:
        with dspy.context(lm=lm):
            for paper in progress(todo) if progress else todo:
                finished(process_paper(paper, parser, program, lm, events, settings, store.commit_paper))
        return
    local = threading.local()

    def work(paper: CorpusPaper) -> str:
        if not hasattr(local, "lm"):
            local.lm = lm.copy()
        with dspy.context(lm=local.lm):
            return process_paper(paper, parser, program, local.lm, events, settings, store.commit_paper)

    pool = ThreadPoolExecutor(settings.workers, thread_name_prefix="dsminer-paper")
    futures = [pool.submit(contextvars.copy_context().run, work, paper) for paper in todo]
    try:
        done = SizedIterator(as_completed(futures), len(futures))
        for future in progress(done) if progress else done:
            finished(future.result())
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)  # papers in flight finish and are committed
        raise
    pool.shutdown()


def carried_over(metrics: dict[str, float], previous: dict[str, Any] | None) -> dict[str, float]:
    """The program's counters over the whole run: a resumed run adds what the earlier invocations counted."""
    before = (previous or {}).get("metrics") or {}
    return {key: value + float(before.get(key, 0.0)) for key, value in metrics.items()}


def _finish(store: RunStore, manifest: dict[str, Any], outcome: RunOutcome, wall_s: float,
            extra: dict[str, float] | None = None) -> None:
    """Write the manifest and log metrics and artifacts, whether the run ended well or not. The metrics
    cover the whole run, every invocation of a resumed one included."""
    counts = store.event_counts()
    papers = store.read_papers()
    metrics = {**run_metrics(store.read_records(), papers, counts, wall_s), **(extra or {})}
    outcome.metrics = metrics
    outcome.failed = [{"file": p["file"], "status": p["status"], "reason": p["reason"]}
                      for p in papers if p["status"] in ("failed", "partial")]
    store.finish_manifest(manifest, metrics, outcome.failed, outcome.status, counts)
    try:
        tracking.log_metrics(metrics)
        tracking.log_outputs(store.directory)
    except Exception as exc:  # noqa: BLE001  (the files on disk are the record; MLflow is the copy)
        log.error("could not log the run to MLflow: %s", exc)
    mlflow.set_tag("status", outcome.status)
    if outcome.status != "finished":
        mlflow.end_run(status="KILLED" if outcome.status == "interrupted" else "FAILED")
