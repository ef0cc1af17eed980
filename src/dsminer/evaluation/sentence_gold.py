"""Sentence-level dataset-name gold (the format of Heddes et al. 2021 as re-annotated), and span scoring.

The file is JSON (optionally gzipped): {"documents": [{"body_text": [{"text": ..., "annotation_spans":
[{"start", "end", "text", "type": "dataset_name"}]}]}]}.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dsminer.errors import GoldFileError
from dsminer.evaluation.measures import f1, precision, recall
from dsminer.schema import normalize_name

SPAN_TYPE = "dataset_name"


@dataclass(frozen=True)
class SentenceExample:
    """One sentence and the dataset names annotated in it (possibly none)."""

    text: str
    names: tuple[str, ...]


def load_sentence_gold(path: Path) -> list[SentenceExample]:
    """Every annotated sentence of the file, in file order."""
    path = Path(path)
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError as exc:
        raise GoldFileError(path, 0, "file not found") from exc
    except (OSError, ValueError) as exc:
        raise GoldFileError(path, 0, f"not a JSON sentence gold file ({exc})") from exc
    examples = []
    for number, document in enumerate(data.get("documents", []) if isinstance(data, dict) else [], start=1):
        for sentence in document.get("body_text", []):
            if not isinstance(sentence.get("text"), str):
                raise GoldFileError(path, number, "a sentence without text")
            names = tuple(span["text"] for span in sentence.get("annotation_spans", [])
                          if span.get("type", SPAN_TYPE) == SPAN_TYPE and span.get("text"))
            examples.append(SentenceExample(sentence["text"], names))
    if not examples:
        raise GoldFileError(path, 0, "no sentences found")
    return examples


def sample_examples(examples: Sequence[SentenceExample], n: int, seed: int = 0) -> list[SentenceExample]:
    """A reproducible random sample of at most n sentences."""
    return random.Random(seed).sample(list(examples), min(n, len(examples)))


def names_match(predicted: str, gold: str) -> bool:
    """Same name after normalisation, or one contains the other (span boundaries differ between annotators)."""
    a, b = normalize_name(predicted), normalize_name(gold)
    return bool(a and b) and (a == b or (min(len(a), len(b)) >= 3 and (a in b or b in a)))


def score_names(predicted: Sequence[str], gold: Sequence[str]) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives), each gold name matched at most once."""
    unmatched = list(dict.fromkeys(gold))
    tp = fp = 0
    for name in dict.fromkeys(predicted):
        hit = next((g for g in unmatched if names_match(name, g)), None)
        if hit is None:
            fp += 1
        else:
            tp += 1
            unmatched.remove(hit)
    return tp, fp, len(unmatched)


def micro_scores(counts: Sequence[tuple[int, int, int]]) -> dict[str, float]:
    """Micro precision, recall and F1 over per-sentence counts."""
    tp, fp, fn = (sum(c[i] for c in counts) for i in range(3))
    p, r = precision(tp, tp + fp, tp + fn), recall(tp, tp + fn)
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f1(p, r), 4),
            "tp": tp, "fp": fp, "fn": fn, "sentences": len(counts)}
