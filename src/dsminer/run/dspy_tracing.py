"""DSPy's calls in a run's traces, without the adapter's spans."""

from __future__ import annotations

from typing import Any

import dspy
import mlflow
from mlflow.dspy.callback import MlflowCallback


class ModelCallSpans(MlflowCallback):
    """MLflow's DSPy callback without the adapter's spans: a span per module and per model call (holding the
    prompt and the answer), none for formatting the prompt and parsing the answer, whose two spans per call
    serialised the prompt and the prediction again under the run's GIL."""

    def on_adapter_format_start(self, *args: Any, **kwargs: Any) -> None:
        return None

    on_adapter_format_end = on_adapter_parse_start = on_adapter_parse_end = on_adapter_format_start


def trace_dspy_calls() -> None:
    """Trace DSPy's modules and model calls into the active run (`mlflow.dspy.autolog`, with `ModelCallSpans`
    as its callback unless one is set already)."""
    if not any(isinstance(callback, MlflowCallback) for callback in dspy.settings.callbacks):
        dspy.settings.configure(callbacks=[*dspy.settings.callbacks, ModelCallSpans()])
    mlflow.dspy.autolog()
