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

from dsminer.document.pdf import ParsedPaper, first_pages_text
from dsminer.events import EventLog
from dsminer.evidence.context import CONTEXT_CHARS, EVIDENCE_CHARS, dataset_evidence
from dsminer.evidence.records import DatasetDetails, clean_list, clean_text
from dsminer.mentions.benchmarks import find_benchmark_cues
from dsminer.mentions.evidence_model import EvidenceModel
from dsminer.mentions.selection import Proposal, Selection, select_datasets
from dsminer.programs.agent.memory import compose_memory_block
from dsminer.programs.agent.reflection import (
    Reflection,
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
    names_inputs,
    proposals_of,
    refs_of,
    run_step,
    shown_text,
)
from dsminer.schema import PaperRefs
from dsminer.signatures.reflection import without_memory_block
from dsminer.tools.workspace import PaperView

SUMMARY_CHARS = 600
EVIDENCE_WIDENING = 600  # more evidence characters on each retry of a detail step
CONTEXT_WIDENING = 1000  # more context characters on each retry of a names step


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

    @property
    def memory_block(self) -> str:
        return compose_memory_block(self.lessons, self.feedback)

    def config(self, temperature: float | None) -> dict[str, int] | None:
        """A distinct rollout id per retry when sampling (temperature above 0), so no cache can hand back the
        previous answer. At temperature 0 it has no effect (DSPy warns), and a retry's changed input already
        keeps a cache from answering."""
        return {"rollout_id": self.attempt} if self.attempt and temperature else None

    def describe(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "max_sentences": self.max_sentences, "max_chars": self.max_chars,
                "keywords": list(self.keywords), "lessons": len(self.lessons), "feedback": bool(self.feedback)}


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
        return 0


@dataclass(frozen=True)
class FoundNames:
    """Every decision proposed so far, and the datasets the shared selection keeps from them."""

    raw: tuple[Proposal, ...] = ()
    selection: Selection = field(default_factory=Selection)

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

    def act(self, view: PaperView, params: StepInput, events: EventLog) -> list[Proposal] | None:
        inputs = names_inputs(view.paper, params.max_sentences, params.keywords,
                              max_chars=CONTEXT_CHARS + CONTEXT_WIDENING * params.attempt, candidates=view.candidates)
        events.emit("names_input", paper=view.paper.file_name, step=self.name, attempt=params.attempt,
                    text=shown_text(inputs))
        prediction = self.ask(view, params, events, inputs)
        proposals = None if prediction is None else proposals_of(prediction)
        events.emit("names_output", paper=view.paper.file_name, step=self.name, attempt=params.attempt,
                    raw=[{"name": p.name, "kind": p.kind, "role": p.role} for p in proposals or []])
        return proposals

    def merge(self, view: PaperView, state: FoundNames, new: list[Proposal] | None) -> FoundNames:
        """The decisions of all attempts, through the selection every condition shares."""
        raw = (*state.raw, *(new or []))
        return FoundNames(raw, select_datasets(raw, view.paper.text, self.max_records, view.body, self.evidence_model))

    def check(self, view: PaperView, params: StepInput, state: FoundNames,
              latest: list[Proposal] | None) -> Reflection:
        proposed = [p.name for p in latest or [] if p.kind == "dataset"]
        return reflect_on_names(proposed, state.kept, view.paper.text, view.cues)

    def summary(self, state: FoundNames) -> str:
        dropped = [f"{name} ({why})" for name, why in state.selection.dropped]
        return f"kept: {', '.join(state.kept) or 'none'}; dropped: {', '.join(dropped) or 'none'}"[:SUMMARY_CHARS]

    def gain(self, before: FoundNames, after: FoundNames) -> int:
        return len(after.kept) - len(before.kept)


class DetailsStep(ModelStep):
    """Describe one dataset from the paper's sentences and table lines that mention it."""

    name = "details"

    def act(self, view: PaperView, params: StepInput, events: EventLog) -> DatasetDetails | None:
        name = params.dataset or ""
        evidence = dataset_evidence(view.paper, [name, *view.aliases.get(name, ())],
                                    EVIDENCE_CHARS + EVIDENCE_WIDENING * params.attempt)
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
        return 0


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
