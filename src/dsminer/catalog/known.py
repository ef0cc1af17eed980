"""Known datasets from catalogue files (Hugging Face cards, TensorFlow Datasets builders, Papers-with-Code names):
an id and a link per name.

Optional: with no catalogue folder every lookup is empty. Only names that say which dataset on their own are
read, and a name two catalogue entries of one source share is dropped as ambiguous.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dsminer.catalog.resolution import spelling
from dsminer.mentions.catalog import catalog_rows, catalog_source, catalog_url, row_names


@dataclass(frozen=True)
class KnownDataset:
    """One catalogue entry: its id ("hf:squad", "tfds:cifar10", "pwc:Penn_Treebank"), display name and link (None
    if it has none)."""

    known_id: str
    name: str
    url: str | None


def _entry(row: dict) -> tuple[KnownDataset, list[str]] | None:
    """The catalogue entry a row describes and the names it goes by."""
    source = catalog_source(row)
    if source in ("hf", "tfds"):
        ident = row[f"{source}_id"]
        known = KnownDataset(f"{source}:{ident}", str(row.get("pretty_name") or ident), catalog_url(row))
        return known, [*row_names(row), row.get("paperswithcode_id")]
    if isinstance(row.get("pwc_name"), str) and row.get("scirex_type", "Material") == "Material":
        names = [row.get("display"), row["pwc_name"].replace("_", " ")]
        return KnownDataset(f"pwc:{row['pwc_name']}", str(row.get("display") or row["pwc_name"]), None), names
    return None


def index_known(rows: Iterable[dict]) -> dict[str, KnownDataset]:
    """Name key to catalogue entry, per source; a key two entries of one source share is left out, and where two
    sources give a key, the entry with a link wins."""
    by_key: dict[str, dict[str, set[KnownDataset]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        found = _entry(row)
        if found is None:
            continue
        known, names = found
        source = known.known_id.split(":", 1)[0]
        for name in names:
            if isinstance(name, str) and (written := spelling(name)).distinctive and len(written.key) >= 2:
                by_key[written.key][source].add(known)
    index: dict[str, KnownDataset] = {}
    for key, sources in by_key.items():
        single = [next(iter(entries)) for entries in sources.values() if len(entries) == 1]
        if single:
            index[key] = max(single, key=lambda known: known.url is not None)
    return index


def load_known(directory: Path | None) -> dict[str, KnownDataset]:
    """The known datasets of every `*.jsonl` in `directory`, by name key; empty when `directory` is None."""
    return index_known(catalog_rows(directory))
