"""MLflow plumbing for a run: the store, the experiment, spans for events, and the run's outputs."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities import SpanEvent
from mlflow.environment_variables import MLFLOW_ASYNC_TRACE_LOGGING_MAX_WORKERS
from mlflow.exceptions import MlflowException

from dsminer.config import DEFAULT_ARTIFACT_ROOT, DEFAULT_TRACKING_URI

log = logging.getLogger(__name__)
TRACE_WRITERS = 1


def resolve_tracking_uri(tracking_uri: str | None) -> str:
    """The configured URI, or the default SQLite store under ./mlruns (created on demand)."""
    if tracking_uri:
        return tracking_uri
    Path("mlruns").mkdir(exist_ok=True)
    return DEFAULT_TRACKING_URI


def use_experiment(tracking_uri: str | None, name: str) -> str:
    """Point MLflow at the store and the named experiment, creating it with artifacts beside the store.

    A SQLite store is created, and the experiment looked up or created, under a file lock beside the
    database, so two runs that start together on a new store do not race."""
    write_traces_in_one_thread()
    uri = resolve_tracking_uri(tracking_uri)
    with _store_lock(uri):
        mlflow.set_tracking_uri(uri)
        experiment = mlflow.get_experiment_by_name(name)
        if experiment is None:
            location = Path(DEFAULT_ARTIFACT_ROOT).resolve().as_uri() if uri == DEFAULT_TRACKING_URI else None
            experiment_id = mlflow.create_experiment(name, artifact_location=location)
        else:
            experiment_id = experiment.experiment_id
    mlflow.set_experiment(experiment_id=experiment_id)
    return experiment_id


def write_traces_in_one_thread() -> None:
    """Have MLflow write traces from one background thread (`MLFLOW_ASYNC_TRACE_LOGGING_MAX_WORKERS`, unless
    set): its default of ten threads contend for the store's one writer and, with the papers' threads, for the
    GIL. Before the first span, when MLflow reads it."""
    os.environ.setdefault(MLFLOW_ASYNC_TRACE_LOGGING_MAX_WORKERS.name, str(TRACE_WRITERS))


@contextmanager
def _store_lock(uri: str) -> Iterator[None]:
    """An exclusive lock on `<database>.lock` for a SQLite store; nothing for other stores."""
    if not uri.startswith("sqlite:///"):
        yield
        return
    database = Path(uri.removeprefix("sqlite:///"))
    database.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{database}.lock", "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def existing_run_id(mlflow_info: dict[str, Any], tracking_uri: str) -> str | None:
    """The MLflow run an earlier invocation of a run directory opened, when it is in this tracking store."""
    run_id = mlflow_info.get("run_id")
    if not run_id or mlflow_info.get("tracking_uri") not in (None, tracking_uri):
        return None
    try:
        mlflow.MlflowClient().get_run(run_id)
    except MlflowException:
        return None
    return run_id


def log_new_params(run_id: str, params: dict[str, str]) -> None:
    """Log the parameters the run does not have yet; a resume with another value of one (say, --limit)
    keeps the first and warns."""
    logged = mlflow.MlflowClient().get_run(run_id).data.params
    changed = sorted(key for key, value in params.items() if key in logged and logged[key] != value)
    if changed:
        log.warning("resumed with other values of %s; the run keeps its first values", ", ".join(changed))
    mlflow.log_params({key: value for key, value in params.items() if key not in logged})


def event_to_span(event: dict[str, Any]) -> None:
    """Attach an event to the active span (the paper's trace), if there is one."""
    span = mlflow.get_current_active_span()
    if span is None:
        return
    attributes = {key: value if isinstance(value, (str, int, float, bool)) else json.dumps(value, default=str)
                  for key, value in event.items() if value is not None and key not in {"kind", "ts"}}
    span.add_event(SpanEvent(event["kind"], attributes=attributes))


def log_metrics(metrics: dict[str, float | int | None]) -> None:
    mlflow.log_metrics({key: float(value) for key, value in metrics.items() if value is not None})


def log_outputs(out_dir: Path) -> None:
    """Log the run directory's files as artifacts at the run's artifact root."""
    mlflow.flush_trace_async_logging()
    for path in sorted(out_dir.iterdir()):
        if path.is_file() and not path.name.startswith("."):
            mlflow.log_artifact(str(path))


def log_reproducibility(paths: list[Path], program: Any) -> None:
    """What a run can be reproduced from: the corpus as an MLflow input (folder, file names, sizes and
    SHA-256 hashes), the program's state (`dump_state`, JSON) and the git commit of the code, when known."""
    import hashlib

    import mlflow.data
    import pandas as pd

    rows = [{"file": path.name, "bytes": path.stat().st_size,
             "sha256": hashlib.sha256(path.read_bytes()).hexdigest()} for path in paths if path.is_file()]
    if rows:
        frame = pd.DataFrame(rows)
        folders = {str(path.parent.absolute()) for path in paths}
        digest = hashlib.sha256("".join(sorted(row["sha256"] for row in rows)).encode()).hexdigest()[:16]
        source = folders.pop() if len(folders) == 1 else "several folders"
        with warnings.catch_warnings():  # MLflow's hints on schema inference and source types, not ours to act on
            warnings.simplefilter("ignore")
            mlflow.log_input(mlflow.data.from_pandas(frame, source=source, name="corpus", digest=digest),
                             context="corpus")
            mlflow.log_table(frame, "corpus.json")
    dump = getattr(program, "dump_state", None)
    if callable(dump):
        try:
            mlflow.log_dict(dump(), "program_state.json")
        except (TypeError, ValueError) as exc:
            log.warning("program state not logged: %s", exc)
    commit = git_commit()
    if commit:
        mlflow.set_tag("git_commit", commit)


def git_commit() -> str | None:
    """The commit of the dsminer source tree, when it is a git checkout."""
    import subprocess

    try:
        result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                                capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None
