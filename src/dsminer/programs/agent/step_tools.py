"""The reflective agent's tools and the manager that calls them and keeps per-tool statistics.

Four tools: reading the parsed PDF, metadata, dataset names, dataset details. Each step tool offers
the same small interface to the controller: `act` (one model call with the step's input), `merge`
(combine attempts), `check` (rule reflection), `summary` and `gain` (records added by a retry).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import dspy

from dsminer.catalog.memory import KnownDataset
from dsminer.document.pdf import ParsedPaper, first_pages_text
from dsminer.events import EventLog
from dsminer.evidence.context import (
    CONTEXT_CHARS,
    EVIDENCE_CHARS,
    PaperContext,
    dataset_evidence,
    paper_context,
    unread_context,
    unread_dataset_evidence,
    with_known_mentions,
)
from dsminer.evidence.records import DatasetDetails, clean_list, clean_text
from dsminer.mentions.benchmarks import find_benchmark_cues
from dsminer.mentions.candidates import MAX_CANDIDATES, is_name_shaped, sentence_candidates
from dsminer.mentions.cues import name_like_tokens
from dsminer.mentions.evidence_model import EvidenceModel
from dsminer.mentions.selection import Proposal, Selection, data_support, select_datasets
from dsminer.programs.agent.memory import compose_memory_block
from dsminer.programs.agent.reflection import (
    Reflection,
    RetryPlan,
    covered,
    parse_score,
    reflect_on_details,
    reflect_on_metadata,
    reflect_on_names,
    with_model_view,
)
from dsminer.programs.steps import (
    METADATA_CHARS,
    candidate_names_of,
    details_of,
    evidence_phrase_scores,
    proposals_of,
    refs_of,
    run_step,
    shown_text,
)
from dsminer.schema import PaperRefs, normalize_name
from dsminer.signatures.reflection import without_memory_block
from dsminer.tools.workspace import PaperView

SUMMARY_CHARS = 600
EVIDENCE_WIDENING = 600  # more evidence characters a detail retry may read than a first attempt


# One lock for every count: papers processed in parallel threads add to the same counters.
COUNTS_LOCK = threading.Lock()


class Counts:
    """Run-level counts (a dataclass of numbers) that threads add to through `add`, under `COUNTS_LOCK`."""

    def add(self, **amounts: float) -> None:
        with COUNTS_LOCK:
            for name, amount in amounts.items():
                setattr(self, name, getattr(self, name) + amount)


@dataclass
class ToolStats(Counts):
    calls: int = 0
    failures: int = 0
    retries: int = 0
    seconds: float = 0.0


class ToolManager:
    """Registered tools by name; every call is timed and counted, a None result counts as a failure."""

    def __init__(self) -> None:
        self.tools: dict[str, Callable[..., Any]] = {}
        self.stats: dict[str, ToolStats] = {}

    def register(self, name: str, tool: Callable[..., Any]) -> None:
        self.tools[name] = tool
        self.stats[name] = ToolStats()

    def call(self, name: str, *args: Any, retry: bool = False, **kwargs: Any) -> Any:
        stats = self.stats[name]
        stats.add(calls=1, retries=int(retry))
        started = time.monotonic()
        try:
            result = self.tools[name](*args, **kwargs)
        except Exception:
            stats.add(failures=1)
            raise
        finally:
            stats.add(seconds=time.monotonic() - started)
        stats.add(failures=int(result is None))
        return result

    def metrics(self) -> dict[str, float]:
        """`tool.<name>.calls`, `.failures`, `.retries`, `.seconds` for every tool."""
        return {f"tool.{name}.{key}": round(value, 3) for name, stats in self.stats.items()
                for key, value in asdict(stats).items()}


@dataclass(frozen=True)
class StepInput:
    """The parameters of one attempt at a step."""

    attempt: int = 0
    max_sentences: int = 40
    max_chars: int = METADATA_CHARS
    keywords: tuple[str, ...] = ()
    lessons: tuple[str, ...] = ()
    feedback: str = ""
    dataset: str | None = None
    evidence: PaperContext | None = None  # the new evidence a retry reads (None on a first attempt)

    @property
    def memory_block(self) -> str:
        return compose_memory_block(self.lessons, self.feedback)

    def config(self, temperature: float | None) -> dict[str, int] | None:
        """A distinct rollout id per retry when sampling (temperature above 0), so no cache can hand back the
        previous answer. At temperature 0 it has no effect (DSPy warns), and a retry's changed input already
        keeps a cache from answering."""
        return {"rollout_id": self.attempt} if self.attempt and temperature else None

    def describe(self) -> dict[str, Any]:
        described = {"attempt": self.attempt, "max_sentences": self.max_sentences, "max_chars": self.max_chars,
                     "keywords": list(self.keywords), "lessons": len(self.lessons), "feedback": bool(self.feedback)}
        return {**described, **({"evidence": dict(self.evidence.kinds)} if self.evidence is not None else {})}


class ReadPaper:
    """Read the parsed PDF: the sentences outside the reference list and the benchmark cues in them."""

    def __init__(self, catalog: frozenset[str] = frozenset()) -> None:
        self.catalog = catalog

    def __call__(self, paper: ParsedPaper) -> PaperView:
        body = paper.body_sentences()
        return PaperView(paper, body, find_benchmark_cues(body, self.catalog), candidate_names_of(paper, self.catalog))


class ModelStep:
    """A step whose tool is one predictor call; subclasses say how to build its input and read its answer."""

    name = ""

    def __init__(self, predictor: dspy.Predict) -> None:
        self.predictor = predictor

    def ask(self, view: PaperView, params: StepInput, events: EventLog,
            inputs: dict[str, str]) -> dspy.Prediction | None:
        """One call with the memory block last and a rollout id on retries when sampling; None when it failed.
        With no lessons and no feedback the block is left out, not sent empty: an empty field changes what a
        small model answers, and such an attempt is then the workflow's call word for word."""
        predictor = self.predictor
        if params.memory_block:
            inputs = {**inputs, "memory_block": params.memory_block}
        else:
            predictor = without_memory(predictor)
        temperature = (dspy.settings.lm.kwargs.get("temperature") if dspy.settings.lm is not None else None)
        return run_step(predictor, events, view.paper, self.name, inputs, params.config(temperature),
                        dataset=params.dataset, **params.describe())


