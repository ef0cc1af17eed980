"""A catalogue folder: `entries`, `aliases`, `mentions` and `links` as Parquet files, and `catalog.duckdb`
holding the same four tables for SQL. Each file is written beside its final name and moved into place, so a
crash leaves the earlier catalogue whole."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from dsminer.catalog.entries import Catalog, catalog_table
from dsminer.errors import CatalogError

TABLES = ("entries", "aliases", "mentions", "links")
DATABASE = "catalog.duckdb"


def is_catalog(directory: Path) -> bool:
    """Whether `directory` holds a catalogue."""
    return all((Path(directory) / f"{table}.parquet").is_file() for table in TABLES)


def write_catalog(catalog: Catalog, directory: Path) -> None:
    """Write the four Parquet tables and the DuckDB database into `directory`."""
    import duckdb

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for table in TABLES:
        temporary = directory / f".{table}.parquet.tmp"
        getattr(catalog, table).to_parquet(temporary, index=False)
        os.replace(temporary, directory / f"{table}.parquet")
    temporary = directory / f".{DATABASE}.tmp"
    temporary.unlink(missing_ok=True)
    with duckdb.connect(str(temporary)) as connection:
        for table in TABLES:
            connection.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet(?)",
                               [str(directory / f"{table}.parquet")])
    os.replace(temporary, directory / DATABASE)


def read_catalog(directory: Path) -> Catalog:
    """The catalogue in `directory`; CatalogError when the folder holds none."""
    directory = Path(directory)
    if not is_catalog(directory):
        raise CatalogError(f"{directory} holds no catalogue (build one: dsminer catalog build RUN --out {directory})")
    frames = {table: pd.read_parquet(directory / f"{table}.parquet") for table in TABLES}
    return Catalog(**{name: catalog_table(frame, frame.columns) for name, frame in frames.items()})


def merged_ids(directory: Path) -> dict[str, list[str]]:
    """Each entry's `merged_ids`, read alone (without the rest of the catalogue)."""
    import pyarrow.parquet as pq

    table = pq.read_table(Path(directory) / "entries.parquet", columns=["entry_id", "merged_ids"]).to_pydict()
    return {entry: list(ids or []) for entry, ids in zip(table["entry_id"], table["merged_ids"])}


def mention_records(directory: Path) -> list[dict]:
    """The catalogue's mention rows as dicts (lists as lists, a missing value as None), ready to be resolved
    again; read with pyarrow, which gives Python values without a pandas round trip."""
    import pyarrow.parquet as pq

    return pq.read_table(Path(directory) / "mentions.parquet").to_pylist()
