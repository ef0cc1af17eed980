"""S2: the optimised agent.

Twelve atomic tools work on one paper's document state (`Workspace`): six PDF tools and three grounding
tools in pure code, three model tools (the metadata, names and details signatures S0 and S1 use). At each
step the constraints say which tools the state allows; a planner picks one (the model, with a Literal over
the allowed tools, or a fixed fallback order, which also answers when the model's choice fails or is not
allowed). The model tools run through S1's reflective loop (reflection, retries, memory). A dataset whose
details or link failed after its retries is stuck, and the section, table, keyword, page and reference tools
try to recover it. Every episode ends within its step budget with verified, normalised records.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import dspy

from dsminer.programs.agent import AgentController, AgentOptions, ReflectiveAgent, step_span
from dsminer.programs.agent_tools import COUNTS_LOCK, Counts, FoundNames
from dsminer.programs.steps import run_step
from dsminer.events import EventLog
from dsminer.schema import DatasetRecord, PaperRefs
from dsminer.signatures import ChooseNextTool, choose_among
from dsminer.tools.candidates import is_name_shaped, sentence_candidates
from dsminer.tools.grounding import (
    LinkCandidate,
    Section,
    Verification,
    normalise_records,
    paper_sections,
    search_keywords,
    search_links,
    select_sections,
    verify_evidence,
)
from dsminer.tools.links import platform_for_url
from dsminer.tools.memory import MemoryStore
from dsminer.tools.pdf import ParsedPaper
from dsminer.tools.records import DatasetDetails, build_record, complete_refs, is_self_link, resolve_link, url_names
from dsminer.tools.references import Reference, extract_references, references_for
from dsminer.tools.reflection import reflect_on_details
from dsminer.tools.selection import ChosenDataset
from dsminer.tools.text import find_urls, name_pattern, within_budget

# The fallback order: the first allowed tool in this order is the deterministic planner's choice.
TOOL_ORDER = ("parse_pdf", "extract_metadata", "extract_tables", "retrieve_section", "extract_references",
              "search_keywords", "read_page", "extract_dataset_names", "search_links", "extract_details",
              "verify_evidence", "normalise_records")
# Recovery tools for a stuck dataset, best first for what it lacks: a link is most often in its cited reference
# or a sentence naming it; a description in its data section, a table or the page that mentions it.
RECOVERY_TOOLS = {"link": ("extract_references", "search_keywords", "read_page", "retrieve_section"),
                  "details": ("retrieve_section", "extract_tables", "search_keywords", "read_page")}
MAX_RECOVERY_TOOLS = 2  # recovery tools tried per stuck dataset before its retry
MAX_CANDIDATES = 16  # candidate names offered to the names step, with those the PDF tools added
HINT_CHARS = 400  # recovered evidence and link hints added to a detail step's evidence
PLANNER_TOKENS = 64
LESSON_CHARS = 300  # memory injected into a prompt, after compression
_DATA_HEADINGS = "data"


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
    parsed: bool = False
    refs: PaperRefs | None = None
    tables_read: bool = False
    sections: list[Section] | None = None  # the data sections, once retrieved
    all_sections: list[Section] = field(default_factory=list)
    references: list[Reference] | None = None
    names: FoundNames | None = None
    datasets: dict[str, DatasetWork] = field(default_factory=dict)
    records: list[DatasetRecord] | None = None
    failures: list[str] = field(default_factory=list)
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
                 f"done: {done}"]
        if self.datasets:
            lines.append("datasets: " + " | ".join(d.status() for d in self.datasets.values()))
        elif self.names is not None:
            lines.append("datasets: none found")
        if self.failures:
            lines.append("failures: " + "; ".join(self.failures[-4:]))
        lines.append(f"steps left: {self.steps_left} of {self.budget}")
        return "\n".join(lines)

    def has_reference_list(self) -> bool:
        return any(in_refs for _, in_refs in self.paper.indexed_sentences())


def allowed_tools(ws: Workspace) -> list[str]:
    """The tools the hard constraints allow now, the deterministic choice first.

    Parse first; the reading tools and the names step before any dataset; then for each dataset in rank
    order its link search, its details, (if stuck) recovery tools best for what it lacks and a retry, and
    its verification; the normalisation last. Verification and normalisation only after detail extraction.
    When the steps left are only enough to finish, the optional tools are left out."""
    if not ws.parsed:
        return ["parse_pdf"]
    if ws.records is not None or ws.steps_left <= 0:
        return []
    if ws.steps_left == 1:
        return ["normalise_records"]
    spare = ws.steps_left - ws.mandatory_steps() - (ws.names is None)
    allowed = ["extract_metadata"] if ws.refs is None else []
    if ws.names is None:
        if spare > 0:
            allowed += [tool for tool, open_ in (
                ("extract_tables", not ws.tables_read and bool(ws.paper.tables)),
                ("retrieve_section", ws.sections is None),
                ("extract_references", ws.references is None and ws.has_reference_list())) if open_]
        return [*allowed, "extract_dataset_names"]
    work = ws.current()
    if work is None:
        return allowed or ["normalise_records"]
    if work.details is None:
        return [*allowed, "search_links" if work.links is None and spare > 0 else "extract_details"]
    retries = [tool for kind, tool in (("details", "extract_details"), ("link", "search_links"))
               if kind in work.open_issues and tool not in work.retried]
    if retries and spare > 1:
        if len(work.recovery) < MAX_RECOVERY_TOOLS:
            usable = {"extract_references": ws.has_reference_list(), "extract_tables": bool(ws.paper.tables)}
            allowed += [tool for kind in work.open_issues for tool in RECOVERY_TOOLS[kind]
                        if tool not in work.recovery and usable.get(tool, True)]
        if work.recovery:
            allowed += retries
    return list(dict.fromkeys([*allowed, "verify_evidence"]))


def compress_lessons(lessons: tuple[str, ...] | list[str], max_chars: int = LESSON_CHARS) -> tuple[str, ...]:
    """Lessons as injected: first sentence of each, duplicates out, within `max_chars` in all."""
    firsts: dict[str, str] = {}
    for lesson in lessons:
        first = re.split(r"(?<=[.!?])\s", lesson.strip(), maxsplit=1)[0]
        key = re.sub(r"\W+", " ", first.casefold()).strip()
        if key:
            firsts.setdefault(key, first)
    return tuple(within_budget(firsts.values(), max_chars, skip=True))


@dataclass
class PlannerCounters(Counts):
    """Run-level counts of the planner and the episodes, logged as MLflow metrics."""

    papers: int = 0
    steps: int = 0
    distinct_tools: int = 0
    decisions_model: int = 0
    decisions_fallback: int = 0
    decisions_forced: int = 0
    invalid_proposals: int = 0
    budget_ends: int = 0
    stuck: int = 0
    recovered: int = 0
    evidence_lines: int = 0  # lines the recovery tools added to stuck datasets' evidence
    hinted_details: int = 0  # detail steps whose prompt carried recovered evidence or link candidates
    section_uses: int = 0
    table_uses: int = 0
    reference_uses: int = 0
    records: int = 0
    records_with_link: int = 0
    links_checked: int = 0
    links_supported: int = 0


class OptimisedAgent(ReflectiveAgent):
    """S2: the reflective agent's model steps, reflection and memory, as three of twelve tools chosen by a
    planner from the document state."""

    def __init__(self, options: AgentOptions = AgentOptions(), memory: MemoryStore | None = None,
                 catalog: frozenset[str] = frozenset(), planner: str = "llm", step_budget: int = 40,
                 planner_memory: bool = True, catalog_urls: dict[str, str] | None = None) -> None:
        super().__init__(options, memory, catalog)
        self.planner_mode = planner
        self.step_budget = step_budget
        self.planner_memory = planner_memory
        self.catalog_urls = catalog_urls or {}
        self.planner = dspy.Predict(ChooseNextTool, max_tokens=PLANNER_TOKENS)
        self.episode_counters = PlannerCounters()
        self.tool_calls: Counter[str] = Counter()

    def forward(self, paper: ParsedPaper, supplied: PaperRefs | None = None,
                events: EventLog | None = None) -> dspy.Prediction:
        """The paper's records, as `Prediction.records`."""
        if self.memory is not None:
            self.memory.start_paper()
        return dspy.Prediction(records=Episode(self, paper, supplied, events or EventLog()).run())

    def run_metrics(self) -> dict[str, float]:
        """S1's counts and per-tool statistics, with the planner's and the episodes' (see PlannerCounters)."""
        counts = self.episode_counters
        papers = max(counts.papers, 1)
        derived = {
            "s2.tool_diversity": counts.distinct_tools / papers,
            "s2.steps_per_paper": counts.steps / papers,
            "s2.link_rate": counts.records_with_link / counts.records if counts.records else 0.0,
            "s2.link_precision": counts.links_supported / counts.links_checked if counts.links_checked else 0.0,
            "s2.retry_productivity": (self.counters.productive_retries / self.counters.retries
                                      if self.counters.retries else 0.0),
        }
        raw = {f"s2.{key}": float(value) for key, value in counts.__dict__.items()}
        calls = {f"s2.calls.{tool}": float(self.tool_calls[tool]) for tool in TOOL_ORDER}
        return {**super().run_metrics(), **raw, **calls, **{k: round(v, 4) for k, v in derived.items()}}