def without_memory(predictor: dspy.Predict) -> dspy.Predict:
    """`predictor` without its memory block: the same instructions, demonstrations, settings and model."""
    plain = dspy.Predict(without_memory_block(predictor.signature), **predictor.config)
    plain.demos = list(predictor.demos)
    plain.lm = predictor.lm
    return plain


class MetadataStep(ModelStep):
    """Give the paper's title, authors, institutions, venue and year from its first pages."""

    name = "metadata"

    def act(self, view: PaperView, params: StepInput, events: EventLog) -> PaperRefs | None:
        prediction = self.ask(view, params, events, {"first_page": first_pages_text(view.paper, params.max_chars)})
        return None if prediction is None else refs_of(prediction)

    def merge(self, view: PaperView, state: PaperRefs, new: PaperRefs | None) -> PaperRefs:
        """Values already known win; the new attempt fills the gaps."""
        if new is None:
            return state
        known = {key: value for key, value in state.model_dump().items() if value not in (None, [], "")}
        return new.model_copy(update=known)

    def check(self, view: PaperView, params: StepInput, state: PaperRefs, latest: PaperRefs | None) -> Reflection:
        return reflect_on_metadata(state)

    def summary(self, state: PaperRefs) -> str:
        return f"title: {state.title or '-'}; authors: {', '.join(state.authors[:6]) or '-'}; year: {state.year or '-'}"

    def gain(self, before: PaperRefs, after: PaperRefs) -> int:
        """The fields an attempt filled."""
        return sum(1 for key, value in after.model_dump().items()
                   if value not in (None, [], "") and getattr(before, key) in (None, [], ""))

    def fresh_evidence(self, view: PaperView, params: StepInput, state: PaperRefs,
                       plan: RetryPlan) -> PaperContext | None:
        """More of the first pages than the attempts so far read (up to the plan's characters); None when they read
        all."""
        more = len(first_pages_text(view.paper, plan.max_chars)) - len(first_pages_text(view.paper, params.max_chars))
        return PaperContext("", kinds=(("first_pages", more),)) if more > 0 else None


