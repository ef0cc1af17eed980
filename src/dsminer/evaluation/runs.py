"""Load a run's artifacts (records, papers, events, manifest) from its directory or from MLflow."""

from __future__ import annotations

import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import ValidationError

from dsminer.config import DEFAULT_TRACKING_URI
from dsminer.errors import RunFileError, RunNotFoundError
from dsminer.jsonl import iter_json_objects
from dsminer.schema import DatasetRecord
from dsminer.store import committed_records, latest_per_file, read_manifest

logger = logging.getLogger(__name__)

RUN_FILES = ("results.jsonl", "papers.jsonl", "events.jsonl", "manifest.json")



@dataclass
class RunData:
    """Everything one run wrote, read into memory."""

    label: str
    directory: Path
    records: list[DatasetRecord]
    papers: list[dict]
    events: list[dict]
    manifest: dict
    run_id: str | None = None
    tracking_uri: str | None = None
    source: Literal["directory", "mlflow"] = "directory"

    @property
    def condition(self) -> str:
        """The manifest's variant or condition, or the directory name when the manifest has neither."""
        return str(self.manifest.get("variant") or self.manifest.get("condition") or self.directory.name)


def load_run(ref: str, tracking_uri: str | None = None) -> RunData:
    """Load a run from a directory path or an MLflow run id; RunNotFoundError when neither exists."""
    path = Path(ref).expanduser()
    if path.is_dir():
        return read_run_dir(path)
    if path.exists() or "/" in ref or "\\" in ref:
        raise RunNotFoundError(f"not a run directory: {ref}")
    uri = tracking_uri or DEFAULT_TRACKING_URI
    run = read_run_dir(_download_run(ref, uri), run_id=ref)
    run.tracking_uri = uri
    run.source = "mlflow"
    return run


def read_run_dir(directory: Path, run_id: str | None = None) -> RunData:
    """Read the artifact files of a run directory; absent optional files give empty lists."""
    if not any((directory / name).is_file() for name in ("results.jsonl", "manifest.json")):
        raise RunNotFoundError(f"{directory} is not a run: it has neither results.jsonl nor manifest.json")
    manifest = read_manifest(directory / "manifest.json") or {}
    mlflow_info = manifest.get("mlflow") or {}
    results = directory / "results.jsonl"
    papers = latest_per_file(row for _, row in _read_jsonl(directory / "papers.jsonl"))
    records = [_parse_record(row, results, number) for number, row in _read_jsonl(results)]
    return RunData(
        label=str(manifest.get("variant") or manifest.get("condition") or directory.name),
        directory=directory,
        records=committed_records(records, papers),
        papers=papers,
        events=[row for _, row in _read_jsonl(directory / "events.jsonl")],
        manifest=manifest,
        run_id=run_id or mlflow_info.get("run_id"),
        tracking_uri=mlflow_info.get("tracking_uri"),
    )


def assign_labels(runs: list[RunData]) -> None:
    """Label each run by its condition, adding a short run-id suffix where two runs share one."""
    conditions = [run.condition for run in runs]
    for run in runs:
        run.label = run.condition
        if conditions.count(run.condition) > 1:
            suffix = (run.run_id or run.directory.name)[:6]
            run.label = f"{run.condition}-{suffix}"
    labels = [run.label for run in runs]
    for index, run in enumerate(runs):
        if labels.count(run.label) > 1:
            run.label = f"{run.label}-{index + 1}"  # a valid MLflow metric-name part


def _download_run(run_id: str, tracking_uri: str) -> Path:
    """Fetch a run's artifacts into a per-run temporary folder."""
    import mlflow
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    if not tracking_store_exists(tracking_uri):
        raise RunNotFoundError(f"no run directory {run_id!r} and no MLflow tracking database at {tracking_uri}")
    try:
        MlflowClient(tracking_uri).get_run(run_id)
        target = Path(tempfile.gettempdir()) / "dsminer-runs" / run_id
        shutil.rmtree(target, ignore_errors=True)  # no stale files from an earlier download
        target.mkdir(parents=True)
        local = mlflow.artifacts.download_artifacts(run_id=run_id, tracking_uri=tracking_uri, dst_path=str(target))
    except MlflowException as exc:
        raise RunNotFoundError(f"no run directory {run_id!r} and no MLflow run with that id at {tracking_uri}") from exc
    logger.info("downloaded artifacts of run %s to %s", run_id, local)
    return Path(local)


def tracking_store_exists(tracking_uri: str) -> bool:
    """False for a sqlite URI whose database file is absent (MLflow would silently create it)."""
    if urlparse(tracking_uri).scheme != "sqlite":
        return True
    db_path = unquote(tracking_uri.split("sqlite:///", 1)[-1].split("?", 1)[0])
    return db_path in ("", ":memory:") or Path(db_path).is_file()




def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """The (line number, object) pairs of a JSONL file; blank lines skipped, absent file = none."""
    return list(iter_json_objects(path, RunFileError, torn_tail=True)) if path.is_file() else []


def _parse_record(row: dict, path: Path, line: int) -> DatasetRecord:
    try:
        return DatasetRecord.model_validate(row)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"]) or "record"
        raise RunFileError(path, line, f"bad record field {where}: {err['msg']}") from exc


def paper_file(record: DatasetRecord) -> str:
    """The PDF file name a record came from (its evidence source without any folder)."""
    return Path(record.evidence.source).name


def processed_files(run: RunData) -> list[str]:
    """The papers a run processed: papers.jsonl when present, else the sources of its records."""
    if run.papers:
        files = [Path(str(row.get("file") or "")).name for row in run.papers]
        return list(dict.fromkeys(name for name in files if name))
    return list(dict.fromkeys(paper_file(record) for record in run.records))
