"""Which sentences the names step reads: a logistic model over how a sentence is written and where it lies, fitted
on papers whose datasets are known (`dsminer fit-ranker`), so that no field's phrasing is weighted by hand.

A sentence's features are the cues of `dsminer.mentions.cues` counted one by one, whether it lies in a data,
experiment or evaluation section or before the first heading, where it lies in the paper, and the lower-case words
it writes (names are never features: a word of a training dataset's name is left out of the vocabulary unless it
is data vocabulary)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, NamedTuple, Self, TypeVar

from dsminer.document.pdf import ParsedPaper, Sentence
from dsminer.document.sections import is_data_section, section_titles
from dsminer.document.text import TABLE_CAPTION
from dsminer.errors import ConfigError
from dsminer.mentions.cues import cue_features

RANKER_FILE = Path(__file__).with_name("sentence-ranker.json")
POSITION_BINS = 5
WORD = re.compile(r"(?<![\w-])[a-z][a-z-]{2,}(?![\w-])")


class PaperSentence(NamedTuple):
    """A sentence the names step may read: its index in `paper.indexed_sentences()` and its features."""

    index: int
    sentence: Sentence
    features: dict[str, float]


def sentence_features(text: str, data_section: bool, table_page: bool, position: float,
                      front_matter: bool = False) -> dict[str, float]:
    """The ranker's features of one sentence; `position` is its place in the paper, from 0 to 1; `front_matter`:
    before the paper's first section heading (title, byline, affiliations, often the abstract)."""
    features = cue_features(text, table_page)
    if data_section:
        features["data_section"] = 1.0
    if front_matter:
        features["front_matter"] = 1.0
    features[f"position={min(int(position * POSITION_BINS), POSITION_BINS - 1)}"] = 1.0
    features.update({f"w={word}": 1.0 for word in WORD.findall(text)})
    return features


def paper_sentences(paper: ParsedPaper) -> list[PaperSentence]:
    """Every sentence outside the reference list, each text once, with its features, in document order."""
    indexed = paper.indexed_sentences()
    titles = section_titles([sentence.text for sentence, _ in indexed])
    table_pages = {page.number for page in paper.pages if TABLE_CAPTION.search(page.text)}
    found, seen = [], set()
    for index, ((sentence, in_refs), title) in enumerate(zip(indexed, titles)):
        key = sentence.text.casefold()
        if in_refs or key in seen:
            continue
        seen.add(key)
        features = sentence_features(sentence.text, is_data_section(title), sentence.page in table_pages,
                                     index / len(indexed), title is None)
        found.append(PaperSentence(index, sentence, features))
    return found


@dataclass(frozen=True)
class LinearScorer:
    """Log-odds from features: an intercept plus a weight per feature, with `about` saying what it was fitted on.
    Saved as JSON; `kind` names it in errors."""

    weights: Mapping[str, float]
    intercept: float
    about: Mapping[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "linear scorer"

    def score(self, features: Mapping[str, float]) -> float:
        return self.intercept + sum(self.weights.get(name, 0.0) * value for name, value in features.items())

    def save(self, path: Path) -> None:
        payload = {"intercept": self.intercept, "about": dict(self.about),
                   "weights": dict(sorted(self.weights.items(), key=lambda item: -abs(item[1])))}
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Self:
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            return cls({str(k): float(v) for k, v in payload["weights"].items()}, float(payload["intercept"]),
                       payload.get("about", {}))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ConfigError(f"{path}: not a {cls.kind} file ({error})") from error


S = TypeVar("S", bound=LinearScorer)


class SentenceRanker(LinearScorer):
    """Log-odds that a sentence writes a dataset's name. `about` says what it was fitted on and how much of each
    corpus's datasets it put in the names context when that corpus was held out."""

    kind = "sentence ranker"


class ScorerSlot(Generic[S]):
    """The scorer a step reads: the one last made active, else the bundled file's, loaded when first asked."""

    def __init__(self, kind: type[S], bundled: Path) -> None:
        self.kind, self.bundled, self.current = kind, bundled, None

    def use(self, path: Path | None) -> S:
        """Make the scorer in `path` (None: the bundled one) the active one, and return it."""
        self.current = self.kind.load(path or self.bundled)
        return self.current

    def activate(self, scorer: S | None) -> S | None:
        """Make `scorer` the active one (None: the bundled one when next asked); return the one before."""
        previous, self.current = self.current, scorer
        return previous

    def active(self) -> S:
        """The active scorer: the last `use` or `activate`, else the bundled one."""
        return self.current or self.use(None)


# The ranker the names context reads.
_SENTENCE_RANKER = ScorerSlot(SentenceRanker, RANKER_FILE)
use_ranker = _SENTENCE_RANKER.use
activate = _SENTENCE_RANKER.activate
active_ranker = _SENTENCE_RANKER.active
