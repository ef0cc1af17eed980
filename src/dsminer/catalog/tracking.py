"""Log a catalogue to MLflow as a run of its own: its counts, its folder as artifacts, its entries as a table."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dsminer.catalog.entries import Catalog
from dsminer.errors import DsminerError

EXPERIMENT = "dsminer-catalog"


def catalog_metrics(catalog: Catalog) -> dict[str, float]:
    """The catalogue's sizes: entries, records, papers, linked entries, variants, merged ids."""
    entries = catalog.entries
    if entries.empty:
        return {"entries": 0.0, "records": 0.0, "papers": 0.0}
    return {
        "entries": float(len(entries)),
        "records": float(len(catalog.mentions)),
        "papers": float(catalog.mentions["paper"].nunique()),
        "entries_in_several_papers": float((entries["papers"] > 1).sum()),
        "entries_with_link": float((entries["links"] > 0).sum()),
        "entries_with_borrowed_link": float(_borrowed(catalog)),
        "entries_known": float(entries["known_id"].notna().sum()),
        "variants": float(entries["variant_of"].notna().sum()),
    }


def _borrowed(catalog: Catalog) -> int:
    """Records without a link of their own whose entry has one (from another paper or a known catalogue)."""
    linked = set(catalog.entries.loc[catalog.entries["links"] > 0, "entry_id"])
    mentions = catalog.mentions
    return int((mentions["dataset_link"].isna() & mentions["entry_id"].isin(linked)).sum())


def log_catalog(catalog: Catalog, directory: Path, tracking_uri: str, params: Mapping[str, str]) -> str:
    """Create a run in the `dsminer-catalog` experiment with the catalogue's metrics, its folder as artifacts
    (catalog/) and its entries as an MLflow table; return the run id."""
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    try:
        client = MlflowClient(tracking_uri)
        experiment = client.get_experiment_by_name(EXPERIMENT)
        experiment_id = experiment.experiment_id if experiment else client.create_experiment(EXPERIMENT)
        run_id = client.create_run(experiment_id, run_name="catalog", tags={"dsminer.kind": "catalog"}).info.run_id
        for key, value in params.items():
            client.log_param(run_id, key, str(value)[:6000])
        for key, value in catalog_metrics(catalog).items():
            client.log_metric(run_id, key, value)
        client.log_artifacts(run_id, str(directory), "catalog")
        table = catalog.entries.drop(columns=["merged_ids", "fields"]).assign(
            platforms=catalog.entries["platforms"].map(", ".join))
        client.log_table(run_id, table, "catalog/entries_table.json")
        client.set_terminated(run_id, "FINISHED")
    except MlflowException as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DsminerError(f"cannot log the catalogue to MLflow at {tracking_uri}: {first}") from exc
    return run_id
