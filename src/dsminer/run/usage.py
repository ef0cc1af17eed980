"""Count LLM calls, tokens and the time spent waiting on the model, per paper and per run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_s: float = 0.0  # seconds spent inside LM calls (waiting on the endpoint)

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.calls + other.calls, self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens, self.model_s + other.model_s)


def usage_of(history: list[dict[str, Any]]) -> Usage:
    """Sum the calls and token counts of LM history entries (cache hits count as calls with no tokens)."""
    total = Usage()
    for entry in history:
        usage = entry.get("usage") or {}
        total += Usage(1, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
    return total


class UsageMeter:
    """Reads the usage an LM added since the last `take()`: from its history, and the seconds its calls
    waited when it counts them (`dsminer.backend.lm.TimedLM`).

    The history is capped (old entries drop off the front), so the meter remembers the last entry
    it saw rather than an index. `history` reads another history than the LM's (then `lm` may be None).
    """

    def __init__(self, lm: Any, history: list[dict[str, Any]] | None = None) -> None:
        self.lm = lm
        self.history: list[dict[str, Any]] = lm.history if history is None else history
        self.last = self.history[-1] if self.history else None
        self.waited = self._waited()

    def _waited(self) -> float:
        return float(getattr(self.lm, "waited_s", 0.0))

    def take(self) -> Usage:
        start = len(self.history)
        while start > 0 and self.history[start - 1] is not self.last:
            start -= 1
        used = usage_of(self.history[start:])
        self.last = self.history[-1] if self.history else None
        waited, self.waited = self.waited, self._waited()
        used.model_s = self.waited - waited
        return used


def all_calls_meter() -> UsageMeter:
    """A meter over every LM call of the process, an LM's copies included (DSPy's global history): an optimiser
    also calls copies of the LM it is given (MIPROv2's instruction proposer does), whose histories are their own."""
    from dspy.clients.base_lm import GLOBAL_HISTORY

    return UsageMeter(None, GLOBAL_HISTORY)
