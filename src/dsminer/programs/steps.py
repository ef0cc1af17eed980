"""What every condition shares around its model calls: how a predictor is called (an action event, faults
retried under the paper's guard, a failed step turned into an empty result), what the names step reads,
and how its decisions become the paper's datasets."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

from dsminer.backend.adapter import OneWordAdapter
from dsminer.document.pdf import ParsedPaper
from dsminer.events import EventLog
from dsminer.evidence.candidate_ranker import offer_candidates, phrase_log_odds
from dsminer.evidence.context import CONTEXT_CHARS, build_paper_context, name_sentence
from dsminer.evidence.records import DatasetDetails, refs_from_metadata
from dsminer.faults import StepFailure, current_guard
from dsminer.mentions.evidence_model import EvidenceModel
from dsminer.mentions.names import names_its_data, spelled_out
from dsminer.mentions.selection import ChosenDataset, Proposal, Selection, select_datasets
from dsminer.schema import PaperRefs
from dsminer.signatures import CHECK_EXAMPLES, CheckDatasetName

log = logging.getLogger(__name__)
METADATA_CHARS = 2000
# Output budgets per step: enough for the fields, short enough that a looping answer stops early.
STEP_TOKENS = {"metadata": 256, "names": 450, "details": 160, "reflection": 160, "check": 4}
# A malformed answer's retry: sampled afresh (its own cache entry), since at temperature 0 it would come back the same.
RESAMPLE = {"temperature": 0.7, "rollout_id": 1000}


def run_step(predictor: dspy.Predict, events: EventLog, paper: ParsedPaper, step: str, inputs: Mapping[str, Any],
             config: Mapping[str, Any] | None = None, **action: Any) -> dspy.Prediction | None:
    """Call one predictor under the paper's guard (see `dsminer.faults`).

    An endpoint fault is retried with backoff and then ends the paper (`EndpointError`); a malformed
    answer is retried once, sampled afresh (`RESAMPLE`), and then the step fails: a `parse_failed` or
    `step_failed` event and an empty result, and the paper is written `partial`. `config` goes to the LM call
    (e.g. a `rollout_id`); `action` adds fields to the action event.
    """
    sizes = {k: len(v) for k, v in inputs.items() if isinstance(v, (str, list))}
    events.emit("action", paper=paper.file_name, step=step, inputs=sizes, **action)
    guard = current_guard()
    config = config or {}
    resampled = {**config, **RESAMPLE, "rollout_id": RESAMPLE["rollout_id"] + config.get("rollout_id", 0)}
    try:
        return guard.call(lambda: predictor(**inputs, config=dict(config)) if config else predictor(**inputs),
                          step, lambda kind, **fields: events.emit(kind, paper=paper.file_name, step=step, **fields),
                          lambda: predictor(**inputs, config=resampled))
    except StepFailure as failure:
        log.warning("%s: step %s failed: %s", paper.file_name, step, failure.reason)
        events.emit(failure.kind, paper=paper.file_name, step=step, error=failure.reason[:300])
        return None


def names_inputs(paper: ParsedPaper, max_sentences: int, catalog: Iterable[str] = (),
                 max_chars: int = CONTEXT_CHARS) -> dict[str, Any]:
    """The names step's input: the paper context (about `max_chars`) and the candidate names found by code."""
    return {"context": build_paper_context(paper, max_sentences, max_chars=max_chars),
            "candidates": list(candidate_names_of(paper, catalog))}


def candidate_names_of(paper: ParsedPaper, catalog: Iterable[str] = ()) -> tuple[str, ...]:
    """The candidate names the names step is offered for `paper`, best first."""
    return tuple(candidate.name for candidate in offer_candidates(paper, catalog))


def shown_text(inputs: Mapping[str, Any]) -> str:
    """Everything a names step was shown, as one text (logged for context coverage)."""
    return f"{inputs['context']}\n\nCandidates: {'; '.join(inputs['candidates'])}"


def proposals_of(prediction: dspy.Prediction | None) -> list[Proposal]:
    """The typed decisions a names step returned; none when it failed."""
    if prediction is None:
        return []
    proposals = []
    for item in prediction.names or []:
        fields = item if isinstance(item, Mapping) else getattr(item, "__dict__", {})
        name = str(fields.get("name") or "").strip()
        if name:
            proposals.append(Proposal(name, str(fields.get("kind") or "other"), str(fields.get("role") or "used")))
    return proposals


def choose_datasets(paper: ParsedPaper, proposals: Sequence[Proposal], cap: int, events: EventLog,
                    evidence_model: EvidenceModel | None = None, **fields: Any) -> Selection:
    """The paper's datasets from all proposals so far, by the shared selection, with a result event."""
    selection = select_datasets(proposals, paper.text, cap, paper.body_sentences(), evidence_model,
                                evidence_phrase_scores(paper, evidence_model))
    events.emit("result", paper=paper.file_name, step="names",
                raw=[{"name": p.name, "kind": p.kind, "role": p.role} for p in proposals],
                kept=[d.name for d in selection.chosen], capped=[d.name for d in selection.capped],
                dropped=[{"name": name, "reason": reason} for name, reason in selection.dropped],
                **({"trust": selection.trust} if selection.trust else {}), **fields)
    return selection


