"""How a program calls one predictor, shared by every condition: an action event, and a failure turned
into an empty result rather than a lost paper."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import dspy

from dsminer.runlog import EventLog
from dsminer.tools.pdf import ParsedPaper
from dsminer.schema import PaperRefs
from dsminer.tools.records import DatasetDetails, refs_from_metadata

log = logging.getLogger(__name__)
METADATA_CHARS = 2500
# Output budgets per step: enough for the fields, short enough that a looping answer stops early.
STEP_TOKENS = {"metadata": 256, "names": 200, "details": 256, "reflection": 160}


def run_step(predictor: dspy.Predict, events: EventLog, paper: ParsedPaper, step: str, inputs: Mapping[str, str],
             config: Mapping[str, Any] | None = None, **action: Any) -> dspy.Prediction | None:
    """Call one predictor; a failure is an event and an empty result, never a lost paper.

    `config` goes to the LM call (e.g. a `rollout_id`); `action` adds fields to the action event.
    """
    events.emit("action", paper=paper.file_name, step=step, inputs={k: len(v) for k, v in inputs.items()}, **action)
    try:
        return predictor(**inputs, config=dict(config)) if config else predictor(**inputs)
    except Exception as exc:  # noqa: BLE001  (adapter parse errors, backend errors on one call)
        if is_backend_down(exc):
            raise
        first_line = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        log.warning("%s: step %s failed: %s", paper.file_name, step, first_line)
        events.emit("step_failed", paper=paper.file_name, step=step, error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def is_backend_down(exc: Exception) -> bool:
    """Connection failures end the run (they would fail every paper); parse failures do not."""
    name = type(exc).__name__
    return name in {"APIConnectionError", "ServiceUnavailableError", "AuthenticationError"}


def names_of(prediction: dspy.Prediction | None) -> list[str]:
    """The raw names a names step proposed; none when it failed."""
    return list(prediction.dataset_names or []) if prediction is not None else []


def details_of(prediction: dspy.Prediction | None) -> DatasetDetails:
    """The description a detail step proposed; empty when it failed."""
    if prediction is None:
        return DatasetDetails()
    return DatasetDetails(prediction.content, prediction.data_type, prediction.domain,
                          prediction.data_fields or [], prediction.link)


def refs_of(prediction: dspy.Prediction | None, supplied: PaperRefs | None = None) -> PaperRefs:
    """Paper references from a metadata step, supplied values winning; the supplied ones when it failed."""
    if prediction is None:
        return supplied or PaperRefs()
    return refs_from_metadata(prediction.title, prediction.authors, prediction.institutions,
                              prediction.venue, prediction.year, supplied)
