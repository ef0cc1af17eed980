"""S2's document state: what one dataset and the paper have been through, and the hard constraints that say
which tools the state allows next (the first allowed in `TOOL_ORDER` is the deterministic planner's choice)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dsminer.document.pdf import ParsedPaper
from dsminer.document.references import Reference
from dsminer.evidence.grounding import LinkCandidate, Section, Verification
from dsminer.evidence.records import DatasetDetails
from dsminer.mentions.selection import ChosenDataset
from dsminer.programs.agent.step_tools import FoundNames
from dsminer.schema import DatasetRecord, PaperRefs

# The fallback order: the first allowed tool in this order is the deterministic planner's choice.
TOOL_ORDER = ("parse_pdf", "extract_metadata", "extract_tables", "retrieve_section", "extract_references",
              "search_keywords", "read_page", "extract_dataset_names", "search_links", "extract_details",
              "verify_evidence", "normalise_records")
# Recovery tools for a stuck dataset, best first for what it lacks: a link is most often in its cited reference
# or a sentence naming it; a description in its data section, a table or the page that mentions it.
RECOVERY_TOOLS = {"link": ("extract_references", "search_keywords", "read_page", "retrieve_section"),
                  "details": ("retrieve_section", "extract_tables", "search_keywords", "read_page")}
MAX_RECOVERY_TOOLS = 2  # recovery tools tried per stuck dataset before its retry

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
