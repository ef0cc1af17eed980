"""S2's twelve atomic tools, each bound to one episode: six read the PDF, three ground and normalise in pure
code, three call the model through S1's reflective loop. A tool's docstring is what the planner reads; its
result is an observation string, and the workspace holds what it found."""

from __future__ import annotations

import re
from typing import Any, Protocol

import dspy

from dsminer.document.links import platform_for_url
from dsminer.document.pdf import ParsedPaper
from dsminer.document.references import extract_references, references_for
from dsminer.document.text import find_urls, name_pattern, within_budget
from dsminer.events import EventLog
from dsminer.evidence.grounding import (
    LinkCandidate,
    normalise_records,
    paper_sections,
    search_keywords,
    search_links,
    select_sections,
    verify_evidence,
)
from dsminer.evidence.records import DatasetDetails, build_record, is_self_link, resolve_link, url_names
from dsminer.mentions.candidates import is_name_shaped, sentence_candidates
from dsminer.programs.agent.reflection import reflect_on_details
from dsminer.programs.agent.step_tools import FoundNames
from dsminer.programs.s2.state import DatasetWork, Workspace
from dsminer.schema import PaperRefs

MAX_CANDIDATES = 16  # candidate names offered to the names step, with those the PDF tools added
HINT_CHARS = 400  # recovered evidence and link hints added to a detail step's evidence


class Episode(Protocol):
    """What a tool uses of the episode it is bound to (`dsminer.programs.s2.episode.Episode`)."""

    agent: Any  # the OptimisedAgent: its step tools, counters, catalogue links
    paper: ParsedPaper
    ws: Workspace
    view: Any  # the parsed view the model steps read (candidates, aliases, hints)
    plan: list[str]
    events: EventLog
    options: Any

    def execute(self, step: Any, state: Any, target: str | None = None) -> Any: ...

    def paper_refs(self) -> PaperRefs: ...

    def emit(self, kind: str, step: str | None, **fields: Any) -> None: ...


_DESCRIPTIONS: dict[type, str] = {}


class Tool:
    """One atomic tool of the episode: a model-facing docstring, typed arguments, and an observation string
    as its result (the workspace holds what it found)."""

    name = ""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.ws = episode.ws

    def describe(self) -> str:
        """`name(args): first docstring line`, from `dspy.Tool` as the planner reads it (built once per tool)."""
        if type(self) not in _DESCRIPTIONS:
            wrapped = dspy.Tool(self, name=self.name)
            args = ", ".join(f"{key}: {schema.get('type', 'any')}" for key, schema in wrapped.args.items())
            _DESCRIPTIONS[type(self)] = f"{self.name}({args}): {(wrapped.desc or '').strip().splitlines()[0]}"
        return _DESCRIPTIONS[type(self)]

    def work(self, dataset: str) -> DatasetWork:
        return self.ws.datasets[dataset]


class ParsePdf(Tool):
    """Read the parsed PDF: sentences outside the references, benchmark cues, section headings, candidate names."""

    name = "parse_pdf"

    def __call__(self) -> str:
        episode = self.episode
        episode.view = episode.agent.tools.call("parse", episode.paper)
        self.ws.parsed = True
        self.ws.all_sections = paper_sections(episode.paper)
        return (f"{len(episode.view.body)} sentences, {len(self.ws.all_sections)} sections, "
                f"{len(episode.paper.links)} links, {len(episode.view.candidates)} candidate names; "
                f"{episode.view.cues.describe()}")


class ReadPage(Tool):
    """Read one page: its sentences naming the current dataset, and URLs spelling its name, become its evidence."""

    name = "read_page"

    def __call__(self, page: int) -> str:
        paper, work = self.episode.paper, self.ws.current()
        text = next((p.text for p in paper.pages if p.number == page), "")
        work.recovery.append(self.name)
        pattern = _any_name(work.names)
        lines = [s.text for s, _ in paper.indexed_sentences() if s.page == page and pattern and pattern.search(s.text)]
        urls = [link.url for link in paper.links if link.page == page and url_names(link.url, work.names)]
        added = _add_evidence(work, [f"[p{page}] {line}" for line in lines])
        new = _add_links(work, [LinkCandidate(url, "text", page, "a URL on the page spelling its name")
                                for url in urls])
        return f"page {page}: {len(text)} characters, {added} lines about {work.chosen.name}, {new} new URLs" \
            if added or new else f"nothing new about {work.chosen.name} on page {page}"