@dataclass(frozen=True)
class FoundNames:
    """Every decision proposed so far, and the datasets the shared selection keeps from them."""

    raw: tuple[Proposal, ...] = ()
    selection: Selection = field(default_factory=Selection)
    attempts: int = 0
    unwritten: tuple[str, ...] = ()  # names only a retry called datasets that the paper never writes as data

    @property
    def kept(self) -> tuple[str, ...]:
        return tuple(dataset.name for dataset in self.selection.chosen)


class NamesStep(ModelStep):
    """Decide which names of the paper are datasets it uses or creates, from its tables, dataset sentences
    and the candidate names found by code."""

    name = "names"

    def __init__(self, predictor: dspy.Predict, max_records: int = 5) -> None:
        super().__init__(predictor)
        self.max_records = max_records
        self.evidence_model: EvidenceModel | None = None
        self._phrase_scores: dict[str, dict[str, float] | None] = {}  # by paper, for the evidence model

    def act(self, view: PaperView, params: StepInput, events: EventLog) -> list[Proposal] | None:
        """A first attempt reads the workflow's context; a retry reads the new evidence it was given, with the
        candidate names found in it first."""
        context = params.evidence or paper_context(view.paper, params.max_sentences, params.keywords,
                                                   max_chars=CONTEXT_CHARS)
        view.read_sentences |= context.sentences
        view.read_tables |= context.tables
        candidates = view.candidates if params.evidence is None else evidence_candidates(view, context)
        inputs = {"context": context.text, "candidates": list(candidates)}
        events.emit("names_input", paper=view.paper.file_name, step=self.name, attempt=params.attempt,
                    text=shown_text(inputs))
        prediction = self.ask(view, params, events, inputs)
        proposals = None if prediction is None else proposals_of(prediction)
        events.emit("names_output", paper=view.paper.file_name, step=self.name, attempt=params.attempt,
                    raw=[{"name": p.name, "kind": p.kind, "role": p.role} for p in proposals or []])
        return proposals

    def merge(self, view: PaperView, state: FoundNames, new: list[Proposal] | None) -> FoundNames:
        """The decisions of all attempts, through the selection every condition shares. A retry was asked for what
        the first attempt missed, so a name that only a retry calls a dataset (no earlier answer gave it, or one
        called it a model or something else) stands where the paper writes it as data ("the X cohort", "X dataset");
        the others are dropped, with why."""
        answered, new, unwritten = new is not None, list(new or []), list(state.unwritten)
        if state.attempts:  # attempts that answered before this one
            given = {normalize_name(proposal.name) for proposal in state.raw if proposal.kind == "dataset"}
            fresh = [proposal for proposal in new if proposal.kind == "dataset"
                     and normalize_name(proposal.name) not in given and not data_support([proposal.name], view.body)]
            unwritten = list(dict.fromkeys([*unwritten, *(proposal.name for proposal in fresh)]))
            new = [proposal for proposal in new if proposal not in fresh]
        raw = (*state.raw, *new)
        paper = view.paper
        if paper.file_name not in self._phrase_scores:
            self._phrase_scores = {paper.file_name: evidence_phrase_scores(paper, self.evidence_model)}
        selection = select_datasets(raw, paper.text, self.max_records, view.body, self.evidence_model,
                                    self._phrase_scores[paper.file_name])
        why = "only a retry called it a dataset, never written as data"
        selection.dropped.extend((name, why) for name in unwritten)
        return FoundNames(raw, selection, state.attempts + answered, tuple(unwritten))

    def check(self, view: PaperView, params: StepInput, state: FoundNames,
              latest: list[Proposal] | None) -> Reflection:
        proposed = [p.name for p in latest or [] if p.kind == "dataset"]
        room = len(state.kept) < self.max_records
        unread = unread_names(view, state) if room else []
        known = [f"{written} ({dataset.describe()})" for written, dataset in unjudged_known(view, state)
                 ] if room else []
        return reflect_on_names(proposed, state.kept, view.paper.text, view.cues, unread, known)

    def summary(self, state: FoundNames) -> str:
        dropped = [f"{name} ({why})" for name, why in state.selection.dropped]
        return f"kept: {', '.join(state.kept) or 'none'}; dropped: {', '.join(dropped) or 'none'}"[:SUMMARY_CHARS]

    def gain(self, before: FoundNames, after: FoundNames) -> int:
        """The datasets an attempt added to those kept, or whose role it changed."""
        roles = {dataset.name: dataset.role for dataset in before.selection.chosen}
        return sum(1 for dataset in after.selection.chosen if roles.get(dataset.name, "") != dataset.role)

    def fresh_evidence(self, view: PaperView, params: StepInput, state: FoundNames,
                       plan: RetryPlan) -> PaperContext | None:
        """What the attempts so far did not read of where the paper describes its data (tables, data sections, an
        appendix, cued and named sentences), and the sentences writing a word of a name the model gave that the
        paper does not write so, or of the plan's names and search words; None when nothing is left."""
        unwritten = [name for name, reason in state.selection.dropped if reason.startswith("not in the paper")]
        known = [written for written, _ in unjudged_known(view, state)]
        unread = unread_context(view.paper, view.read_sentences, view.read_tables, [*unwritten, *plan.keywords])
        return with_known_mentions(view.paper, unread, known)


