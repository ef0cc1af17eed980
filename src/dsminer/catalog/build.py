"""Build a catalogue folder from runs' records, or add runs to the one it holds (entry ids stay)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from dsminer.catalog.entries import Catalog, build_catalog, mention_rows
from dsminer.catalog.known import KnownDataset
from dsminer.catalog.tables import is_catalog, mention_records, merged_ids, write_catalog
from dsminer.schema import DatasetRecord


def update_catalog(directory: Path, runs: Sequence[tuple[str, Sequence[DatasetRecord]]],
                   known: Mapping[str, KnownDataset] | None = None) -> Catalog:
    """Resolve the records of `runs` (label, records) together with the catalogue already in `directory`, if
    any, and write the result there. A record already catalogued (the same paper and name) is replaced by the
    newer run's and keeps its entry."""
    earlier = is_catalog(directory)
    old_rows = mention_records(directory) if earlier else []
    old_entry = {row["mention_id"]: row["entry_id"] for row in old_rows}
    new_rows = [row for label, records in runs for row in mention_rows(records, label)]
    for row in new_rows:
        row["entry_id"] = old_entry.get(row["mention_id"])
    merged_before = merged_ids(directory) if earlier else None
    catalog = build_catalog([*new_rows, *old_rows], known, merged_before)
    write_catalog(catalog, directory)
    return catalog
