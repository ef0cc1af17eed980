"""Answers from a catalogue: one entry by any of its names, and the top entries by a count."""

from __future__ import annotations

import pandas as pd
from rapidfuzz import process

from dsminer.catalog.entries import Catalog
from dsminer.catalog.resolution import spelling
from dsminer.errors import CatalogError

_QUOTE_CHARS = 160


def entry_id_for(catalog: Catalog, name: str) -> str:
    """The entry `name` is the id or any spelling of; CatalogError naming the closest names when none is."""
    if name in set(catalog.entries["entry_id"]):
        return name
    key = spelling(name).key
    keys = catalog.aliases.assign(key=catalog.aliases["alias"].map(lambda alias: spelling(alias).key))
    hits = keys[keys["key"] == key]
    if len(hits):
        return str(hits.groupby("entry_id")["count"].sum().idxmax())
    close = [match for match, _, _ in process.extract(name, sorted(set(catalog.aliases["alias"])), limit=3)]
    hint = f" (closest: {', '.join(close)})" if close else ""
    raise CatalogError(f"no entry named {name!r} in the catalogue{hint}")


def find_entry(catalog: Catalog, name: str) -> str:
    """One entry as text: counts, aliases, links with their source, variants, then each paper."""
    entry_id = entry_id_for(catalog, name)
    by_id = catalog.entries.set_index("entry_id")
    entry = by_id.loc[entry_id]
    aliases = catalog.aliases[catalog.aliases["entry_id"] == entry_id].sort_values("count", ascending=False)
    links = catalog.links[catalog.links["entry_id"] == entry_id]
    variants = catalog.entries[catalog.entries["variant_of"] == entry_id]["name"].tolist()
    lines = [f"{entry['name']}  [{entry_id}]",
             f"  papers {entry['papers']}: used {entry['used']}, created {entry['created']}, "
             f"mentioned {entry['mentioned']}; years {entry['years']}",
             "  aliases: " + ", ".join(f"{row.alias} ({row.count})" for row in aliases.itertuples())]
    lines += [f"  link: {row.url}  ({row.source})" for row in links.itertuples()] or ["  link: none given"]
    if entry["platforms"]:
        lines.append("  platforms: " + ", ".join(entry["platforms"]))
    if entry["known_id"]:
        lines.append(f"  known as: {entry['known_id']}")
    if entry["variant_of"]:
        base = by_id.loc[entry["variant_of"], "name"]
        lines.append(f"  a version or subset of: {base} [{entry['variant_of']}]")
    if variants:
        lines.append("  versions and subsets: " + ", ".join(variants))
    if entry["content"]:
        lines.append(f"  description: {entry['content']}")
    lines.append("  papers:")
    for row in catalog.mentions[catalog.mentions["entry_id"] == entry_id].sort_values("paper").itertuples():
        quote = (row.quote or "")[:_QUOTE_CHARS]
        page = f"p. {int(row.page)}" if pd.notna(row.page) else "p. ?"
        lines.append(f"    {row.paper}  {row.role or '-'}  as {row.name!r}, {page}: {quote}")
    return "\n".join(lines)


def top_entries(catalog: Catalog, by: str, limit: int) -> str:
    """The first `limit` entries by the column `by`, as a plain-text table."""
    columns = ["name", "papers", "used", "created", "mentioned", "links", "link"]
    table = catalog.entries.sort_values([by, "name"], ascending=[False, True]).head(limit)[["entry_id", *columns]]
    if table.empty:
        return "the catalogue has no entries"
    return table.to_string(index=False, max_colwidth=60)
