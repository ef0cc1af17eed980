"""Model-free reading and grounding of a paper for the optimised agent (S2): keyword search, sections by
heading, link candidates for one dataset, evidence verification and record normalisation."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from dsminer.document.links import availability_links, canonical_url, links_for_name
from dsminer.document.pdf import ParsedPaper, Sentence, find_mention
from dsminer.document.references import Reference, references_for
from dsminer.document.sections import heading_title, is_data_section
from dsminer.document.text import name_pattern
from dsminer.evidence.records import is_self_link, spelled_link, url_names
from dsminer.mentions.names import name_problem
from dsminer.mentions.selection import same_dataset
from dsminer.schema import DatasetRecord, normalize_name

SNIPPET_CHARS = 240
MAX_HITS = 8
_SQUEEZE = re.compile(r"[^0-9a-z]+")
LinkSource = Literal["annotation", "text", "availability", "reference", "spelled", "catalog"]


@dataclass(frozen=True)
class Hit:
    """A sentence outside the reference list that contains the keyword: its page and a snippet around it."""

    page: int
    snippet: str


def _pattern(keyword: str) -> re.Pattern[str]:
    return name_pattern(keyword) or re.compile(re.escape(keyword.strip()), re.I)


def search_keywords(paper: ParsedPaper, keyword: str, limit: int = MAX_HITS) -> list[Hit]:
    """Up to `limit` body sentences containing `keyword` (whole words, spacing and case tolerant)."""
    if not keyword.strip():
        return []
    pattern = _pattern(keyword)
    hits: list[Hit] = []
    for sentence, in_refs in paper.indexed_sentences():
        match = None if in_refs else pattern.search(sentence.text)
        if match is not None:
            start = max(0, min(match.start() - SNIPPET_CHARS // 3, len(sentence.text) - SNIPPET_CHARS))
            hits.append(Hit(sentence.page, sentence.text[start:start + SNIPPET_CHARS]))
            if len(hits) >= limit:
                break
    return hits


@dataclass(frozen=True)
class Section:
    """A run of body sentences under one heading."""

    title: str
    page: int
    sentences: tuple[Sentence, ...]


def paper_sections(paper: ParsedPaper) -> list[Section]:
    """The paper's sections outside the reference list, in order (sentences before the first heading are
    left out)."""
    sections: list[Section] = []
    title: str | None = None
    run: list[Sentence] = []
    for sentence, in_refs in [*paper.indexed_sentences(), (None, True)]:
        heading = None if sentence is None or in_refs else heading_title(sentence.text)
        if sentence is not None and not in_refs and heading is None:
            if title is not None:
                run.append(sentence)
            continue
        if title is not None and run:
            sections.append(Section(title, run[0].page, tuple(run)))
        title, run = heading, []
    return sections


def find_sections(paper: ParsedPaper, heading: str) -> list[Section]:
    """The paper's sections that `heading` selects (see `select_sections`)."""
    return select_sections(paper_sections(paper), heading)


def select_sections(sections: Sequence[Section], heading: str) -> list[Section]:
    """Sections whose title contains every word of `heading` (case-folded); "data" selects every section
    where papers describe data and experiments."""
    if heading.strip().casefold() in ("data", "datasets and experiments"):
        return [section for section in sections if is_data_section(section.title)]
    words = heading.casefold().split()
    return [section for section in sections if words and all(word in section.title.casefold() for word in words)]


@dataclass(frozen=True)
class LinkCandidate:
    """A URL that may be a dataset's link, where it was found and the text that ties it to the dataset."""

    url: str
    source: LinkSource
    page: int | None
    support: str