class RetrieveSection(Tool):
    """Retrieve sections by heading (e.g. Datasets, Experiments, Evaluation; "data" for all data sections)."""

    name = "retrieve_section"

    def __call__(self, heading: str) -> str:
        ws, work = self.ws, self.ws.current() if self.ws.names is not None else None
        sections = select_sections(ws.all_sections, heading)
        self.episode.agent.episode_counters.add(section_uses=1)
        if work is None:
            ws.sections = sections
            added = _add_candidates(self.episode, [name for s in sections for sentence in s.sentences
                                                   for name in sentence_candidates(sentence.text)])
            titles = ", ".join(s.title for s in sections)
            return f"{len(sections)} sections ({titles}); {added} new candidate names" if sections else \
                f"nothing: no section heading matches {heading}"
        work.recovery.append(self.name)
        pattern = _any_name(work.names)
        lines = [f"[p{s.page}] {t.text}" for s in sections for t in s.sentences if pattern and pattern.search(t.text)]
        urls = [LinkCandidate(url, "text", s.page, t.text) for s in sections for t in s.sentences
                if pattern and pattern.search(t.text) for url in find_urls(t.text)]
        added, new = _add_evidence(work, lines), _add_links(work, urls)
        return f"{added} section lines and {new} URLs about {work.chosen.name}" if added or new else \
            f"nothing about {work.chosen.name} in the {heading} sections"


class ExtractTables(Tool):
    """Read the tables: captions, header rows and first columns; their row names join the candidate names."""

    name = "extract_tables"

    def __call__(self) -> str:
        tables = self.episode.paper.tables
        self.ws.tables_read = True
        self.episode.agent.episode_counters.add(table_uses=1)
        work = self.ws.current() if self.ws.names is not None else None
        if work is not None:
            work.recovery.append(self.name)
            pattern = _any_name(work.names)
            added = _add_evidence(work, [f"[p{t.page}] {t.describe(300)}" for t in tables
                                         if pattern and pattern.search(t.describe())])
            return f"{added} table lines about {work.chosen.name}" if added else \
                f"nothing: no table names {work.chosen.name}"
        names = [cell for table in tables for cell in table.first_column if is_name_shaped(cell)]
        added = _add_candidates(self.episode, names)
        captions = "; ".join((t.caption or "Table")[:60] for t in tables[:4])
        return f"{len(tables)} tables ({captions}); {added} new candidate names" if tables else "nothing: no tables"


class SearchKeywords(Tool):
    """Search the paper's sentences for a keyword or a dataset's name: hits with page and snippet."""

    name = "search_keywords"

    def __call__(self, keyword: str) -> str:
        hits = search_keywords(self.episode.paper, keyword)
        work = self.ws.current() if self.ws.names is not None else None
        if work is not None:
            work.recovery.append(self.name)
            _add_evidence(work, [f"[p{h.page}] {h.snippet}" for h in hits])
            _add_links(work, [LinkCandidate(url, "text", h.page, h.snippet) for h in hits
                              for url in find_urls(h.snippet)])
        return f"{len(hits)} hits for {keyword}: " + " | ".join(f"p{h.page}" for h in hits) if hits else \
            f"nothing: no sentence writes {keyword}"


