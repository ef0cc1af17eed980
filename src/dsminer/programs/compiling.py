"""Compile the names and detail steps against gold with DSPy's optimisers.

Examples are SciREX documents read as papers (`dsminer.evaluation.scirex`) and turned into exactly what the
steps read at run time: the same context builder and candidate finder for names, the same evidence builder
for details. Metrics come from the evaluation code (`dsminer.evaluation.step_scores`): for names, recall
and lenient precision of the datasets the shared selection keeps; for details, completeness and grounding.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dspy

from dsminer.errors import ConfigError
from dsminer.evaluation.scirex import ScirexPaper
from dsminer.evaluation.sentence_gold import SentenceExample, names_match
from dsminer.evaluation.step_scores import names_feedback, score_details, score_names
from dsminer.evidence.context import CONTEXT_CHARS, dataset_evidence
from dsminer.mentions.candidates import sentence_candidates
from dsminer.mentions.names import count_mentions, name_problem, occurs_in
from dsminer.mentions.selection import Proposal, select_datasets
from dsminer.programs.agent.reflection import parse_score
from dsminer.programs.agent.step_tools import FoundNames, NamesStep, ReadPaper, StepInput, reflect_inputs
from dsminer.programs.compiled import STEPS
from dsminer.programs.module_eval import sentence_f1
from dsminer.programs.steps import STEP_TOKENS, details_of, names_inputs, proposals_of, shown_text
from dsminer.schema import normalize_name
from dsminer.signatures import ClassifyDatasetNames, ReflectOnStep
from dsminer.signatures.extraction import OUTPUT_ITEM_LIMITS

log = logging.getLogger(__name__)

OPTIMIZERS = ("labeled", "bootstrap", "mipro", "gepa")
MODULES = ("names", "details", "reflect", "all")
BOOTSTRAP_THRESHOLD = 0.75  # a bootstrapped answer becomes a demonstration when it scores at least this
Metric = Callable[..., Any]
_TOKENS_KEY = {"reflect": "reflection"}  # the output budget a step's predictor has in the conditions
_JOINED = re.compile(r"\s(?:and|&|/)\s|,")


@dataclass(frozen=True)
class StepTask:
    """What compiling one step needs: a fresh predictor, its training and dev examples, and its metric."""

    step: str
    trainset: list[dspy.Example]
    devset: list[dspy.Example]
    metric: Metric
    labeled: bool  # whether the examples carry the answer (the labeled optimiser needs it)

    def student(self) -> dspy.Predict:
        return dspy.Predict(STEPS[self.step][1], max_tokens=STEP_TOKENS[_TOKENS_KEY.get(self.step, self.step)])


def names_labels(doc: ScirexPaper, inputs: Mapping[str, Any],
                 catalog_kinds: Mapping[str, str] = {}) -> list[dict[str, str]]:
    """The answer a names step should give on `inputs`: each gold dataset the input shows, as written there,
    then each other candidate whose kind is known, from the catalogue (`catalog_kinds`, normalised name to
    kind) or else from SciREX's mention types. A candidate of unknown kind is left out: SciREX does not type
    every name, and an untyped name is as often a dataset as not."""
    shown = shown_text(inputs)
    decisions: dict[str, dict[str, str]] = {}
    for dataset in doc.gold.datasets:
        written = written_name([dataset.name, *dataset.aliases], shown)
        if written:
            decisions.setdefault(normalize_name(written), {"name": written, "kind": "dataset", "role": "used"})
    gold_keys = set().union(*(dataset.keys() for dataset in doc.gold.datasets))
    for candidate in inputs["candidates"]:
        key = normalize_name(candidate)
        if key in gold_keys or key in decisions:
            continue
        kind = catalog_kinds.get(key) or doc.kind_of(candidate)
        if kind:
            decisions[key] = {"name": candidate, "kind": kind, "role": "mentioned"}
    return list(decisions.values())[: OUTPUT_ITEM_LIMITS["names"]]


def written_name(names: Sequence[str], shown: str) -> str | None:
    """The name a dataset goes by in `shown`: of its gold names that `shown` writes and that look like a name
    (not "X and Y datasets", not a citation), the one written most often, the shorter on a tie."""
    written = [name for name in names if name_problem(name) is None and not _JOINED.search(name)]
    counts = {name: count_mentions(name, shown) for name in written}
    best = sorted((name for name in written if counts[name]), key=lambda name: (-counts[name], len(name)))
    return best[0] if best else None


def names_examples(docs: Sequence[ScirexPaper], context_sentences: int = 40, max_chars: int = CONTEXT_CHARS,
                   catalog_kinds: Mapping[str, str] = {}) -> list[dspy.Example]:
    """One names example a document: the input the step reads at run time (context of about `max_chars`),
    the labelled answer, and the document's file name for the metric."""
    examples = []
    for doc in docs:
        inputs = names_inputs(doc.paper, context_sentences, max_chars=max_chars)
        examples.append(dspy.Example(**inputs, names=names_labels(doc, inputs, catalog_kinds), file=doc.paper.file_name)
                        .with_inputs("context", "candidates"))
    return examples


