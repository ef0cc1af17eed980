"""Which DSPy module runs for which condition."""

from __future__ import annotations

import dspy

from dsminer.config import Settings
from dsminer.errors import ConfigError
from dsminer.programs.workflow import WorkflowExtractor


def build_program(settings: Settings) -> dspy.Module:
    """The condition's program, built from the settings."""
    if settings.condition == "s0":
        return WorkflowExtractor(settings.max_records_per_paper, settings.context_sentences)
    raise ConfigError(f"condition {settings.condition} is not available in this version (available: s0)")
