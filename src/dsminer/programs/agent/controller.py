"""S1a and S1b: the reflective agent.

A controller holds one paper's goal, plan, retry counts and shared context. The plan is fixed (read
the paper, metadata, dataset names, then one detail step per dataset); within each step it loops
Observe, Think, Act, Reflect, Learn, Adjust: retrieve lessons, decide the input, call the tool, judge
the result, remember the experience, and retry with a changed input or stop. S1a reflects by rules,
S1b asks the model as well; nothing else differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import dspy
import mlflow

from dsminer.catalog.memory import CorpusMemory, current_corpus
from dsminer.document.pdf import ParsedPaper
from dsminer.events import EventLog, current_events
from dsminer.evidence.records import DatasetDetails, build_record, complete_refs
from dsminer.mentions.evidence_model import EvidenceModel
from dsminer.mentions.selection import ChosenDataset, Selection
from dsminer.programs.agent.memory import Experience, MemoryStore, generic_keywords, lesson_for
from dsminer.programs.agent.reflection import Reflection, plan_retry
from dsminer.programs.agent.step_tools import (
    Counts,
    DetailsStep,
    FoundNames,
    MetadataStep,
    NamesStep,
    ReadPaper,
    ReflectWithModel,
    StepInput,
    ToolManager,
)
from dsminer.programs.steps import STEP_TOKENS, NameCheck, checked_datasets
from dsminer.schema import DatasetRecord, PaperRefs
from dsminer.signatures import (
    ClassifyDatasetNamesWithMemory,
    DescribeDatasetWithMemory,
    ExtractPaperMetadataWithMemory,
    ReflectOnStep,
)
from dsminer.tools.workspace import PaperView

ReflectionMode = Literal["rule", "llm", "selective"]


@dataclass(frozen=True)
class AgentOptions:
    """The agent's controls; S1a and S1b differ only in `reflection`."""

    max_records: int = 5
    context_sentences: int = 40
    retry_budget: int = 2
    quality_threshold: float = 0.6
    reflection: ReflectionMode = "rule"
    check_names: bool = True  # the workflow's check step on the datasets the names step keeps
    check_examples: bool = False  # the check step shown worked examples first (see `NameCheck`)


@dataclass
class AgentCounters(Counts):
    """Run-level counts, logged as MLflow metrics."""

    reflections: int = 0
    llm_reflections: int = 0
    retries: int = 0
    productive_retries: int = 0
    budget_stops: int = 0
    nothing_unread_stops: int = 0
    corpus_offered: int = 0
    memory_retrievals: int = 0
    memory_injections: int = 0
    memory_writes: int = 0
    lessons_retired: int = 0


@contextmanager
def step_span(name: str, inputs: dict[str, Any]) -> Iterator[Any]:
    """A child span of the paper's trace; nothing when no trace is open (tests, plain calls)."""
    if mlflow.get_current_active_span() is None:
        yield None
        return
    with mlflow.start_span(name=name) as span:
        span.set_inputs(inputs)
        yield span


