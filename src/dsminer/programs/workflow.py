"""S0: the fixed workflow. Metadata, dataset names, then one detail call per dataset.

No reflection, no memory, no retries: each step runs once, and a step that fails is logged and
left empty so the rest of the paper still yields records.
"""

from __future__ import annotations

import logging

import dspy

from dsminer.runlog import EventLog
from dsminer.schema import DatasetRecord, PaperRefs
from dsminer.signatures import ExtractDatasetDetails, ExtractDatasetNames, ExtractPaperMetadata
from dsminer.tools.context import build_paper_context
from dsminer.tools.names import clean_dataset_names
from dsminer.tools.pdf import ParsedPaper, first_pages_text
from dsminer.tools.records import DatasetDetails, build_record, refs_from_metadata

log = logging.getLogger(__name__)
METADATA_CHARS = 2500
# Output budgets per step: enough for the fields, short enough that a looping answer stops early.
STEP_TOKENS = {"metadata": 256, "names": 200, "details": 256}


class WorkflowExtractor(dspy.Module):
    """S0: parse, metadata, names, details; every step exactly once."""

    def __init__(self, max_records: int = 5, context_sentences: int = 40) -> None:
        super().__init__()
        self.max_records = max_records
        self.context_sentences = context_sentences
        self.metadata = dspy.Predict(ExtractPaperMetadata, max_tokens=STEP_TOKENS["metadata"])
        self.names = dspy.Predict(ExtractDatasetNames, max_tokens=STEP_TOKENS["names"])
        self.details = dspy.Predict(ExtractDatasetDetails, max_tokens=STEP_TOKENS["details"])

    def forward(self, paper: ParsedPaper, supplied: PaperRefs | None = None, events: EventLog | None = None) -> list[DatasetRecord]:
        events = events or EventLog()
        refs = self.paper_refs(paper, supplied, events)
        context = build_paper_context(paper, self.context_sentences)
        names = self.dataset_names(paper, context, events)[: self.max_records]
        return [build_record(paper, refs, name, self.dataset_details(paper, context, name, events), events=events)
                for name in names]

    def paper_refs(self, paper: ParsedPaper, supplied: PaperRefs | None, events: EventLog) -> PaperRefs:
        if supplied is not None and supplied.title:
            events.emit("metadata_supplied", paper=paper.file_name, step="metadata", title=supplied.title)
            return supplied
        prediction = _run_step(self.metadata, events, paper, "metadata", first_page=first_pages_text(paper, METADATA_CHARS))
        if prediction is None:
            return supplied or PaperRefs()
        return refs_from_metadata(prediction.title, prediction.authors, prediction.institutions,
                                  prediction.venue, prediction.year, supplied)

    def dataset_names(self, paper: ParsedPaper, context: str, events: EventLog) -> list[str]:
        prediction = _run_step(self.names, events, paper, "names", context=context)
        raw = list(prediction.dataset_names or []) if prediction is not None else []
        names = clean_dataset_names(raw, paper.text)
        events.emit("result", paper=paper.file_name, step="names", raw=raw, kept=names)
        return names

    def dataset_details(self, paper: ParsedPaper, context: str, name: str, events: EventLog) -> DatasetDetails:
        prediction = _run_step(self.details, events, paper, "details", context=context, dataset_name=name)
        if prediction is None:
            return DatasetDetails()
        return DatasetDetails(prediction.content, prediction.data_type, prediction.domain,
                              prediction.data_fields or [], prediction.link)


def _run_step(predictor: dspy.Predict, events: EventLog, paper: ParsedPaper, step: str, **inputs: str) -> dspy.Prediction | None:
    """Call one predictor; a failure is an event and an empty result, never a lost paper."""
    events.emit("action", paper=paper.file_name, step=step, inputs={k: len(v) for k, v in inputs.items()})
    try:
        return predictor(**inputs)
    except Exception as exc:  # noqa: BLE001  (adapter parse errors, backend errors on one call)
        if _is_backend_down(exc):
            raise
        log.warning("%s: step %s failed: %s", paper.file_name, step, exc)
        events.emit("step_failed", paper=paper.file_name, step=step, error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def _is_backend_down(exc: Exception) -> bool:
    """Connection failures end the run (they would fail every paper); parse failures do not."""
    name = type(exc).__name__
    return name in {"APIConnectionError", "ServiceUnavailableError", "AuthenticationError"}
