"""Turn a dataset name and the model's description into a record, deciding by code what code can decide.

Every condition uses this: the evidence is the page and sentence where the name occurs, the link is
a URL the paper itself contains, and the platform follows from the link's host.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from dsminer.document.links import links_for_name, match_paper_url, platform_for_url
from dsminer.document.pdf import ParsedPaper, find_mention
from dsminer.document.text import find_urls
from dsminer.events import EventLog
from dsminer.evidence.context import is_reference_only
from dsminer.mentions.lexicon import GENERIC_URL_WORDS
from dsminer.schema import DatasetDescribe, DatasetRecord, Evidence, PaperRefs, make_dataset_id, normalize_name

MAX_QUOTE_CHARS = 500
_EMPTY = re.compile(r"^(|none|null|n/?a|unknown|not (provided|specified|mentioned|stated|given).*|no link.*|the link is not.*)$", re.I)


@dataclass
class DatasetDetails:
    """What the detail step proposed for one dataset; `link` is only a proposal."""

    content: str | None = None
    data_type: str | None = None
    domain: str | None = None
    fields: list[str] = field(default_factory=list)
    link: str | None = None


def clean_text(value: object) -> str | None:
    """Model text with placeholders such as 'N/A' or 'not provided' turned into None."""
    if value is None:
        return None
    text = " ".join(str(value).split()).strip(" \"'")
    return None if _EMPTY.match(text) else text


def clean_list(values: object) -> list[str]:
    if not isinstance(values, (list, tuple)):
        values = [values] if values else []
    return [text for text in (clean_text(v) for v in values) if text]


def first_url(text: str | None) -> str | None:
    """The first URL in a model's answer, which may wrap it in prose or copy list formatting."""
    found = find_urls(text or "")
    return found[0] if found else None


def resolve_link(paper: ParsedPaper, names: Sequence[str], proposed: str | None, events: EventLog | None,
                 other_names: Sequence[str] = ()) -> str | None:
    """The dataset's link, from the PDF only.

    A link the PDF ties to the name (same sentence, its footnote, an anchor over it) wins, and the
    model's proposal only breaks ties among those. A link the PDF ties to another of the paper's datasets as well
    counts only when the URL spells this one's name ("unpaywall.org" of "Unpaywall", not of the "Web of Science"
    beside it). Otherwise a proposal is kept only if the paper
    contains it and the URL itself names the dataset; the paper's own arXiv page never counts.
    Rejected proposals are logged with the reason.
    """
    tied_elsewhere = cache(lambda: _tied_urls(paper, other_names, names))  # read once, only where needed
    tied = [url for url in (link.url for link in links_for_name(paper, names)) if not is_self_link(url)]
    if tied and other_names:  # a URL the paper ties to other datasets too goes with the one it spells, if any
        tied = [url for url in tied
                if url not in tied_elsewhere() or url_names(url, names) or _url_has_acronym(url, names)]
    proposed = first_url(proposed)
    if not tied and not proposed:
        return spelled_link(paper, names, other_names, tied_elsewhere())
    matched = match_paper_url(proposed, paper.urls()) if proposed else None
    if matched in tied:
        return matched
    if proposed:
        reason = ("not in the paper" if matched is None else "the paper's own page" if is_self_link(matched)
                  else "tied to another dataset" if matched in tied_elsewhere()
                  else None if tied or url_names(matched, names) else "not tied to the dataset in the paper")
        if reason:
            _reject(events, paper, names[0], proposed, reason)
            matched = None
    return tied[0] if tied else matched


def spelled_link(paper: ParsedPaper, names: Sequence[str], other_names: Sequence[str] = (),
                 taken: set[str] | None = None) -> str | None:
    """A URL of the paper, outside its reference list, that spells the dataset's name and is not tied to
    another dataset nor the paper's own page; None when there is none. `taken`: the URLs the paper ties to the
    other datasets, when already read."""
    taken = _tied_urls(paper, other_names, names) if taken is None else taken
    for link in paper.links:
        if (link.url not in taken and not is_self_link(link.url) and url_names(link.url, names)
                and not is_reference_only(paper, link)):
            return link.url
    return None


def is_self_link(url: str) -> bool:
    """A link to a paper's arXiv page: the paper itself (or a cited one), never a dataset."""
    return bool(re.search(r"arxiv\.org/(abs|pdf)/", url, re.I))


def _url_has_acronym(url: str, names: Sequence[str], opens: bool = False) -> bool:
    """Whether a part of the URL, between dots and slashes, is (with `opens`, opens with) an acronym of three letters
    or more that one of the names is written with ("uci" of "archive.ics.uci.edu" for "UCI ML")."""
    parts = [part for part in re.split(r"[^0-9a-z]+", url.casefold()) if part]
    acronyms = [word.casefold() for name in names for word in re.findall(r"\b[A-Z]{3,}\b", name)]
    return any(part.startswith(word) if opens else part == word for word in acronyms for part in parts)


