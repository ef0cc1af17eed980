"""The document state S2's tools read and fill (`Workspace`), one dataset's course through it (`DatasetWork`),
and the base of a tool: a model-facing docstring, typed arguments, an observation string as its result."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import dspy

from dsminer.catalog.memory import KnownDataset
from dsminer.document.pdf import ParsedPaper
from dsminer.document.references import Reference
from dsminer.document.text import name_pattern
from dsminer.evidence.context import PaperContext, unread_context
from dsminer.evidence.grounding import LinkCandidate, Section, Verification
from dsminer.evidence.records import DatasetDetails, is_self_link
from dsminer.mentions.benchmarks import BenchmarkCues
from dsminer.mentions.candidates import MAX_CANDIDATES
from dsminer.mentions.selection import ChosenDataset, Selection
from dsminer.schema import DatasetRecord, PaperRefs

READ_CANDIDATES = 4  # candidate names the reading tools may add to the MAX_CANDIDATES the finder offers


@dataclass
class PaperView:
    """What reading the paper gives every step: body sentences, benchmark cues, the datasets' aliases."""

    paper: ParsedPaper
    body: list[str]
    cues: BenchmarkCues
    candidates: tuple[str, ...]  # the names step's candidate names, found once for every attempt
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    hints: dict[str, tuple[str, ...]] = field(default_factory=dict)  # more evidence lines per dataset (S2)
    # What the model steps have read so far, so that a retry reads something new: sentence indices (in
    # `paper.indexed_sentences()`) and table indices the names step was shown, each dataset's evidence text.
    read_sentences: set[int] = field(default_factory=set)
    read_tables: set[int] = field(default_factory=set)
    read_evidence: dict[str, str] = field(default_factory=dict)
    # The datasets of earlier papers (corpus memory) this paper writes, each with the name it writes.
    known: list[tuple[str, KnownDataset]] = field(default_factory=list)


@dataclass
class DatasetWork:
    """One dataset's course through the episode."""

    chosen: ChosenDataset
    links: list[LinkCandidate] | None = None
    details: DatasetDetails | None = None
    evidence: list[str] = field(default_factory=list)  # lines found by recovery tools
    recovery: list[str] = field(default_factory=list)  # recovery tools used for it
    stuck: tuple[str, ...] = ()  # what failed after its retries: "details" and/or "link"
    resolved: set[str] = field(default_factory=set)  # what of it the recovery fixed
    retried: set[str] = field(default_factory=set)  # the retry tools run after recovery
    verification: Verification | None = None
    record: DatasetRecord | None = None
    link_tools: dict[str, str] = field(default_factory=dict)  # the tool that found each link candidate

    @property
    def names(self) -> list[str]:
        return [self.chosen.name, *self.chosen.aliases]

    @property
    def open_issues(self) -> tuple[str, ...]:
        """What the dataset is still stuck on."""
        return tuple(kind for kind in self.stuck if kind not in self.resolved)

    @property
    def recovered(self) -> bool:
        return bool(self.stuck) and not self.open_issues

    @property
    def paper_links(self) -> list[LinkCandidate]:
        return [c for c in self.links or [] if c.source != "catalog"]

    def status(self) -> str:
        parts = [f"links {len(self.paper_links)}" if self.links is not None else "links not searched",
                 "described" if self.details is not None else "not described"]
        if self.open_issues:
            parts.append(f"stuck: {', '.join(self.open_issues)}" + (f" (tried {', '.join(self.recovery)})"
                                                               if self.recovery else ""))
        parts.append("verified" if self.verification is not None else "not verified")
        return f"{self.chosen.name}: {'; '.join(parts)}"