class ExtractReferences(Tool):
    """Read the reference list: entries with their URLs and DOIs, in-text citation markers mapped to them."""

    name = "extract_references"

    def __call__(self) -> str:
        ws = self.ws
        if ws.references is None:
            ws.references = extract_references(self.episode.paper)
        self.episode.agent.episode_counters.add(reference_uses=1)
        work = ws.current() if ws.names is not None else None
        if work is None:
            with_urls = sum(bool(r.urls) for r in ws.references)
            return (f"{len(ws.references)} entries, {with_urls} with URLs" if ws.references
                    else "nothing: no reference list")
        work.recovery.append(self.name)
        cited = references_for(self.episode.paper, work.names, ws.references)
        _add_evidence(work, [f"cited: {entry.text[:200]}" for entry in cited])
        new = _add_links(work, [LinkCandidate(url, "reference", entry.page, entry.text) for entry in cited
                                for url in entry.urls])
        return f"{len(cited)} entries cited beside {work.chosen.name}, {new} new URLs" if cited else \
            f"nothing: no entry cited beside {work.chosen.name}"


class ExtractMetadata(Tool):
    """Model: the paper's title, authors, institutions, venue and year from its first page."""

    name = "extract_metadata"

    def __call__(self) -> str:
        refs = self.episode.paper_refs()
        self.ws.refs = refs
        return f"title: {refs.title or '-'}; {len(refs.authors)} authors; year {refs.year or '-'}"


class ExtractDatasetNames(Tool):
    """Model: decide which names of the paper are datasets it uses or creates (with reflection and retries)."""

    name = "extract_dataset_names"

    def __call__(self) -> str:
        episode, ws = self.episode, self.ws
        ws.names = episode.execute(episode.agent.steps["names"], FoundNames())
        chosen = ws.names.selection.chosen
        ws.datasets = {d.name: DatasetWork(d) for d in chosen}
        episode.view.aliases = {d.name: d.aliases for d in chosen}
        episode.plan += [f"details:{d.name}" for d in chosen]
        return f"{len(chosen)} datasets: {', '.join(d.name for d in chosen)}" if chosen else "nothing: no dataset kept"


class ExtractDetails(Tool):
    """Model: describe one dataset from its evidence, with its link candidates as hints (reflection and retries)."""

    name = "extract_details"

    def __call__(self, dataset: str) -> str:
        episode, work = self.episode, self.work(dataset)
        links = (f"link candidate ({c.source}): {c.url}" for c in work.paper_links[:2])
        hints = tuple(within_budget([*work.evidence, *links], HINT_CHARS))
        episode.view.hints = {**episode.view.hints, dataset: hints}
        episode.agent.episode_counters.add(hinted_details=bool(hints))
        if work.details is not None:
            work.retried.add(self.name)
        details = episode.execute(episode.agent.steps["details"], DatasetDetails(), dataset)
        score = reflect_on_details(dataset, details).score
        work.details = details
        if score < episode.options.quality_threshold:
            work.stuck = tuple(dict.fromkeys([*work.stuck, "details"]))
        elif "details" in work.stuck:
            work.resolved.add("details")
        if not work.paper_links and "link" not in work.stuck and work.links is not None:
            work.stuck = (*work.stuck, "link")
        return f"{dataset}: score {score:.2f}; type {details.data_type or '-'}" + (
            f"; stuck ({', '.join(work.open_issues)})" if work.open_issues else "")


class SearchLinks(Tool):
    """Find candidate URLs for one dataset: link annotations, text URLs, footnotes, cited references, the catalog."""

    name = "search_links"

    def __call__(self, dataset: str) -> str:
        episode, work = self.episode, self.work(dataset)
        others = [name for name in self.ws.datasets if name != dataset]
        found = search_links(episode.paper, work.names, others, self.ws.references or (), work.chosen.role == "created",
                             episode.agent.catalog_urls)
        if work.links is not None:
            work.retried.add(self.name)
        _add_links(work, found) if work.links is not None else setattr(work, "links", found)
        return f"{len(work.paper_links)} links for {dataset}: " + ", ".join(c.url for c in work.paper_links[:3]) \
            if work.paper_links else f"nothing: no link for {dataset} in the paper"