def url_spells(url: str, names: Sequence[str]) -> bool:
    """Whether the URL spells one of the names whole, a distinctive word of one whole in its path (not its host: a
    university's host serves many datasets; not a piece of a word: "multi" of "Multi-Genre"), or a part of it,
    between dots and slashes, opens with an acronym of three letters or more that a name is written with
    ("CBTest.tgz" for "CBT")."""
    path = _fold(re.sub(r"^[a-z][a-z0-9+.\-]*://[^/]*", "", url.casefold()))
    words = {_fold(word) for name in names for word in name.split()}
    return (_spells_whole(_fold(url), names)
            or any(len(word) >= 5 and word not in GENERIC_URL_WORDS and word in path for word in words)
            or _url_has_acronym(url, names, opens=True))


def url_names(url: str, names: Sequence[str]) -> bool:
    """True when the URL spells one of the names, or a distinctive word of one (5 letters or more)."""
    folded = _fold(url)
    return _spells_whole(folded, names) or any(
        word in folded for name in names for word in re.findall(r"[a-z]{5,}", name.casefold())
        if word not in GENERIC_URL_WORDS)


def _fold(text: str) -> str:
    """Lower case, letters and digits only: how a URL and a name are compared."""
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def _spells_whole(folded_url: str, names: Sequence[str]) -> bool:
    """Whether the folded URL holds one of the names whole (four characters or more once folded)."""
    return any(len(key := normalize_name(name)) >= 4 and key in folded_url for name in names)


def _tied_urls(paper: ParsedPaper, other_names: Sequence[str], own: Sequence[str]) -> set[str]:
    others = [name for name in other_names if name not in own]
    return {link.url for name in others for link in links_for_name(paper, [name])}


def _reject(events: EventLog | None, paper: ParsedPaper, dataset: str, url: str | None, reason: str) -> None:
    if events is not None:
        events.emit("link_rejected", paper=paper.file_name, step="details", dataset=dataset, url=url, reason=reason)


def build_record(
    paper: ParsedPaper,
    refs: PaperRefs,
    name: str,
    details: DatasetDetails,
    aliases: Sequence[str] = (),
    events: EventLog | None = None,
    other_names: Sequence[str] = (),
    role: str | None = None,
) -> DatasetRecord:
    """Assemble the record; evidence, link and platform are decided here, not by the model.

    `other_names` are the paper's other datasets, whose own links are not this one's."""
    names = [name, *aliases]
    mention = find_mention(paper, names)
    if mention is None and events is not None:
        events.emit("evidence_missing", paper=paper.file_name, step="details", dataset=name)
    link = resolve_link(paper, names, details.link, events, other_names)
    return DatasetRecord(
        dataset_id=make_dataset_id(paper.file_name, name),
        name=name,
        aliases=list(aliases),
        role=role,
        dataset_describe=DatasetDescribe(
            content=clean_text(details.content),
            type=clean_text(details.data_type),
            domain=clean_text(details.domain),
            fields=clean_list(details.fields),
        ),
        paper_refs=refs,
        dataset_link=link,
        platform=platform_for_url(link),
        evidence=Evidence(
            source=paper.file_name,
            page=mention.page if mention else None,
            quote=mention.text[:MAX_QUOTE_CHARS] if mention else None,
        ),
    )


def refs_from_metadata(
    title: object, authors: object, institutions: object, venue: object, year: object, supplied: PaperRefs | None = None
) -> PaperRefs:
    """Paper references from the metadata step; supplied values win, `is_fellow` is never guessed."""
    extracted = PaperRefs(
        title=clean_text(title),
        authors=clean_list(authors),
        institutions=clean_list(institutions),
        venue=clean_text(venue),
        year=_plausible_year(year),
    )
    if supplied is None:
        return extracted
    merged = {key: value for key, value in supplied.model_dump().items() if value not in (None, [], "")}
    return extracted.model_copy(update=merged)


def complete_refs(supplied: PaperRefs | None) -> PaperRefs | None:
    """The supplied paper references when they make the metadata step needless (they give the title), else None.
    Supplied values always win over extracted ones (`refs_from_metadata`)."""
    return supplied if supplied is not None and supplied.title else None


def _plausible_year(value: object) -> int | None:
    match = re.search(r"\b(19[5-9]\d|20\d\d)\b", str(value or ""))
    return int(match.group(1)) if match else None
