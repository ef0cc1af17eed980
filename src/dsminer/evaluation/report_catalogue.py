"""The report's catalogue view: each catalogue entry with its papers, and the report row that shows each paper's
record of it. The catalogue's tables hold None, never NaN, for what is missing (`catalog_table`), so their rows go
into the page's JSON as they are."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from dsminer.catalog.entries import Catalog
from dsminer.schema import normalize_name

CATALOGUE_ENTRY_KEYS = ("entry_id", "name", "papers", "used", "created", "mentioned", "link", "link_source", "links")


def catalogue_payload(catalog: Catalog, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The catalogue for the page: each entry (in the catalogue's order) with its counts, platforms, links and
    their source, aliases (commonest first), the name of the entry it is a version of, and its papers."""
    names = dict(zip(catalog.entries["entry_id"], catalog.entries["name"])) if len(catalog.entries) else {}
    aliases: dict[str, list[str]] = defaultdict(list)
    for alias in catalog.aliases.sort_values("count", ascending=False, kind="stable").to_dict("records"):
        aliases[alias["entry_id"]].append(alias["alias"])
    links: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for link in catalog.links.to_dict("records"):
        links[link["entry_id"]].append({"url": link["url"], "source": link["source"]})
    papers = catalogue_papers(catalog, rows)
    entries = []
    for entry in catalog.entries.to_dict("records"):
        entries.append({key: entry[key] for key in CATALOGUE_ENTRY_KEYS} | {
            "platforms": [str(name) for name in entry["platforms"]], "variant_of": names.get(entry["variant_of"]),
            "aliases": aliases[entry["entry_id"]], "all_links": links[entry["entry_id"]],
            "paper_records": papers[entry["entry_id"]]})
    return {"entries": entries, "records": len(catalog.mentions),
            "papers": int(catalog.mentions["paper"].nunique()) if len(catalog.mentions) else 0}


def catalogue_papers(catalog: Catalog, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each entry's papers' records of it, by paper: role, the name as the paper writes it, page and
    quote, and `row`, the id of the report row holding that record (the row of the run the catalogue took it
    from when the report has several; None when the report holds no record of that paper and name)."""
    row_ids: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for row in rows:
        row_ids[(row["paper"], row["norm_name"])].setdefault(row["condition"], row["id"])
    papers: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for mention in catalog.mentions.sort_values(["paper", "page"], kind="stable").to_dict("records"):
        by_run = row_ids.get((Path(str(mention["paper"])).name, normalize_name(mention["name"])), {})
        papers[mention["entry_id"]].append({
            "paper": mention["paper"], "title": mention["title"], "role": mention["role"], "name": mention["name"],
            "page": None if mention["page"] is None else int(mention["page"]), "quote": mention["quote"],
            "row": by_run.get(mention["run"], next(iter(by_run.values()), None)),
        })
    return papers
