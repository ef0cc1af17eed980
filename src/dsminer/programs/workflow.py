"""S0: the fixed workflow. Metadata, dataset names, then one detail call per dataset.

No reflection, no memory, no retries: each step runs once, and a step that fails is logged and
left empty so the rest of the paper still yields records.
"""

from __future__ import annotations

import logging

import dspy

from dsminer.programs.steps import METADATA_CHARS, STEP_TOKENS, details_of, names_of, refs_of, run_step
from dsminer.runlog import EventLog
from dsminer.schema import PaperRefs
from dsminer.signatures import ExtractDatasetDetails, ExtractDatasetNames, ExtractPaperMetadata
from dsminer.tools.context import build_paper_context
from dsminer.tools.names import clean_dataset_names
from dsminer.tools.pdf import ParsedPaper, first_pages_text
from dsminer.tools.records import DatasetDetails, build_record

log = logging.getLogger(__name__)


class WorkflowExtractor(dspy.Module):
    """S0: parse, metadata, names, details; every step exactly once."""

    def __init__(self, max_records: int = 5, context_sentences: int = 40) -> None:
        super().__init__()
        self.max_records = max_records
        self.context_sentences = context_sentences
        self.metadata = dspy.Predict(ExtractPaperMetadata, max_tokens=STEP_TOKENS["metadata"])
        self.names = dspy.Predict(ExtractDatasetNames, max_tokens=STEP_TOKENS["names"])
        self.details = dspy.Predict(ExtractDatasetDetails, max_tokens=STEP_TOKENS["details"])

    def forward(self, paper: ParsedPaper, supplied: PaperRefs | None = None, events: EventLog | None = None) -> dspy.Prediction:
        """The paper's records, as `Prediction.records`."""
        events = events or EventLog()
        refs = self.paper_refs(paper, supplied, events)
        context = build_paper_context(paper, self.context_sentences)
        names = self.dataset_names(paper, context, events)[: self.max_records]
        records = [build_record(paper, refs, name, self.dataset_details(paper, context, name, events), events=events,
                                other_names=names) for name in names]
        return dspy.Prediction(records=records)

    def paper_refs(self, paper: ParsedPaper, supplied: PaperRefs | None, events: EventLog) -> PaperRefs:
        if supplied is not None and supplied.title:
            events.emit("metadata_supplied", paper=paper.file_name, step="metadata", title=supplied.title)
            return supplied
        first_page = first_pages_text(paper, METADATA_CHARS)
        return refs_of(run_step(self.metadata, events, paper, "metadata", {"first_page": first_page}), supplied)

    def dataset_names(self, paper: ParsedPaper, context: str, events: EventLog) -> list[str]:
        raw = names_of(run_step(self.names, events, paper, "names", {"context": context}))
        names = clean_dataset_names(raw, paper.text)
        events.emit("result", paper=paper.file_name, step="names", raw=raw, kept=names)
        return names

    def dataset_details(self, paper: ParsedPaper, context: str, name: str, events: EventLog) -> DatasetDetails:
        return details_of(run_step(self.details, events, paper, "details", {"context": context, "dataset_name": name}))

