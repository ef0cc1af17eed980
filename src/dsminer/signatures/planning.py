"""The optimised agent's planner: choose the next tool from the state of the document."""

from __future__ import annotations

import functools
from typing import Literal

import dspy


class ChooseNextTool(dspy.Signature):
    """Choose the next tool for finding the datasets a paper uses or creates, from the state of the work.
    Read what the paper shows about its data (tables, data sections, references) before naming its datasets;
    for each dataset, search its links, describe it and verify it; recover a stuck dataset with the section,
    table, keyword and reference tools; normalise the records last."""

    state: str = dspy.InputField(desc="what is done, what is pending, stuck datasets, failures, steps left")
    tools: str = dspy.InputField(desc="the tools allowed now, one a line: name(arguments): what it does")
    memory_block: str = dspy.InputField(desc="lessons from earlier papers; may be empty")
    tool: str = dspy.OutputField(desc="the name of one allowed tool")
    reason: str = dspy.OutputField(desc="why, in a few words")


@functools.lru_cache(maxsize=256)
def choose_among(allowed: tuple[str, ...]) -> type[dspy.Signature]:
    """`ChooseNextTool` with `tool` a Literal over the allowed tools, so a schema-constrained answer can only
    name one of them (one class per set of tools, so each set's response format is built once)."""
    return ChooseNextTool.with_updated_fields("tool", type_=Literal[allowed])  # type: ignore[valid-type]
