"""Benchmark cues in a paper's body: result tables, evaluation phrases and candidate dataset names.

Rule reflection reads these to judge whether a names step found too few datasets. The cues are
generic (wording and token shape); known names come only from a catalogue the caller loads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dsminer.mentions.candidates import MAX_CANDIDATES, candidate_names
from dsminer.mentions.catalog import catalog_names_in
from dsminer.mentions.lexicon import DATA_NOUN

_RESULT_CAPTION = re.compile(
    r"^(?:Table|Tab\.|TABLE)\s*[0-9IVX]+[:.].*\b(?:results?|accuracy|performance|comparison|scores?|F1|error)\b",
    re.I,
)
_EVALUATION = re.compile(
    r"\b(?:evaluat\w*|experiments?|tested|trained|benchmark\w*|fine-?tuned?|results?|performance)\b"
    r"(?:\s+\w+){0,4}?\s+(?:on|using)\b",
    re.I,
)


@dataclass(frozen=True)
class BenchmarkCues:
    """What the body text says about evaluation, and the names it writes next to such cues."""

    result_tables: int = 0
    evaluation_phrases: int = 0
    candidates: tuple[str, ...] = ()

    def expected_datasets(self) -> int:
        """How many datasets a names step should find at least (0 to 3)."""
        evaluated = 1 if self.result_tables or self.evaluation_phrases else 0
        return min(3, max(len(self.candidates), evaluated))

    def tags(self) -> list[str]:
        """Coarse features for matching this paper with earlier experiences."""
        tags = [name for name, present in (("result_tables", self.result_tables), ("evaluation_phrases",
                self.evaluation_phrases), ("named_candidates", self.candidates)) if present]
        return tags or ["no_benchmark_cues"]

    def describe(self) -> str:
        """One short line for a prompt or an event."""
        names = ", ".join(self.candidates[:6]) or "none"
        return (f"{self.result_tables} result tables, {self.evaluation_phrases} evaluation phrases, "
                f"candidate names near cues: {names}")


def find_benchmark_cues(sentences: Sequence[str], catalog: Iterable[str] = ()) -> BenchmarkCues:
    """Cues of the body sentences (reference list left out) and catalogue names the text writes."""
    tables = sum(bool(_RESULT_CAPTION.match(s)) for s in sentences)
    evaluating = [s for s in sentences if _EVALUATION.search(s)]
    names: dict[str, str] = {}
    for sentence in [*evaluating, *(s for s in sentences if DATA_NOUN.search(s))]:
        for name in candidate_names(sentence):
            names.setdefault(name.casefold(), name)
    for name in catalog_names_in("\n".join(sentences), catalog):
        names.setdefault(name.casefold(), name)
    return BenchmarkCues(tables, len(evaluating), tuple(list(names.values())[:MAX_CANDIDATES]))