def search_links(paper: ParsedPaper, names: Sequence[str], other_names: Sequence[str] = (),
                 references: Sequence[Reference] = (), created: bool = False,
                 catalog_urls: Mapping[str, str] | None = None) -> list[LinkCandidate]:
    """Candidate URLs for one dataset, best first: links the PDF ties to its name (annotations, URLs in a
    sentence, short paragraph or footnote naming it), for a dataset the paper creates the availability
    statements with a URL, URLs in the reference entries cited beside it, a paper URL spelling its name,
    and the catalog's URL (when a catalog is given; never tied to the paper). No arXiv pages."""
    found: dict[str, LinkCandidate] = {}

    def add(url: str, source: LinkSource, page: int | None, support: str) -> None:
        key = canonical_url(url)
        if url and not is_self_link(url) and key not in found:
            found[key] = LinkCandidate(url, source, page, support[:SNIPPET_CHARS])

    for link in links_for_name(paper, names):
        add(link.url, link.source, link.page, link.anchor or "written beside the name")
    if created:
        for link, sentence in availability_links(paper):
            add(link.url, "availability", sentence.page, sentence.text)
    for entry in references_for(paper, names, references):
        for url in entry.urls:
            add(url, "reference", entry.page, entry.text)
    spelled = spelled_link(paper, names, other_names)
    if spelled:
        add(spelled, "spelled", None, "a URL of the paper that spells the name")
    if catalog_urls:
        for name in names:
            url = catalog_urls.get(normalize_name(name))
            if url:
                add(url, "catalog", None, "the catalog's entry for this name")
    return list(found.values())


@dataclass(frozen=True)
class Verification:
    """Whether the paper supports a dataset: the name (exactly, or with spacing and punctuation folded), the
    page and quote of a mention, and whether the link is supported by the paper (None: no link)."""

    found: bool
    exact: bool
    page: int | None
    quote: str | None
    link_supported: bool | None

    @property
    def score(self) -> float:
        name = 1.0 if self.exact else 0.7 if self.found else 0.0
        return name if self.link_supported in (None, True) else name * 0.8


def _fuzzy_mention(paper: ParsedPaper, names: Sequence[str]) -> Sentence | None:
    keys = [_SQUEEZE.sub("", name.casefold()) for name in names]
    keys = [key for key in keys if len(key) >= 3]
    for sentence, in_refs in paper.indexed_sentences():
        squeezed = _SQUEEZE.sub("", sentence.text.casefold())
        if not in_refs and any(key in squeezed for key in keys):
            return sentence
    return None


def verify_evidence(paper: ParsedPaper, names: Sequence[str], link: str | None,
                    references: Sequence[Reference] = (), created: bool = False) -> Verification:
    """Check a dataset against the paper: a sentence naming it (exact, else fuzzy), and its link tied to a
    mention (`links_for_name`), written in a cited reference entry, a paper URL that spells its name, or for a
    dataset the paper creates, written in an availability statement."""
    mention = find_mention(paper, names)
    exact = mention is not None
    if mention is None:
        mention = _fuzzy_mention(paper, names)
    supported = None
    if link:
        key = canonical_url(link)
        tied = {canonical_url(item.url) for item in links_for_name(paper, names)}
        cited = {canonical_url(url) for entry in references_for(paper, names, references) for url in entry.urls}
        in_paper = {canonical_url(url) for url in paper.urls()}
        released = {canonical_url(item.url) for item, _ in availability_links(paper)} if created else set()
        supported = key in tied or key in cited or key in released or (key in in_paper and url_names(link, names))
    return Verification(mention is not None, exact, mention.page if mention else None,
                        mention.text if mention else None, supported)


def normalise_records(records: Sequence[DatasetRecord], text: str) -> tuple[list[DatasetRecord], list[tuple[str, str]]]:
    """One record per dataset: records naming one dataset ("CIFAR10" and "CIFAR-10", an abbreviation and
    its expansion) merged into the first with the others' names as aliases and the first link any of them
    has; records whose name is a citation, phrase, tool, model or other non-dataset (`name_problem`, the
    check every condition's selection makes) dropped. Returns the records and the
    dropped names with the reason."""
    kept: list[DatasetRecord] = []
    dropped: list[tuple[str, str]] = []
    for record in records:
        problem = name_problem(record.name)
        if problem:
            dropped.append((record.name, problem[1]))
            continue
        names = [record.name, *record.aliases]
        same = next((k for k in kept if any(same_dataset(a, b, text) for a in names for b in [k.name, *k.aliases])),
                    None)
        if same is None:
            kept.append(record)
            continue
        dropped.append((record.name, f"same dataset as {same.name}"))
        aliases = list(dict.fromkeys(a for a in [*same.aliases, *names] if a != same.name))
        update: dict[str, object] = {"aliases": aliases}
        if same.dataset_link is None and record.dataset_link is not None:
            update.update(dataset_link=record.dataset_link, platform=record.platform)
        kept[kept.index(same)] = same.model_copy(update=update)
    return kept, dropped