def sentence_examples(sentences: Sequence[SentenceExample],
                      catalog_kinds: Mapping[str, str] = {}) -> list[dspy.Example]:
    """Names examples from sentence-level gold, read as `dsminer eval-module names` reads a sentence: the
    sentence as the context and the candidates code finds in it; its annotated names are the datasets, the
    other candidates of a kind the catalogue knows are labelled with it."""
    examples = []
    for sentence in sentences:
        candidates = sentence_candidates(sentence.text)
        labels = {normalize_name(name): {"name": name, "kind": "dataset", "role": "used"} for name in sentence.names}
        for candidate in candidates:
            kind = catalog_kinds.get(normalize_name(candidate))
            if kind and not any(names_match(candidate, name) for name in sentence.names):
                labels.setdefault(normalize_name(candidate), {"name": candidate, "kind": kind, "role": "mentioned"})
        examples.append(dspy.Example(context=f"[p1] {sentence.text}", candidates=candidates,
                                     names=list(labels.values())[: OUTPUT_ITEM_LIMITS["names"]],
                                     gold_names=list(sentence.names)).with_inputs("context", "candidates"))
    return examples


def _sentence_score(example: dspy.Example, prediction: dspy.Prediction, with_feedback: bool) -> float | dspy.Prediction:
    """A sentence example's score: F1 of the names decided to be datasets against its annotated names."""
    value = sentence_f1(example, prediction)
    if not with_feedback:
        return value
    predicted = [p.name for p in proposals_of(prediction) if p.kind == "dataset"]
    missed = [g for g in example.gold_names if not any(names_match(p, g) for p in predicted)]
    wrong = [p for p in predicted if not any(names_match(p, g) for g in example.gold_names)]
    feedback = [f"F1 {value:.2f}."] + [f"Missed the dataset {name!r}." for name in missed]
    feedback += [f"{name!r} is not a dataset name in this sentence." for name in wrong]
    return dspy.Prediction(score=value, feedback="\n".join(feedback))


def names_metric(docs: Sequence[ScirexPaper], cap: int) -> Metric:
    """Score of a names answer: F1 of recall and lenient precision of the datasets the shared selection keeps
    (cap `cap`); on a sentence example, F1 of its names. Called with `pred_name` (by GEPA), it also says in
    words what was missed or wrong."""
    by_file = {doc.paper.file_name: doc for doc in docs}

    def metric(example: dspy.Example, prediction: dspy.Prediction, trace: Any = None,
               pred_name: str | None = None, pred_trace: Any = None) -> float | dspy.Prediction:
        if "gold_names" in example:
            return _sentence_score(example, prediction, pred_name is not None)
        doc = by_file[example.file]
        selection = select_datasets(proposals_of(prediction), doc.paper.text, cap, doc.paper.body_sentences())
        score = score_names(selection.chosen, doc.gold)
        if pred_name is None:
            return score.value
        return dspy.Prediction(score=score.value, feedback=names_feedback(score, doc.kind_of, shown_text(example)))

    return metric


def details_examples(docs: Sequence[ScirexPaper]) -> list[dspy.Example]:
    """One detail example per gold dataset the document writes: its name as written and its evidence."""
    examples = []
    for doc in docs:
        for dataset in doc.gold.datasets:
            names = [name for name in (dataset.name, *dataset.aliases) if occurs_in(name, doc.paper.text)]
            evidence = dataset_evidence(doc.paper, names) if names else ""
            if evidence:
                examples.append(dspy.Example(dataset_name=names[0], evidence=evidence).with_inputs("dataset_name",
                                                                                                  "evidence"))
    return examples