class ReflectiveAgent(dspy.Module):
    """The fixed plan with reflection, quality-aware retries and memory, over the S0 signatures."""

    def __init__(self, options: AgentOptions = AgentOptions(), memory: MemoryStore | None = None,
                 catalog: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.options = options
        self.memory = memory
        self.metadata = dspy.Predict(ExtractPaperMetadataWithMemory, max_tokens=STEP_TOKENS["metadata"])
        self.names = dspy.Predict(ClassifyDatasetNamesWithMemory, max_tokens=STEP_TOKENS["names"])
        self.details = dspy.Predict(DescribeDatasetWithMemory, max_tokens=STEP_TOKENS["details"])
        self.reflector = dspy.Predict(ReflectOnStep, max_tokens=STEP_TOKENS["reflection"])
        self.check = NameCheck(options.check_examples) if options.check_names else None
        self.counters = AgentCounters()
        self.corpus: CorpusMemory | None = None  # the datasets of earlier papers (`dsminer.run` fills it)
        self.tools = ToolManager()
        self.steps = {"metadata": MetadataStep(self.metadata),
                      "names": NamesStep(self.names, options.max_records),
                      "details": DetailsStep(self.details)}
        self.tools.register("parse", ReadPaper(catalog))
        for step in self.steps.values():
            self.tools.register(step.name, step.act)
        self.tools.register("reflect", ReflectWithModel(self.reflector))

    def use_evidence_model(self, model: EvidenceModel | None) -> None:
        """Weigh the names step's datasets by `model` (fitted for the model that answers) in the selection."""
        self.steps["names"].evidence_model = model

    def forward(self, paper: ParsedPaper, supplied: PaperRefs | None = None) -> dspy.Prediction:
        """The paper's records, as `Prediction.records`; events go to the log the run is recording."""
        if self.memory is not None:
            self.memory.start_paper()
        return dspy.Prediction(records=AgentController(self, paper, supplied, current_events()).run())

    def checked(self, paper: ParsedPaper, selection: Selection, events: EventLog) -> list[ChosenDataset]:
        """The selection's datasets up to the cap, each read by the check step as the workflow reads it (a name read
        as something other than a dataset gives its place to the next); the selection's own when checks are off."""
        return checked_datasets(paper, selection, self.options.max_records, self.check, events)

    def run_metrics(self) -> dict[str, float]:
        """Counts of reflections, retries and memory use, and per-tool statistics."""
        return {**{key: float(value) for key, value in asdict(self.counters).items()}, **self.tools.metrics()}


@dataclass
class StepRun:
    """The course of one step: its input, its latest reflection and how it ended."""

    params: StepInput
    reflection: Reflection | None = None
    first_score: float | None = None
    codes: tuple[str, ...] = ()
    stop: str = ""


class AgentController:
    """One paper: goal, plan, retry counts and the shared context; runs each step's reflective loop."""

    def __init__(self, agent: ReflectiveAgent, paper: ParsedPaper, supplied: PaperRefs | None,
                 events: EventLog) -> None:
        self.agent, self.options, self.counters = agent, agent.options, agent.counters
        self.paper, self.supplied, self.events = paper, supplied, events
        self.goal = f"records of the datasets {paper.file_name} uses or releases"
        self.plan: list[str] = ["parse", "metadata", "names"]
        self.retries: Counter[str] = Counter()
        self.view: PaperView | None = None

    def emit(self, kind: str, step: str | None, **fields: Any) -> None:
        self.events.emit(kind, paper=self.paper.file_name, step=step, **fields)

    def run(self) -> list[DatasetRecord]:
        self.emit("thought", "plan", goal=self.goal, plan=list(self.plan))
        self.view = self.read_paper()
        refs = self.paper_refs()
        datasets = self.agent.checked(self.paper, self.execute(self.agent.steps["names"], FoundNames()).selection,
                                      self.events)
        names = [dataset.name for dataset in datasets]
        self.view.aliases = {dataset.name: dataset.aliases for dataset in datasets}
        self.plan += [f"details:{name}" for name in names]
        self.emit("thought", "plan", goal=self.goal, plan=list(self.plan), datasets=len(names))
        details = self.agent.steps["details"]
        return [build_record(self.paper, refs, d.name, self.execute(details, DatasetDetails(), d.name), d.aliases,
                             self.events, other_names=names, role=d.role) for d in datasets]

    def read_paper(self) -> PaperView:
        with step_span("parse", {"file": self.paper.file_name}):
            self.emit("action", "parse", tool="parse", pages=len(self.paper.pages))
            view: PaperView = self.agent.tools.call("parse", self.paper)
            self.emit("result", "parse", sentences=len(view.body), links=len(self.paper.links),
                      cues=view.cues.describe(), expected_datasets=view.cues.expected_datasets())
            view.known = current_corpus().written_in(self.paper.text)
            if view.known:
                self.counters.add(corpus_offered=len(view.known))
                self.emit("corpus_offered", "parse", datasets=[
                    {"name": d.name, "written": written, "papers": [paper for paper, _ in d.papers],
                     "links": [url for url, _ in d.links]} for written, d in view.known])
        return view

    def paper_refs(self) -> PaperRefs:
        known = complete_refs(self.supplied)
        if known is not None:
            self.emit("metadata_supplied", "metadata", title=known.title)
            return known
        return self.execute(self.agent.steps["metadata"], self.supplied or PaperRefs())

    def execute(self, step: Any, state: Any, target: str | None = None) -> Any:
        """Observe, then Think, Act, Reflect and Adjust until the result is good enough or the budget is
        spent; then Learn. Returns the merged result of all attempts."""
        with step_span(step.name if target is None else f"{step.name}:{target}", {"dataset": target}) as span:
            run = StepRun(self.observe(step.name, target))
            while True:
                self.think(step.name, run)
                before, latest = state, self.act(step, run.params)
                state = step.merge(self.view, state, latest)
                self.emit("result", step.name, dataset=target, attempt=run.params.attempt, failed=latest is None,
                          summary=step.summary(state), added=step.gain(before, state))
                previous = run.reflection
                self.reflect(step, run, state, latest)
                if previous is not None:
                    self.count_retry(step.name, run, previous, step.gain(before, state))
                next_params = self.adjust(step, run, state)
                if next_params is None:
                    break
                run.params = next_params
            self.learn(step.name, run)
            if span is not None:
                span.set_outputs({"score": run.reflection.score, "attempts": run.params.attempt + 1, "stop": run.stop})
        return state

    def observe(self, step: str, target: str | None) -> StepInput:
        """What the step starts from: the paper's cues and the retry count so far. A first attempt is sent no
        lessons: it is the workflow's call, and lessons from memory go only to the retries of an attempt that fell
        short (given to first attempts, they lost a small model more gold datasets than they removed wrong names)."""
        self.emit("observation", step, dataset=target, cues=self.view.cues.describe(),
                  retries_so_far=sum(self.retries.values()))
        return StepInput(max_sentences=self.options.context_sentences, dataset=target)

    def think(self, step: str, run: StepRun) -> None:
        if run.reflection is None:
            reason = "first attempt with the shared context"
        else:
            memory = ", lessons from memory" if run.params.lessons else ""
            codes = ", ".join(run.reflection.codes())
            read = ", ".join(f"{count} {kind}" for kind, count in run.params.evidence.kinds)
            reason = f"retry for {codes}: read what was not read ({read}){memory}, the feedback"
        self.emit("thought", step, dataset=run.params.dataset, reason=reason, params=run.params.describe())

    def act(self, step: Any, params: StepInput) -> Any:
        if params.lessons:
            self.counters.add(memory_injections=1)
            self.emit("memory_injection", step.name, dataset=params.dataset, lessons=len(params.lessons),
                      attempt=params.attempt)
        return self.agent.tools.call(step.name, self.view, params, self.events, retry=params.attempt > 0)

    def reflect(self, step: Any, run: StepRun, state: Any, latest: Any) -> None:
        """Rule reflection always; the model's as well in `llm` mode, or in `selective` mode under the threshold."""
        rule = step.check(self.view, run.params, state, latest)
        reflection = rule
        mode = self.options.reflection
        if mode == "llm" or (mode == "selective" and rule.score < self.options.quality_threshold):
            self.counters.add(llm_reflections=1)
            judged = self.agent.tools.call("reflect", self.view, step.name, step.summary(state), rule, self.events)
            reflection = judged or rule
        self.counters.add(reflections=1)
        run.reflection = reflection
        run.first_score = reflection.score if run.first_score is None else run.first_score
        run.codes = tuple(dict.fromkeys([*run.codes, *reflection.codes()]))
        self.emit("reflection", step.name, dataset=run.params.dataset, attempt=run.params.attempt,
                  score=reflection.score, model_score=reflection.model_score, source=reflection.source,
                  issues=[{"code": i.code, "message": i.message} for i in reflection.issues],
                  suggestions=reflection.suggestions, diagnosable=reflection.diagnosable)

    def count_retry(self, step: str, run: StepRun, previous: Reflection, changed: int) -> None:
        """A retry is productive when it changed the result: a dataset added or its role corrected, a described
        field or a metadata field filled. The event says what evidence the retry read. The lessons a retry was sent
        are retired when it scored lower than the attempt before."""
        productive = changed > 0
        self.counters.add(productive_retries=int(productive))
        memory = self.agent.memory
        if memory is not None and run.params.lessons and run.reflection.score < previous.score:
            for lesson in run.params.lessons:
                memory.retire(lesson, self.paper.file_name, step)
            self.counters.add(lessons_retired=len(run.params.lessons))
            self.emit("lesson_retired", step, dataset=run.params.dataset, lessons=list(run.params.lessons),
                      score_before=previous.score, score_after=run.reflection.score)
        self.emit("retry_outcome", step, dataset=run.params.dataset, attempt=run.params.attempt,
                  productive=productive, score_before=previous.score, score_after=run.reflection.score, added=changed,
                  evidence=dict(run.params.evidence.kinds) if run.params.evidence is not None else {})

    def adjust(self, step: Any, run: StepRun, state: Any) -> StepInput | None:
        """Retry while the score is low, the issue diagnosable, the budget left and the paper holds evidence the
        attempts so far did not read: the retry reads that evidence, with the feedback."""
        reflection, attempt = run.reflection, run.params.attempt
        if reflection.score >= self.options.quality_threshold:
            return self.stop(step.name, run, "quality_met")
        if not reflection.diagnosable:
            return self.stop(step.name, run, "no_diagnosable_issue")
        if attempt >= self.options.retry_budget:
            self.counters.add(budget_stops=1)
            return self.stop(step.name, run, "budget_exhausted")
        plan = plan_retry(reflection, attempt + 1, run.params.max_chars)
        evidence = step.fresh_evidence(self.view, run.params, state, plan)
        if evidence is None:
            self.counters.add(nothing_unread_stops=1)
            return self.stop(step.name, run, "nothing_unread")
        self.retries[step.name] += 1
        self.counters.add(retries=1)
        lessons = run.params.lessons if attempt > 0 else self.lessons_for(step.name)
        params = replace(run.params, attempt=attempt + 1, max_chars=plan.max_chars, keywords=plan.keywords,
                         feedback=plan.feedback, lessons=lessons, evidence=evidence)
        self.emit("retry", step.name, dataset=run.params.dataset, attempt=attempt + 1,
                  budget=self.options.retry_budget, reasons=reflection.codes(), score=reflection.score,
                  params=params.describe())
        return params

    def stop(self, step: str, run: StepRun, reason: str) -> None:
        run.stop = reason
        self.emit("stop", step, dataset=run.params.dataset, reason=reason, score=run.reflection.score,
                  attempts=run.params.attempt + 1, budget=self.options.retry_budget)
        return None

    def lessons_for(self, step: str) -> tuple[str, ...]:
        """The lessons a retry of `step` is sent: those memory holds for the step."""
        return tuple(self.recall(step))

    def recall(self, step: str) -> list[str]:
        memory = self.agent.memory
        if memory is None:
            return []
        found = memory.retrieve(step, self.view.cues.tags())
        self.counters.add(memory_retrievals=len(found))
        self.emit("memory_retrieval", step, found=len(found), sources=[e.provenance() for e in found])
        return [experience.lesson for experience in found]

    def learn(self, step: str, run: StepRun) -> None:
        """Remember the step: always for this paper, across papers when it taught a lesson."""
        memory = self.agent.memory
        if memory is None:
            return
        score = run.reflection.score
        retried = run.params.attempt > 0
        outcome = ("improved" if retried and score > run.first_score else "accepted" if run.stop == "quality_met"
                   else "stopped" if run.stop == "budget_exhausted" else "unresolved")
        lesson = lesson_for(step, run.codes, outcome, run.first_score, score, run.params.keywords)
        experience = Experience(step, self.paper.file_name, score, outcome, lesson,
                                tags=[*run.codes, *self.view.cues.tags()], first_score=run.first_score,
                                keywords=generic_keywords(run.params.keywords))
        persisted = memory.remember(experience)
        self.counters.add(memory_writes=int(persisted))
        self.emit("memory_update", step, dataset=run.params.dataset, outcome=outcome, score=score,
                  lesson=lesson, persisted=persisted)