class VerifyEvidence(Tool):
    """Check one dataset against the paper: its name (exact or fuzzy) with page and quote, its link's support."""

    name = "verify_evidence"

    def __call__(self, dataset: str) -> str:
        episode, ws, work = self.episode, self.ws, self.work(dataset)
        others = [name for name in ws.datasets if name != dataset]
        link = resolve_link(episode.paper, work.names, None, episode.events, others)
        if link is None:  # the candidates the link search and the recovery found, checked below
            link = next((c.url for c in work.paper_links), None)
        verification = verify_evidence(episode.paper, work.names, link, ws.references or (),
                                       created=work.chosen.role == "created")
        work.verification = verification
        if verification.link_supported is False:
            episode.emit("link_rejected", "verify_evidence", dataset=dataset, url=link,
                         reason="not supported by the paper")
            link = None
        elif link is not None and "link" in work.stuck:
            work.resolved.add("link")
        counts = episode.agent.episode_counters
        counts.add(links_checked=verification.link_supported is not None,
                   links_supported=verification.link_supported is True)
        record = build_record(episode.paper, ws.refs or ws.supplied or PaperRefs(), dataset,
                              work.details or DatasetDetails(), work.chosen.aliases, episode.events,
                              other_names=list(ws.datasets), role=work.chosen.role)
        work.record = record.model_copy(update={"dataset_link": link, "platform": platform_for_url(link)})
        return (f"{dataset}: {'named' if verification.exact else 'fuzzy match' if verification.found else 'not found'}"
                f" (p{verification.page}); link {link or 'none'}")


class NormaliseRecords(Tool):
    """Normalise the records: one dataset's names merged, non-datasets and names the paper lacks dropped."""

    name = "normalise_records"

    def __call__(self) -> str:
        ws, episode = self.ws, self.episode
        if ws.refs is None:
            ws.refs = ws.supplied or PaperRefs()
        records = [d.record for d in ws.datasets.values()
                   if d.record is not None and d.verification is not None and d.verification.found]
        missing = [d.chosen.name for d in ws.datasets.values()
                   if d.verification is not None and not d.verification.found]
        kept, dropped = normalise_records(records, episode.paper.text)
        dropped += [(name, "not in the paper") for name in missing]
        unfinished = [d.chosen.name for d in ws.datasets.values() if d.record is None]
        ws.records = [r.model_copy(update={"paper_refs": ws.refs}) for r in kept]
        episode.emit("result", "normalise", kept=[r.name for r in ws.records],
                     dropped=[{"name": n, "reason": why} for n, why in dropped], unfinished=unfinished)
        return f"{len(ws.records)} records; dropped {len(dropped)}; unfinished {len(unfinished)}"


TOOLS: tuple[type[Tool], ...] = (ParsePdf, ReadPage, RetrieveSection, ExtractTables, SearchKeywords,
                                 ExtractReferences, ExtractMetadata, ExtractDatasetNames, ExtractDetails,
                                 SearchLinks, VerifyEvidence, NormaliseRecords)


def build_tools(episode: Episode) -> list[Tool]:
    """The twelve tools bound to one episode."""
    return [tool(episode) for tool in TOOLS]


def _any_name(names: list[str]) -> re.Pattern[str] | None:
    patterns = [p.pattern for p in (name_pattern(n) for n in names if n.strip()) if p is not None]
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


def _add_evidence(work: DatasetWork, lines: list[str]) -> int:
    new = [line for line in dict.fromkeys(lines) if line not in work.evidence]
    work.evidence.extend(new)
    return len(new)


def _add_links(work: DatasetWork, candidates: list[LinkCandidate]) -> int:
    work.links = work.links or []
    known = {c.url for c in work.links}
    new = [c for c in candidates if c.url not in known and not is_self_link(c.url)]
    work.links.extend(new)
    return len(new)


def _add_candidates(episode: Episode, names: list[str]) -> int:
    view = episode.view
    known = {name.casefold() for name in view.candidates}
    new = [name for name in dict.fromkeys(names) if name.casefold() not in known]
    room = max(0, MAX_CANDIDATES - len(view.candidates))
    view.candidates = (*view.candidates, *new[:room])
    return len(new[:room])
