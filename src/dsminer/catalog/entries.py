"""Catalogue tables from records: one entry per resolved dataset, with its aliases, its papers and its links.

Four tables, as pandas frames: `mentions` (one row per paper's record, with the entry it resolved to),
`entries`, `aliases` and `links`. An entry's id stays when the catalogue is built again with more runs: a
resolved group takes the id most of its mentions had, and the ids of entries it absorbed are kept in
`merged_ids`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from dsminer.catalog.known import KnownDataset
from dsminer.catalog.resolution import Resolution, resolve, spelling
from dsminer.schema import DatasetRecord

_ROLE_RANK = {"mentioned": 1, "used": 2, "created": 3}
COUNT_COLUMNS = ("papers", "mentions", "used", "created", "mentioned", "links", "count")
LIST_COLUMNS = ("aliases", "fields", "platforms", "merged_ids")
MENTION_COLUMNS = ("mention_id", "entry_id", "paper", "title", "year", "venue", "paper_url", "name", "aliases",
                   "role", "dataset_link", "platform", "page", "quote", "content", "type", "domain", "fields", "run")


ENTRY_COLUMNS = ("entry_id", "name", "papers", "mentions", "used", "created", "mentioned", "years", "platforms",
                 "link", "link_source", "links", "known_id", "variant_of", "merged_ids", "content", "type", "domain",
                 "fields")


@dataclass
class Catalog:
    """The four tables of a catalogue."""

    entries: pd.DataFrame
    aliases: pd.DataFrame
    mentions: pd.DataFrame
    links: pd.DataFrame


def mention_rows(records: Iterable[DatasetRecord], run: str) -> list[dict]:
    """One mention row per record (its entry not yet known)."""
    rows = []
    for record in records:
        refs, describe = record.paper_refs, record.dataset_describe
        rows.append({
            "mention_id": record.dataset_id, "entry_id": None, "paper": record.evidence.source,
            "title": refs.title, "year": refs.year, "venue": refs.venue, "paper_url": refs.url, "name": record.name,
            "aliases": list(record.aliases), "role": record.role, "dataset_link": record.dataset_link,
            "platform": record.platform, "page": record.evidence.page, "quote": record.evidence.quote,
            "content": describe.content, "type": describe.type, "domain": describe.domain,
            "fields": list(describe.fields), "run": run,
        })
    return rows


def build_catalog(mentions: Sequence[Mapping], known: Mapping[str, KnownDataset] | None = None,
                  merged_before: Mapping[str, Sequence[str]] | None = None) -> Catalog:
    """Resolve the mentions (rows of `mention_rows`, or of an earlier catalogue with their `entry_id`) into
    entries; a mention seen twice (the same paper and name from two runs) counts once, its first row kept.
    `merged_before` gives an earlier catalogue's `merged_ids` per entry, which the entry keeps."""
    first: dict[str, Mapping] = {}
    for row in mentions:
        first.setdefault(row["mention_id"], row)
    rows = [{**row, "aliases": list(row["aliases"] or []), "fields": list(row["fields"] or [])}
            for row in first.values()]
    known = known or {}
    resolution = resolve([(row["name"], list(row["aliases"]), row["paper"]) for row in rows],
                         {key: entry.known_id for key, entry in known.items()})
    ids, merged = _entry_ids(resolution, rows)
    entries, aliases, links = [], [], []
    for group, entry_id in enumerate(ids):
        members = [rows[index] for index in resolution.groups[group]]
        for row in members:
            row["entry_id"] = entry_id
        spellings = _spellings(members)
        found = _known_of(spellings, known)
        entry_links = _links(entry_id, members, found)
        entry = _entry(entry_id, members, found, entry_links)
        entry["variant_of"] = ids[resolution.variant_of[group]] if group in resolution.variant_of else None
        entry["merged_ids"] = sorted({*merged[group], *(merged_before or {}).get(entry_id, ())})
        entries.append(entry)
        aliases += [{"entry_id": entry_id, "alias": alias, "count": count} for alias, count in spellings.items()]
        links += entry_links
    return Catalog(
        entries=catalog_table(entries, ENTRY_COLUMNS).sort_values(["papers", "name"], ascending=[False, True],
                                                           ignore_index=True),
        aliases=catalog_table(aliases, ("entry_id", "alias", "count")),
        mentions=catalog_table(rows, MENTION_COLUMNS),
        links=catalog_table(links, ("entry_id", "url", "source", "papers")),
    )


