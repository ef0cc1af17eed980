"""S0: the fixed workflow. Metadata, dataset names, a check of each name the selection keeps, then one detail call
per dataset.

No reflection, no memory, no retries: each step runs once, and a step that fails is logged and
left empty so the rest of the paper still yields records.
"""

from __future__ import annotations

import logging

import dspy

from dsminer.document.pdf import ParsedPaper, first_pages_text
from dsminer.events import EventLog, current_events
from dsminer.evidence.context import dataset_evidence
from dsminer.evidence.records import DatasetDetails, build_record, complete_refs
from dsminer.mentions.evidence_model import EvidenceModel
from dsminer.mentions.selection import ChosenDataset
from dsminer.programs.steps import (
    METADATA_CHARS,
    STEP_TOKENS,
    NameCheck,
    checked_datasets,
    choose_datasets,
    details_of,
    names_inputs,
    proposals_of,
    refs_of,
    run_step,
    shown_text,
)
from dsminer.schema import PaperRefs
from dsminer.signatures import ClassifyDatasetNames, DescribeDataset, ExtractPaperMetadata

log = logging.getLogger(__name__)


class WorkflowExtractor(dspy.Module):
    """S0: parse, metadata, names, checks, details; every step exactly once (the check once per name)."""

    def __init__(self, max_records: int = 5, context_sentences: int = 40, catalog: frozenset[str] = frozenset(),
                 check_names: bool = True, check_examples: bool = False) -> None:
        super().__init__()
        self.max_records = max_records
        self.context_sentences = context_sentences
        self.catalog = catalog
        self.metadata = dspy.Predict(ExtractPaperMetadata, max_tokens=STEP_TOKENS["metadata"])
        self.names = dspy.Predict(ClassifyDatasetNames, max_tokens=STEP_TOKENS["names"])
        self.check = NameCheck(check_examples) if check_names else None
        self.details = dspy.Predict(DescribeDataset, max_tokens=STEP_TOKENS["details"])
        self.evidence_model: EvidenceModel | None = None

    def use_evidence_model(self, model: EvidenceModel | None) -> None:
        """Weigh the names step's datasets by `model` (fitted for the model that answers) in the selection."""
        self.evidence_model = model

    def forward(self, paper: ParsedPaper, supplied: PaperRefs | None = None) -> dspy.Prediction:
        """The paper's records, as `Prediction.records`; the steps' events go to the log the run is recording."""
        events = current_events()
        refs = self.paper_refs(paper, supplied, events)
        datasets = self.dataset_names(paper, events)
        names = [dataset.name for dataset in datasets]
        records = [build_record(paper, refs, d.name, self.dataset_details(paper, d, events), d.aliases, events,
                                other_names=names, role=d.role) for d in datasets]
        return dspy.Prediction(records=records)

    def paper_refs(self, paper: ParsedPaper, supplied: PaperRefs | None, events: EventLog) -> PaperRefs:
        known = complete_refs(supplied)
        if known is not None:
            events.emit("metadata_supplied", paper=paper.file_name, step="metadata", title=known.title)
            return known
        first_page = first_pages_text(paper, METADATA_CHARS)
        return refs_of(run_step(self.metadata, events, paper, "metadata", {"first_page": first_page}), supplied)

    def dataset_names(self, paper: ParsedPaper, events: EventLog) -> list[ChosenDataset]:
        inputs = names_inputs(paper, self.context_sentences, catalog=self.catalog)
        events.emit("names_input", paper=paper.file_name, step="names", text=shown_text(inputs))
        proposals = proposals_of(run_step(self.names, events, paper, "names", inputs))
        selection = choose_datasets(paper, proposals, self.max_records, events, self.evidence_model)
        return checked_datasets(paper, selection, self.max_records, self.check, events)

    def dataset_details(self, paper: ParsedPaper, dataset: ChosenDataset, events: EventLog) -> DatasetDetails:
        evidence = dataset_evidence(paper, [dataset.name, *dataset.aliases])
        inputs = {"dataset_name": dataset.name, "evidence": evidence}
        return details_of(run_step(self.details, events, paper, "details", inputs, dataset=dataset.name))
