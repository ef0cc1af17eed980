"""The `dsminer runs` table: recent runs of an experiment with their key metrics."""

from __future__ import annotations

import mlflow

from dsminer.errors import RunNotFoundError
from dsminer.tracking import resolve_tracking_uri

COLUMNS = {
    "run_id": "run", "tags.condition": "condition", "status": "status", "start_time": "started",
    "metrics.papers": "papers", "metrics.records": "records", "metrics.datasets_per_paper": "ds/paper",
    "metrics.link_rate": "link", "metrics.llm_calls_per_paper": "calls/paper", "metrics.seconds_per_paper": "s/paper",
}


def recent_runs(tracking_uri: str | None, experiment: str, n: int = 10) -> str:
    """A plain-text table of the newest runs, newest first."""
    mlflow.set_tracking_uri(resolve_tracking_uri(tracking_uri))
    found = mlflow.get_experiment_by_name(experiment)
    if found is None:
        raise RunNotFoundError(f"no experiment named {experiment!r} in {mlflow.get_tracking_uri()}")
    frame = mlflow.search_runs([found.experiment_id], max_results=n, order_by=["start_time DESC"])
    if frame.empty:
        return "no runs yet"
    present = [column for column in COLUMNS if column in frame.columns]
    table = frame[present].rename(columns=COLUMNS)
    table["run"] = table["run"].str[:8]
    if "started" in table:
        table["started"] = table["started"].dt.strftime("%Y-%m-%d %H:%M")
    return table.to_string(index=False)