def catalog_table(rows: Sequence[Mapping] | pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """A catalogue table: counts as integers, lists as lists, text as str or None (never NaN)."""
    frame = pd.DataFrame(rows, columns=list(columns))
    for column in frame.columns:
        if column in COUNT_COLUMNS:
            frame[column] = frame[column].astype("int64")
        elif column in LIST_COLUMNS:
            frame[column] = pd.Series([value if isinstance(value, list) else list(value) if _is_list(value) else []
                                       for value in frame[column].tolist()], index=frame.index, dtype=object)
        else:
            values = frame[column].astype(object)
            values[values.isna()] = None
            frame[column] = values
    return frame


def _is_list(value: object) -> bool:
    return isinstance(value, tuple) or hasattr(value, "tolist")


def _entry_ids(resolution: Resolution, rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Each group's id: the earlier id most of its mentions had, else one made from its name; and the other
    earlier ids each group absorbed."""
    ids: list[str] = []
    merged: list[list[str]] = []
    taken: set[str] = set()
    for group in resolution.groups:
        earlier = Counter(rows[index]["entry_id"] for index in group if rows[index].get("entry_id"))
        entry_id = next((old for old, _ in earlier.most_common() if old not in taken), None)
        if entry_id is None:
            name = _canonical([rows[index] for index in group])
            entry_id = base = "dc-" + hashlib.sha1(spelling(name).key.encode()).hexdigest()[:10]
            suffix = 2
            while entry_id in taken:
                entry_id, suffix = f"{base}-{suffix}", suffix + 1
        taken.add(entry_id)
        ids.append(entry_id)
        merged.append(sorted(set(earlier) - {entry_id}))
    return ids, merged


def _canonical(members: Sequence[Mapping]) -> str:
    """The name most papers write for the dataset (the first written, at a tie)."""
    return Counter(row["name"] for row in members).most_common(1)[0][0]


def _spellings(members: Sequence[Mapping]) -> Counter:
    return Counter(name for row in members for name in dict.fromkeys([row["name"], *row["aliases"]]))


def _known_of(spellings: Counter, known: Mapping[str, KnownDataset]) -> KnownDataset | None:
    """The known dataset of the key most of the entry's spellings fold to, among the keys a known catalogue has."""
    if not known:
        return None
    keys = Counter(spelling(name).key for name in spellings)
    return next((known[key] for key, _ in keys.most_common() if key in known), None)


def _links(entry_id: str, members: Sequence[Mapping], found: KnownDataset | None) -> list[dict]:
    """The entry's links: each paper's own, with the papers that give it, then the known catalogue's."""
    by_url: dict[str, set[str]] = {}
    for row in members:
        if row.get("dataset_link"):
            by_url.setdefault(row["dataset_link"], set()).add(row["paper"])
    links = [{"entry_id": entry_id, "url": url, "source": "paper: " + ", ".join(sorted(papers)), "papers": len(papers)}
             for url, papers in sorted(by_url.items(), key=lambda item: (-len(item[1]), item[0]))]
    if found is not None and found.url and found.url not in by_url:
        links.append({"entry_id": entry_id, "url": found.url, "source": f"catalogue: {found.known_id}", "papers": 0})
    return links


def _entry(entry_id: str, members: Sequence[Mapping], found: KnownDataset | None, links: list[dict]) -> dict:
    papers: dict[str, Mapping] = {}
    for row in sorted(members, key=lambda row: _ROLE_RANK.get(row["role"], 0)):
        papers[row["paper"]] = row  # a paper's role for the entry: the strongest of its records'
    roles = Counter(row["role"] or "unknown" for row in papers.values())
    years = Counter(int(row["year"]) for row in papers.values() if row["year"] is not None)
    platforms = Counter(row["platform"] for row in members if row["platform"] not in (None, "unspecified"))
    return {
        "entry_id": entry_id, "name": _canonical(members), "papers": len(papers), "mentions": len(members),
        "used": roles["used"], "created": roles["created"], "mentioned": roles["mentioned"],
        "years": json.dumps(dict(sorted(years.items()))), "platforms": [name for name, _ in platforms.most_common()],
        "link": links[0]["url"] if links else None, "link_source": links[0]["source"] if links else None,
        "links": len(links), "known_id": found.known_id if found else None, **_description(members),
    }


def _description(members: Sequence[Mapping]) -> dict:
    """One description from the papers': the longest content, the commonest type and domain, every field."""
    contents = [row["content"] for row in members if row.get("content")]
    types = Counter(row["type"] for row in members if row.get("type"))
    domains = Counter(row["domain"] for row in members if row.get("domain"))
    fields = Counter(field for row in members for field in row["fields"])
    return {"content": max(contents, key=len) if contents else None,
            "type": types.most_common(1)[0][0] if types else None,
            "domain": domains.most_common(1)[0][0] if domains else None,
            "fields": [name for name, _ in fields.most_common(20)]}
