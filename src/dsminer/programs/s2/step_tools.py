"""S2's four step tools: S1's parse step and its three model steps (metadata, names, details), each run through
S1's tool manager and reflective loop, bound to one episode; and the twelve tools in the planner's order."""

from __future__ import annotations

from typing import Any, Protocol

from dsminer.document.pdf import ParsedPaper
from dsminer.document.text import within_budget
from dsminer.events import current_events
from dsminer.evidence.context import paper_context
from dsminer.evidence.grounding import paper_sections
from dsminer.evidence.records import DatasetDetails
from dsminer.programs.agent.reflection import reflect_on_details
from dsminer.programs.agent.step_tools import FoundNames
from dsminer.schema import PaperRefs
from dsminer.tools.checking import NormaliseRecords, SearchLinks, VerifyEvidence
from dsminer.tools.reading import ExtractReferences, ExtractTables, ReadPage, RetrieveSection, SearchKeywords
from dsminer.tools.workspace import DatasetWork, PaperView, Tool, Workspace

HINT_CHARS = 400  # recovered evidence and link hints added to a detail step's evidence


class Episode(Protocol):
    """What a step tool uses of the episode it is bound to (`dsminer.programs.s2.episode.Episode`)."""

    agent: Any  # the OptimisedAgent: its step tools and steps, counters
    paper: ParsedPaper
    ws: Workspace
    view: PaperView | None
    plan: list[str]
    options: Any

    def execute(self, step: Any, state: Any, target: str | None = None) -> Any: ...

    def paper_refs(self) -> PaperRefs: ...


class StepTool(Tool):
    """A tool that runs one of S1's steps for the episode."""

    def __init__(self, episode: Episode) -> None:
        super().__init__(episode.ws)
        self.episode = episode


class ParsePdf(StepTool):
    """Read the parsed PDF: sentences outside the references, benchmark cues, section headings, candidate names."""

    name = "parse_pdf"

    def __call__(self) -> str:
        episode = self.episode
        episode.view = self.ws.view = episode.agent.tools.call("parse", episode.paper)
        self.ws.parsed = True
        self.ws.all_sections = paper_sections(episode.paper)
        self.ws.first_context = paper_context(episode.paper, episode.options.context_sentences)
        return (f"{len(episode.view.body)} sentences, {len(self.ws.all_sections)} sections, "
                f"{len(episode.paper.links)} links, {len(episode.view.candidates)} candidate names; "
                f"{episode.view.cues.describe()}")


class ExtractMetadata(StepTool):
    """Model: the paper's title, authors, institutions, venue and year from its first page."""

    name = "extract_metadata"

    def __call__(self) -> str:
        refs = self.episode.paper_refs()
        self.ws.refs = refs
        return f"title: {refs.title or '-'}; {len(refs.authors)} authors; year {refs.year or '-'}"


class ExtractDatasetNames(StepTool):
    """Model: decide which names of the paper are datasets it uses or creates (with reflection and retries)."""

    name = "extract_dataset_names"

    def __call__(self) -> str:
        episode, ws = self.episode, self.ws
        ws.names = episode.execute(episode.agent.steps["names"], FoundNames()).selection
        chosen = episode.agent.checked(episode.paper, ws.names, current_events())
        ws.datasets = {d.name: DatasetWork(d) for d in chosen}
        episode.view.aliases = {d.name: d.aliases for d in chosen}
        episode.plan += [f"details:{d.name}" for d in chosen]
        return f"{len(chosen)} datasets: {', '.join(d.name for d in chosen)}" if chosen else "nothing: no dataset kept"


class ExtractDetails(StepTool):
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


TOOLS: tuple[type[Tool], ...] = (ParsePdf, ReadPage, RetrieveSection, ExtractTables, SearchKeywords,
                                 ExtractReferences, ExtractMetadata, ExtractDatasetNames, ExtractDetails,
                                 SearchLinks, VerifyEvidence, NormaliseRecords)


def build_tools(episode: Episode) -> list[Tool]:
    """The twelve tools bound to one episode: the step tools to the episode, the others to its workspace."""
    return [tool(episode) if issubclass(tool, StepTool) else tool(episode.ws) for tool in TOOLS]