class DetailsStep(ModelStep):
    """Describe one dataset from the paper's sentences and table lines that mention it."""

    name = "details"

    def act(self, view: PaperView, params: StepInput, events: EventLog) -> DatasetDetails | None:
        name = params.dataset or ""
        evidence = params.evidence.text if params.evidence is not None else dataset_evidence(
            view.paper, [name, *view.aliases.get(name, ())], EVIDENCE_CHARS)
        view.read_evidence[name] = f"{view.read_evidence.get(name, '')}\n{evidence}"
        evidence = "\n".join(line for line in (evidence, *view.hints.get(name, ())) if line)
        prediction = self.ask(view, params, events, {"dataset_name": name, "evidence": evidence})
        return None if prediction is None else details_of(prediction)

    def merge(self, view: PaperView, state: DatasetDetails, new: DatasetDetails | None) -> DatasetDetails:
        """Fields already described win; the new attempt fills the empty ones."""
        if new is None:
            return state
        gaps = [f.name for f in fields(state) if _is_empty(getattr(state, f.name))]
        return replace(state, **{name: getattr(new, name) for name in gaps})

    def check(self, view: PaperView, params: StepInput, state: DatasetDetails,
              latest: DatasetDetails | None) -> Reflection:
        return reflect_on_details(params.dataset or "", state)

    def summary(self, state: DatasetDetails) -> str:
        return (f"content: {state.content or '-'}; type: {state.data_type or '-'}; domain: {state.domain or '-'}; "
                f"fields: {', '.join(clean_list(state.fields)) or '-'}")[:SUMMARY_CHARS]

    def gain(self, before: DatasetDetails, after: DatasetDetails) -> int:
        """The described fields an attempt filled."""
        return sum(1 for f in fields(after)
                   if _is_empty(getattr(before, f.name)) and not _is_empty(getattr(after, f.name)))

    def fresh_evidence(self, view: PaperView, params: StepInput, state: DatasetDetails,
                       plan: RetryPlan) -> PaperContext | None:
        """The dataset's mentions and table lines the attempts so far did not read; None when there are none."""
        name = params.dataset or ""
        return unread_dataset_evidence(view.paper, [name, *view.aliases.get(name, ())],
                                       view.read_evidence.get(name, ""), EVIDENCE_CHARS + EVIDENCE_WIDENING)