def details_metric(example: dspy.Example, prediction: dspy.Prediction, trace: Any = None,
                   pred_name: str | None = None, pred_trace: Any = None) -> float | dspy.Prediction:
    """Score of a detail answer: mean of field completeness and grounding in the evidence."""
    score, feedback = score_details(details_of(prediction), example.evidence)
    return score if pred_name is None else dspy.Prediction(score=score, feedback=feedback)


def reflect_examples(docs: Sequence[ScirexPaper], cap: int, catalog_kinds: Mapping[str, str] = {},
                     names: Sequence[dspy.Example] | None = None) -> list[dspy.Example]:
    """Reflection examples: for each document, names results of known quality judged as the agent judges them
    (its summary of the step, the paper's benchmark cues, the rule issues). The results are the labelled
    answer, half of its datasets, and its other names given as datasets; `quality` is each result's names
    score against the gold. `names` are the documents' names examples when already built."""
    read, step = ReadPaper(), NamesStep(dspy.Predict(ClassifyDatasetNames), cap)
    examples = []
    for doc, example in zip(docs, names or names_examples(docs, catalog_kinds=catalog_kinds)):
        view = read(doc.paper)
        datasets = [Proposal(d["name"], "dataset", d["role"]) for d in example.names if d["kind"] == "dataset"]
        others = [Proposal(d["name"], "dataset", "used") for d in example.names if d["kind"] != "dataset"]
        for proposals in (datasets, datasets[: len(datasets) // 2], others):
            state = step.merge(view, FoundNames(), proposals)
            rule = step.check(view, StepInput(), state, proposals)
            quality = score_names(state.selection.chosen, doc.gold)
            examples.append(dspy.Example(**reflect_inputs(view, "names", step.summary(state), rule),
                                         quality=round(quality.value, 3), missed=list(quality.missed),
                                         wrong=list(quality.wrong)).with_inputs(*ReflectOnStep.input_fields))
    return examples


def reflect_metric(example: dspy.Example, prediction: dspy.Prediction, trace: Any = None,
                   pred_name: str | None = None, pred_trace: Any = None) -> float | dspy.Prediction:
    """Score of a reflection: 1 minus how far its quality score is from the result's score against the gold."""
    judged = parse_score(getattr(prediction, "score", None))
    value = 0.0 if judged is None else round(1 - abs(judged - example.quality), 3)
    if pred_name is None:
        return value
    feedback = [f"The result scores {example.quality:.2f} against the gold; the reflection said {judged}."]
    feedback += [f"Missed dataset: {name}." for name in example.missed]
    feedback += [f"Not a dataset of the paper: {name}." for name in example.wrong]
    return dspy.Prediction(score=value, feedback="\n".join(feedback))


def step_tasks(module: str | Collection[str], train: Sequence[ScirexPaper], dev: Sequence[ScirexPaper], cap: int,
               demo_chars: int, catalog_kinds: Mapping[str, str] = {},
               train_sentences: Sequence[SentenceExample] = ()) -> list[StepTask]:
    """The steps `module` names (a step, `all`: names, reflect and details, or a collection of steps), with their
    examples and metrics. Training examples, the demonstrations' source, read a context of about `demo_chars`;
    dev examples the run's; the dev documents' names inputs are built once for the steps that read them.
    With `train_sentences` (sentence-level gold), the names step trains on those sentences instead; with
    neither, the tasks have dev examples only (to score a program)."""
    steps = set(STEPS) if module == "all" else {module} if isinstance(module, str) else set(module)
    unknown = sorted(steps - set(STEPS))
    if unknown:
        raise ConfigError(f"unknown module {unknown[0]!r} (modules: {', '.join(MODULES)})")
    trained_on_documents = sorted(steps - {"names"})
    if trained_on_documents and train_sentences:
        raise ConfigError(f"the {trained_on_documents[0]} step trains on SciREX documents, not on sentences")
    tasks = []
    dev_names = names_examples(dev, catalog_kinds=catalog_kinds) if steps & {"names", "reflect"} else []
    if "names" in steps:
        trainset = (sentence_examples(train_sentences, catalog_kinds) if train_sentences else
                    names_examples(train, max_chars=demo_chars, catalog_kinds=catalog_kinds))
        tasks.append(StepTask("names", trainset, dev_names, names_metric([*train, *dev], cap), labeled=True))
    if "reflect" in steps:
        tasks.append(StepTask("reflect", reflect_examples(train, cap, catalog_kinds),
                              reflect_examples(dev, cap, catalog_kinds, dev_names), reflect_metric, labeled=False))
    if "details" in steps:
        tasks.append(StepTask("details", details_examples(train), details_examples(dev), details_metric, labeled=False))
    return tasks


def teaches(example: dspy.Example) -> bool:
    """Whether a labelled names example shows both decisions, a dataset kept and a name that is not one."""
    kinds = {decision["kind"] for decision in example.get("names") or []}
    return "dataset" in kinds and len(kinds) > 1


def demo_pool(trainset: Sequence[dspy.Example], demos: int) -> list[dspy.Example]:
    """The labelled examples demonstrations are drawn from: those that show both decisions when there are
    enough of them, else those that keep a dataset, else all."""
    for keep in (teaches, lambda ex: any(d["kind"] == "dataset" for d in ex.get("names") or [])):
        pool = [example for example in trainset if keep(example)]
        if len(pool) >= demos:
            return pool
    return list(trainset)


def check_optimizer(optimizer: str, tasks: Sequence[StepTask]) -> None:
    """Refuse, before any model call, an unknown optimiser, mipro without its search library, or the labeled one
    for a step without labels."""
    if optimizer not in OPTIMIZERS:
        raise ConfigError(f"unknown optimiser {optimizer!r} (optimisers: {', '.join(OPTIMIZERS)})")
    if optimizer == "mipro" and importlib.util.find_spec("optuna") is None:
        raise ConfigError("the mipro optimiser needs optuna, which is not installed: pip install 'optuna>=3.4'")
    unlabeled = [task.step for task in tasks if not task.labeled]
    if optimizer == "labeled" and unlabeled:
        raise ConfigError(f"the labeled optimiser needs labelled examples; the {unlabeled[0]} step has none "
                          "(use bootstrap, mipro or gepa)")


def compile_step(task: StepTask, optimizer: str, demos: int, budget: int, lm: dspy.LM, seed: int = 0) -> dspy.Predict:
    """`task`'s step compiled by `optimizer` with at most `demos` demonstrations. `budget` bounds the work:
    training examples tried (bootstrap), trials (mipro) or metric calls (gepa); labeled calls no model."""
    check_optimizer(optimizer, [task])
    student = task.student()
    if optimizer == "labeled":
        return dspy.LabeledFewShot(k=demos).compile(student, trainset=demo_pool(task.trainset, demos))
    if optimizer == "bootstrap":
        teleprompter = dspy.BootstrapFewShot(metric=task.metric, metric_threshold=BOOTSTRAP_THRESHOLD,
                                             max_bootstrapped_demos=demos, max_labeled_demos=0)
        return teleprompter.compile(student, trainset=task.trainset[:budget])
    if optimizer == "mipro":
        teleprompter = dspy.MIPROv2(metric=task.metric, prompt_model=lm, task_model=lm, auto=None,
                                    num_candidates=max(2, budget // 2), max_bootstrapped_demos=demos,
                                    max_labeled_demos=demos if task.labeled else 0, num_threads=1, seed=seed)
        return teleprompter.compile(student, trainset=task.trainset, valset=task.devset, num_trials=budget,
                                    minibatch=len(task.devset) > 10, minibatch_size=min(10, len(task.devset)),
                                    requires_permission_to_run=False)
    teleprompter = dspy.GEPA(metric=task.metric, max_metric_calls=budget, reflection_lm=lm, num_threads=1,
                             seed=seed, track_stats=True)
    return teleprompter.compile(student, trainset=task.trainset, valset=task.devset)


def dev_score(predictor: dspy.Predict, task: StepTask, display_progress: bool = False) -> float:
    """Mean metric of `predictor` over the task's dev examples, from 0 to 1."""
    if not task.devset:
        raise ConfigError(f"no dev examples for the {task.step} step")
    evaluator = dspy.Evaluate(devset=task.devset, metric=task.metric, num_threads=1,
                              display_progress=display_progress, provide_traceback=False)
    return round(float(evaluator(predictor).score) / 100, 4)