class Episode(AgentController):
    """One paper under S2: the planner loop over the twelve tools, with S1's reflective loop for the model
    tools."""

    def __init__(self, agent: OptimisedAgent, paper: ParsedPaper, supplied: PaperRefs | None,
                 events: EventLog) -> None:
        super().__init__(agent, paper, supplied, events)
        self.agent: OptimisedAgent = agent
        self.ws = Workspace(paper, supplied, agent.step_budget, refs=complete_refs(supplied))
        self.tools = {tool.name: tool for tool in build_tools(self)}

    def run(self) -> list[DatasetRecord]:
        ws, counts = self.ws, self.agent.episode_counters
        self.emit("thought", "plan", goal=self.goal, planner=self.agent.planner_mode, budget=ws.budget)
        while True:
            allowed = allowed_tools(ws)
            if not allowed:
                break
            tool, args = self.decide(allowed)
            self.call_tool(tool, args)
        if ws.records is None:  # the budget ran out before the normalisation
            counts.add(budget_ends=1)
            self.emit("stop", "plan", reason="step_budget", steps=ws.steps, budget=ws.budget)
            self.tools["normalise_records"]()
        records = ws.records or []
        works = ws.datasets.values()
        counts.add(papers=1, steps=ws.steps, distinct_tools=len(ws.tools_used),
                   stuck=sum(bool(d.stuck) for d in works), recovered=sum(d.recovered for d in works),
                   evidence_lines=sum(len(d.evidence) for d in works), records=len(records),
                   records_with_link=sum(r.dataset_link is not None for r in records))
        with COUNTS_LOCK:
            self.agent.tool_calls.update(ws.tools_used)
        return records

    def decide(self, allowed: list[str]) -> tuple[str, dict[str, Any]]:
        """The planner's choice among the allowed tools, with its source: forced (one tool allowed, no call),
        model, fallback (deterministic mode), or rejected (the model's answer named no allowed tool, or its call
        failed; the fallback answers)."""
        counts = self.agent.episode_counters
        tool, reason, source, proposal = allowed[0], "first allowed tool in the fallback order", "fallback", None
        if len(allowed) == 1:
            source, reason = "forced", "the only tool the constraints allow"
            counts.add(decisions_forced=1)
        elif self.agent.planner_mode == "llm":
            with step_span("planner", {"allowed": allowed}) as span:
                prediction = run_step(self.agent.planner, self.events, self.paper, "planner",
                                      self.planner_inputs(allowed))
                if prediction is None:  # no parseable answer naming an allowed tool (the Literal holds it to them)
                    source = "rejected"
                    counts.add(invalid_proposals=1)
                    reason = "the planner's answer named no allowed tool; first allowed tool in the fallback order"
                elif str(prediction.tool) in allowed:
                    tool, reason, source = str(prediction.tool), str(prediction.reason or "")[:200], "model"
                else:
                    proposal, source = str(prediction.tool), "rejected"
                    counts.add(invalid_proposals=1)
                    reason = f"proposed {proposal}, not allowed now; first allowed tool in the fallback order"
                if span is not None:
                    span.set_outputs({"tool": tool, "source": source, "reason": reason})
        counts.add(decisions_model=source == "model", decisions_fallback=source in ("fallback", "rejected"))
        args = self.arguments(tool)
        self.emit("planner_decision", "planner", tool=tool, args=args, reason=reason, source=source,
                  proposal=proposal, allowed=allowed, steps_left=self.ws.steps_left)
        return tool, args

    def planner_inputs(self, allowed: list[str]) -> dict[str, Any]:
        lessons: tuple[str, ...] = ()
        if self.agent.planner_memory:
            lessons = compress_lessons(self.recall("names" if self.ws.names is None else "details"))
            if lessons:
                self.counters.add(memory_injections=1)
                self.emit("memory_injection", "planner", lessons=len(lessons))
        tools = "\n".join(self.tools[name].describe() for name in allowed)
        return {"signature": choose_among(tuple(allowed)), "state": self.ws.describe(), "tools": tools,
                "memory_block": "\n".join(lessons)}

    def arguments(self, tool: str) -> dict[str, Any]:
        """The arguments of the chosen tool, from the state: the current dataset, its page, its name."""
        work = self.ws.current()
        if tool in ("extract_details", "search_links", "verify_evidence"):
            return {"dataset": work.chosen.name}
        if tool == "search_keywords":
            return {"keyword": work.chosen.name if work else "dataset"}
        if tool == "read_page":
            found = verify_evidence(self.paper, work.names, None)
            return {"page": found.page or 1}
        if tool == "retrieve_section":
            return {"heading": _DATA_HEADINGS}
        return {}

    def call_tool(self, name: str, args: dict[str, Any]) -> str:
        """Run one tool as one step: an action and a result event whose step is the tool's name, a span on
        the paper's trace, and rule reflection on its output (an empty output is a failure)."""
        ws = self.ws
        ws.steps += 1
        ws.tools_used[name] += 1
        self.emit("action", name, tool=name, args=args, step_number=ws.steps)
        started = time.monotonic()
        with step_span(name, args) as span:
            observation = self.tools[name](**args)
            if span is not None:
                span.set_outputs({"observation": observation})
        empty = not observation or observation.startswith("nothing")
        if empty:
            ws.failures.append(f"{name}({', '.join(map(str, args.values()))}) found nothing")
        self.emit("result", name, tool=name, observation=observation[:400],
                  seconds=round(time.monotonic() - started, 3))
        self.emit("reflection", name, tool=name, score=0.0 if empty else 1.0, source="rule",
                  issues=[{"code": "empty_output", "message": f"{name} found nothing"}] if empty else [])
        return observation

    def lessons_for(self, step: str) -> tuple[str, ...]:
        """S1's lessons for a retry, compressed before they are injected."""
        return compress_lessons(super().lessons_for(step))


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