def written_candidates(view: PaperView, context: PaperContext) -> list[str]:
    """The candidate names a context's sentences and table rows write."""
    sentences = view.paper.indexed_sentences()
    found = [name for index in sorted(context.sentences) for name in sentence_candidates(sentences[index][0].text)]
    found += [cell for index in sorted(context.tables) for cell in view.paper.tables[index].first_column
              if is_name_shaped(cell)]
    return list(dict.fromkeys(found))


def evidence_candidates(view: PaperView, context: PaperContext) -> tuple[str, ...]:
    """The candidate names a retry is offered: those its new sentences and tables write, then the datasets of
    earlier papers the paper writes, then the paper's."""
    unique: dict[str, str] = {}
    for name in (*written_candidates(view, context), *(written for written, _ in view.known), *view.candidates):
        unique.setdefault(name.casefold(), name)
    return tuple(unique.values())[:MAX_CANDIDATES]


def unjudged_known(view: PaperView, state: FoundNames) -> list[tuple[str, KnownDataset]]:
    """The datasets of earlier papers (corpus memory) this paper writes that no attempt has judged."""
    judged = [proposal.name for proposal in state.raw]
    return [(written, dataset) for written, dataset in view.known
            if not any(covered(name, judged) for name in (written, dataset.name, *dataset.aliases))]


def unread_names(view: PaperView, state: FoundNames) -> list[str]:
    """Names (acronyms, CamelCase, capitalised or digit-bearing tokens) written where no names attempt has read of
    the paper's data sections, tables, appendix and named or cued sentences, that no attempt has judged (a name
    offered in the candidate list alone, without the sentence that writes it, is not judged)."""
    context = unread_context(view.paper, view.read_sentences, view.read_tables)
    if context is None:
        return []
    sentences = view.paper.indexed_sentences()
    written = [*written_candidates(view, context),
               *(token for index in sorted(context.sentences) for token in sorted(name_like_tokens(
                   sentences[index][0].text)))]
    judged = [proposal.name for proposal in state.raw]
    return [name for name in dict.fromkeys(written) if not covered(name, judged)]


def _is_empty(value: object) -> bool:
    """A described field that says nothing: empty, or a placeholder such as "N/A"."""
    return not (clean_list(value) if isinstance(value, list) else clean_text(value))


def reflect_inputs(view: PaperView, step: str, summary: str, rule: Reflection) -> dict[str, str]:
    """What the model reads to judge a step: the step, its result, the paper's benchmark cues, the rule issues."""
    return {"step": step, "step_result": summary[:SUMMARY_CHARS], "paper_cues": view.cues.describe(),
            "rule_issues": "\n".join(issue.message for issue in rule.issues) or "none"}


class ReflectWithModel:
    """Ask the model to judge a step's result; its input is the result and the rule issues, not the paper."""

    def __init__(self, predictor: dspy.Predict) -> None:
        self.predictor = predictor

    def __call__(self, view: PaperView, step: str, summary: str, rule: Reflection,
                 events: EventLog) -> Reflection | None:
        prediction = run_step(self.predictor, events, view.paper, step, reflect_inputs(view, step, summary, rule),
                              tool="reflect")
        if prediction is None:
            return None
        return with_model_view(rule, parse_score(prediction.score), prediction.risks, prediction.suggestions,
                               prediction.search_terms)