@dataclass
class Workspace:
    """The document state the constraints and the planner read, and the tools fill."""

    paper: ParsedPaper
    supplied: PaperRefs | None
    budget: int
    catalog_urls: dict[str, str] = field(default_factory=dict)  # known datasets' URLs, for the link search
    link_sources: dict[str, str] = field(default_factory=dict)  # where a known URL comes from (a paper, a catalogue)
    parsed: bool = False
    view: PaperView | None = None  # what reading the paper gave the model steps, once parsed
    first_context: PaperContext | None = None  # what the names step's first attempt reads, once parsed
    refs: PaperRefs | None = None
    tables_read: bool = False
    sections: list[Section] | None = None  # the data sections, once retrieved
    all_sections: list[Section] = field(default_factory=list)
    references: list[Reference] | None = None
    names: Selection | None = None  # what the names step kept, once it ran
    datasets: dict[str, DatasetWork] = field(default_factory=dict)
    records: list[DatasetRecord] | None = None
    failures: list[str] = field(default_factory=list)
    candidate_tools: dict[str, str] = field(default_factory=dict)  # the reading tool that added each candidate name
    steps: int = 0
    tools_used: Counter[str] = field(default_factory=Counter)

    @property
    def steps_left(self) -> int:
        return self.budget - self.steps

    def current(self) -> DatasetWork | None:
        """The first dataset, in rank order, not yet verified."""
        return next((d for d in self.datasets.values() if d.verification is None), None)

    def mandatory_steps(self) -> int:
        """Steps still needed to end with records: details and verification of each open dataset, the
        metadata when missing, the normalisation."""
        open_work = sum((d.details is None) + 1 for d in self.datasets.values() if d.verification is None)
        return open_work + (self.refs is None) + 1

    def describe(self) -> str:
        """The state for the planner, a few short lines."""
        paper = self.paper
        heads = ", ".join(dict.fromkeys(s.title for s in self.all_sections))[:300] or "none found"
        done = ", ".join(f"{tool} x{n}" if n > 1 else tool for tool, n in self.tools_used.items()) or "nothing"
        lines = [f"paper: {len(paper.pages)} pages, {len(paper.tables)} tables, "
                 f"reference list: {'yes' if self.has_reference_list() else 'no'}; sections: {heads}",
                 *self.unread_lines(), f"done: {done}"]
        if self.datasets:
            lines.append("datasets: " + " | ".join(d.status() for d in self.datasets.values()))
        elif self.names is not None:
            lines.append("datasets: none found")
        if self.failures:
            lines.append("failures: " + "; ".join(self.failures[-4:]))
        lines.append(f"steps left: {self.steps_left} of {self.budget}")
        return "\n".join(lines)

    def unread_lines(self) -> list[str]:
        """What the paper may still hold that no step has read, for the planner's reasons to choose: the data
        sections' and appendix's sentences and the tables the names step was not shown, the reference entries
        with URLs, and the candidate names outside what the names step reads (or would read, before it runs)."""
        view = self.view
        if view is None:
            return []
        read_sentences, read_tables = view.read_sentences, view.read_tables
        if self.names is None and self.first_context is not None:  # what the first attempt will read
            read_sentences, read_tables = self.first_context.sentences, self.first_context.tables
        unread = unread_context(self.paper, read_sentences, read_tables, max_chars=1 << 30)
        kinds = dict(unread.kinds) if unread is not None else {}
        parts = [f"{kinds[kind]} {label}" for kind, label in (
            ("data_section", "sentences of data sections"), ("appendix", "of an appendix"), ("tables", "tables"),
            ("named", "other sentences writing names")) if kinds.get(kind)]
        if self.references is not None:
            parts.append(f"{sum(bool(r.urls) for r in self.references)} reference entries with URLs")
        read = "\n".join(self.paper.indexed_sentences()[i][0].text for i in read_sentences)
        outside = [name for name in view.candidates if name not in read]
        lines = [f"not read by the names step: {', '.join(parts)}" if parts else "the names step reads every "
                 "sentence that may name data"]
        if outside:
            lines.append(f"candidate names outside what the names step reads: {', '.join(outside[:8])}")
        return lines

    def has_reference_list(self) -> bool:
        return any(in_refs for _, in_refs in self.paper.indexed_sentences())


_DESCRIPTIONS: dict[type, str] = {}


class Tool:
    """One atomic tool over the document state: a model-facing docstring, typed arguments, and an observation string
    as its result (the workspace holds what it found)."""

    name = ""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def describe(self) -> str:
        """`name(args): first docstring line`, from `dspy.Tool` as the planner reads it (built once per tool)."""
        if type(self) not in _DESCRIPTIONS:
            wrapped = dspy.Tool(self, name=self.name)
            args = ", ".join(f"{key}: {schema.get('type', 'any')}" for key, schema in wrapped.args.items())
            _DESCRIPTIONS[type(self)] = f"{self.name}({args}): {(wrapped.desc or '').strip().splitlines()[0]}"
        return _DESCRIPTIONS[type(self)]

    def work(self, dataset: str) -> DatasetWork:
        return self.ws.datasets[dataset]


def any_name(names: list[str]) -> re.Pattern[str] | None:
    """One pattern matching any of the names as the paper may write them."""
    patterns = [p.pattern for p in (name_pattern(n) for n in names if n.strip()) if p is not None]
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


def add_evidence(work: DatasetWork, lines: list[str]) -> int:
    """Add the lines not yet in the dataset's evidence; how many were new."""
    new = [line for line in dict.fromkeys(lines) if line not in work.evidence]
    work.evidence.extend(new)
    return len(new)


def add_links(work: DatasetWork, candidates: list[LinkCandidate], tool: str) -> int:
    """Add the link candidates not yet known (a link to the paper itself is not one), each noted as found by
    `tool`; how many were new."""
    work.links = work.links or []
    known = {c.url for c in work.links}
    new = [c for c in candidates if c.url not in known and not is_self_link(c.url)]
    work.links.extend(new)
    for candidate in new:
        work.link_tools.setdefault(candidate.url, tool)
    return len(new)


def add_candidates(ws: Workspace, names: list[str], tool: str) -> int:
    """Add names to the names step's candidates, up to MAX_CANDIDATES + READ_CANDIDATES in all, each noted as
    added by `tool`; how many were added."""
    view = ws.view
    known = {name.casefold() for name in view.candidates}
    new = [name for name in dict.fromkeys(names) if name.casefold() not in known]
    room = max(0, MAX_CANDIDATES + READ_CANDIDATES - len(view.candidates))
    view.candidates = (*view.candidates, *new[:room])
    for name in new[:room]:
        ws.candidate_tools[name.casefold()] = tool
    return len(new[:room])


def tool_credits(ws: Workspace) -> list[tuple[str, str]]:
    """Which tools found what the paper's records hold: (tool, what), for the candidate names that became
    datasets and the links the records carry."""
    credits = [(ws.candidate_tools[d.chosen.name.casefold()], f"the dataset name {d.chosen.name}")
               for d in ws.datasets.values() if d.chosen.name.casefold() in ws.candidate_tools]
    for work in ws.datasets.values():
        url = work.record.dataset_link if work.record is not None else None
        if url and work.link_tools.get(url):
            credits.append((work.link_tools[url], f"the link of {work.chosen.name}"))
    return credits
