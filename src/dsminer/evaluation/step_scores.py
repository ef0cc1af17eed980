"""Scores of one step's output on one example, with feedback in words: the optimisers' metrics. Model-free.

The names score is the run's own gold scoring (`judge_keys`) applied to the datasets the shared selection
keeps, so a program compiled for it is compiled for what `dsminer evaluate` measures.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dsminer.evaluation.gold import GoldPaper, judge_keys, name_keys
from dsminer.evaluation.measures import f1, precision, recall
from dsminer.evidence.records import DatasetDetails
from dsminer.mentions.selection import ChosenDataset
from dsminer.schema import normalize_name

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]{3,}")
# Words in the evidence that support a kind of data: a data type is grounded when the evidence has its cue.
_TYPE_CUES = {
    "image": r"imag|photo|pixel|picture|visual|scene|camera|segment|annotat",
    "video": r"video|frame|clip|action",
    "text": r"text|sentence|document|word|article|question|answer|review|corpus|token|language|dialog",
    "audio": r"audio|speech|sound|utterance|spoken|acoustic",
    "tabular": r"tabular|spreadsheet|csv|columns? of|attributes|records",  # not "Table 2": every paper has one
    "graph": r"graph|node|edge|network|link",
    "time series": r"time series|temporal|sensor|signal",
}
_COMMON = frozenset("this that with from they their which these those have been were into than dataset data "
                    "contains consists collection paper used using such each other also more most".split())


@dataclass(frozen=True)
class NamesScore:
    """How the datasets kept for one paper compare with its gold."""

    gold: int
    recalled: int
    kept: int
    correct: int
    supported: int
    missed: tuple[str, ...]
    wrong: tuple[str, ...]

    @property
    def recall(self) -> float:
        return recall(self.recalled, self.gold)

    @property
    def precision_lenient(self) -> float:
        return precision(self.correct + self.supported, self.kept, self.gold)

    @property
    def value(self) -> float:
        """F1 of recall and lenient precision, the number the names optimiser maximises."""
        return f1(self.precision_lenient, self.recall)


def score_names(chosen: Sequence[ChosenDataset], gold: GoldPaper) -> NamesScore:
    """Score the kept datasets against the paper's gold datasets and material mentions."""
    found: set[str] = set()
    correct = supported = 0
    wrong: list[str] = []
    for dataset in chosen:
        mark, hits = judge_keys(name_keys(dataset.name, dataset.aliases), gold)
        if mark == "correct":
            correct += 1
            found.update(hit.name for hit in hits)
        elif mark == "supported":
            supported += 1
        else:
            wrong.append(dataset.name)
    missed = tuple(dataset.name for dataset in gold.datasets if dataset.name not in found)
    return NamesScore(len(gold.datasets), len(gold.datasets) - len(missed), len(chosen), correct, supported,
                      missed, tuple(wrong))


def names_feedback(score: NamesScore, kind_of: Callable[[str], str | None], shown: str) -> str:
    """What went wrong with one names answer, in words an optimiser's reflection model can act on."""
    lines = [f"Recall {score.recall:.2f}, precision {score.precision_lenient:.2f}."]
    for name in score.missed:
        where = "it is in the context" if normalize_name(name) in normalize_name(shown) else "it is not in the context"
        lines.append(f"Missed the dataset {name!r} ({where}); it should be kind dataset.")
    for name in score.wrong:
        kind = kind_of(name)
        lines.append(f"{name!r} is not a dataset of this paper" + (f": it is a {kind}." if kind else "."))
    if len(lines) == 1:
        lines.append("Every dataset found, nothing wrong kept.")
    return "\n".join(lines)


def _content_words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)} - _COMMON


def type_supported(data_type: str, evidence: str) -> bool | None:
    """Whether the evidence has a cue of the kind of data `data_type` names ("images": image words); None when
    the type is none of the kinds known here."""
    for kind, cue in _TYPE_CUES.items():
        if kind in data_type.casefold():
            return bool(re.search(cue, evidence, re.I))
    return None


def score_details(details: DatasetDetails, evidence: str) -> tuple[float, str]:
    """Field completeness and grounding of one detail answer, as (score, feedback).

    Completeness is the share of the four fields filled; grounding the share of the content words of the
    description, domain and fields that the evidence contains. The score is their mean, halved when the data
    type is a known kind the evidence has no cue of ("tabular" for a dataset of photographs), so such an
    answer never passes as a demonstration."""
    filled = [details.content, details.data_type, details.domain, details.fields]
    completeness = sum(bool(value) for value in filled) / len(filled)
    answer = " ".join([details.content or "", details.domain or "", *details.fields])
    words = _content_words(answer)
    grounded = words & _content_words(evidence)
    grounding = len(grounded) / len(words) if words else 0.0
    wrong_type = bool(details.data_type) and type_supported(details.data_type or "", evidence) is False
    empty = [name for name, value in zip(("content", "data_type", "domain", "data_fields"), filled) if not value]
    feedback = [f"Completeness {completeness:.2f}, grounding {grounding:.2f}."]
    if empty:
        feedback.append(f"Empty: {', '.join(empty)}; fill them when the evidence says them.")
    if wrong_type:
        feedback.append(f"The evidence says nothing of {details.data_type} data; give the kind of data it describes.")
    if words - grounded:
        unsupported = ", ".join(sorted(words - grounded)[:12])
        feedback.append(f"Words not in the evidence: {unsupported}; use the paper's words.")
    return (completeness + grounding) / 2 * (0.5 if wrong_type else 1.0), "\n".join(feedback)