class NameCheck(dspy.Module):
    """The check step: what the model reads one name as in one sentence of the paper (`CheckDatasetName`, asked
    through `OneWordAdapter`, whatever adapter the run's other steps use). An answer that is none of the kinds (the
    name copied back) reads as nothing: `kind` None, and the paper's other steps go on as if unasked. With
    `examples`, the model is shown `CHECK_EXAMPLES` first, each a question and its answer."""

    def __init__(self, examples: bool = False) -> None:
        super().__init__()
        self.predict = dspy.Predict(CheckDatasetName, max_tokens=STEP_TOKENS["check"])
        if examples:
            self.predict.demos = [dspy.Example(**example) for example in CHECK_EXAMPLES]

    def forward(self, text: str, name: str, config: Mapping[str, Any] | None = None) -> dspy.Prediction:
        with dspy.context(adapter=OneWordAdapter()):
            try:
                return self.predict(text=text, name=name, config=dict(config or {}))
            except AdapterParseError:
                return dspy.Prediction(kind=None)


def checked_datasets(paper: ParsedPaper, selection: Selection, cap: int, check: NameCheck | None,
                     events: EventLog) -> list[ChosenDataset]:
    """The selection's datasets, best first, up to `cap`, less each that the check step reads as something other
    than a dataset (software, a method, an organisation, ...); each left out gives its place to the next one the cap
    cut. A name no body sentence writes, or whose check fails, stays: the model has not said otherwise. Without a
    check (`check_names` off), the selection's own datasets."""
    if check is None:
        return list(selection.chosen)

    def dropped(dataset: ChosenDataset, kind: str | None) -> None:
        events.emit("dropped", paper=paper.file_name, step="check", dataset=dataset.name, reason=f"read as {kind}")

    return first_checked(selection, cap, lambda dataset: _checked_kind(paper, dataset, check, events), paper.text,
                         dropped)


def check_keeps(kind: str | None, dataset: ChosenDataset, text: str) -> bool:
    """Whether the check step's answer leaves a dataset in: no answer, or "dataset"; or "organisation" where the paper
    writes the name before data ("X claims data", "the X database"), as data named by their maker are written."""
    return kind in (None, "dataset") or kind == "organisation" and names_its_data((dataset.name, *dataset.aliases),
                                                                                 text)


def first_checked(selection: Selection, cap: int, read_as: Callable[[ChosenDataset], str | None], text: str,
                  dropped: Callable[[ChosenDataset, str | None], None] | None = None) -> list[ChosenDataset]:
    """The selection's datasets, best first, up to `cap`, less each whose `read_as` answer does not keep it (see
    `check_keeps`; `dropped` is told of each, with the answer); each left out gives its place to the next one the
    cap cut. `read_as` is asked in that order, and no further than the cap needs."""
    kept: list[ChosenDataset] = []
    for dataset in [*selection.chosen, *selection.capped]:
        if len(kept) == cap:
            break
        kind = read_as(dataset)
        if check_keeps(kind, dataset, text):
            kept.append(dataset)
        elif dropped is not None:
            dropped(dataset, kind)
    return kept


def _checked_kind(paper: ParsedPaper, dataset: ChosenDataset, check: NameCheck, events: EventLog) -> str | None:
    text = name_sentence(paper, [dataset.name, *dataset.aliases])
    if not text:
        return None
    prediction = run_step(check, events, paper, "check", {"text": text, "name": checked_name(dataset.name, paper.text)},
                          dataset=dataset.name)
    kind = None if prediction is None or prediction.kind is None else str(prediction.kind)
    events.emit("result", paper=paper.file_name, step="check", dataset=dataset.name, read_as=kind)
    return kind


def checked_name(name: str, text: str) -> str:
    """The name as the check step is asked of it: an acronym with the words the paper spells it out as ("QECH (Queen
    Elizabeth Central Hospital)"), which say what it is where the sentence may not; any other name as it is."""
    phrases = spelled_out(name.strip(), text)
    return f"{name} ({phrases[0]})" if phrases else name


def evidence_phrase_scores(paper: ParsedPaper, evidence_model: EvidenceModel | None) -> dict[str, float] | None:
    """The candidate ranker's log-odds of the paper's phrases, which the evidence model reads; None without one."""
    return phrase_log_odds(paper) if evidence_model is not None else None


def details_of(prediction: dspy.Prediction | None) -> DatasetDetails:
    """The description a detail step proposed; empty when it failed."""
    if prediction is None:
        return DatasetDetails()
    return DatasetDetails(prediction.content, prediction.data_type, prediction.domain, prediction.data_fields or [])


def refs_of(prediction: dspy.Prediction | None, supplied: PaperRefs | None = None) -> PaperRefs:
    """Paper references from a metadata step, supplied values winning; the supplied ones when it failed."""
    if prediction is None:
        return supplied or PaperRefs()
    return refs_from_metadata(prediction.title, prediction.authors, prediction.institutions,
                              prediction.venue, prediction.year, supplied)
