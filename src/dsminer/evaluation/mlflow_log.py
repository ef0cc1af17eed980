"""Log evaluation metrics and files to existing MLflow runs, or to a new comparison run."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from dsminer.errors import DsminerError, RunNotFoundError
from dsminer.evaluation.runs import tracking_store_exists

if TYPE_CHECKING:
    from mlflow.tracking import MlflowClient

logger = logging.getLogger(__name__)


def _client(tracking_uri: str) -> MlflowClient:
    """A client for an existing tracking store (mlflow is imported lazily: it is slow to import)."""
    from mlflow.tracking import MlflowClient

    if not tracking_store_exists(tracking_uri):
        raise RunNotFoundError(f"no MLflow tracking database at {tracking_uri}")
    return MlflowClient(tracking_uri)


def log_metrics(run_id: str, metrics: Mapping[str, float | None], tracking_uri: str, prefix: str = "") -> int:
    """Log the finite numbers of `metrics` on the run, keys prefixed; return how many were logged."""
    from mlflow.entities import Metric
    from mlflow.exceptions import MlflowException

    stamp = int(time.time() * 1000)
    batch = [Metric(f"{prefix}{key}", float(value), stamp, 0) for key, value in metrics.items()
             if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)]
    try:
        for start in range(0, len(batch), 1000):
            _client(tracking_uri).log_batch(run_id, metrics=batch[start:start + 1000])
    except MlflowException as exc:
        raise DsminerError(f"cannot log metrics to MLflow run {run_id}: {_first_line(exc)}") from exc
    logger.info("logged %d metrics on run %s", len(batch), run_id)
    return len(batch)


def log_files(run_id: str, paths: Iterable[Path], tracking_uri: str, artifact_path: str | None = None) -> None:
    """Upload files as artifacts of the run, under `artifact_path` when given."""
    from mlflow.exceptions import MlflowException

    client = _client(tracking_uri)
    try:
        for path in paths:
            client.log_artifact(run_id, str(path), artifact_path)
    except MlflowException as exc:
        raise DsminerError(f"cannot log files to MLflow run {run_id}: {_first_line(exc)}") from exc


def log_dir(run_id: str, folder: Path, tracking_uri: str, artifact_path: str) -> None:
    """Upload a folder (its files and subfolders) as artifacts of the run under `artifact_path`."""
    from mlflow.exceptions import MlflowException

    try:
        _client(tracking_uri).log_artifacts(run_id, str(folder), artifact_path)
    except MlflowException as exc:
        raise DsminerError(f"cannot log files to MLflow run {run_id}: {_first_line(exc)}") from exc


def log_table(run_id: str, rows: list[dict[str, str]], tracking_uri: str, artifact_file: str) -> None:
    """Log rows as an MLflow table artifact of the run (shown in the UI's evaluation view)."""
    import pandas as pd
    from mlflow.exceptions import MlflowException

    try:
        _client(tracking_uri).log_table(run_id, pd.DataFrame(rows, columns=["file", "error", "name", "class"]),
                                        artifact_file)
    except MlflowException as exc:
        raise DsminerError(f"cannot log a table to MLflow run {run_id}: {_first_line(exc)}") from exc


def create_compare_run(tracking_uri: str, like_run_id: str, params: Mapping[str, str]) -> str:
    """Start a run named "compare" in the experiment of `like_run_id`; return its id (end it with end_run)."""
    from mlflow.exceptions import MlflowException

    client = _client(tracking_uri)
    try:
        experiment_id = client.get_run(like_run_id).info.experiment_id
        run = client.create_run(experiment_id, run_name="compare", tags={"dsminer.kind": "compare"})
        for key, value in params.items():
            client.log_param(run.info.run_id, key, str(value)[:6000])
    except MlflowException as exc:
        reason = _first_line(exc)
        raise RunNotFoundError(f"cannot open a compare run beside MLflow run {like_run_id}: {reason}") from exc
    return run.info.run_id


def end_run(run_id: str, tracking_uri: str) -> None:
    """Mark a run this module created as finished."""
    _client(tracking_uri).set_terminated(run_id, "FINISHED")


def check_run(run_id: str, tracking_uri: str) -> None:
    """RunNotFoundError unless the tracking server knows the run."""
    from mlflow.exceptions import MlflowException

    try:
        _client(tracking_uri).get_run(run_id)
    except MlflowException as exc:
        raise RunNotFoundError(f"no MLflow run {run_id} at {tracking_uri}") from exc


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
