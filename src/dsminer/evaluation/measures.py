"""Precision, recall and F1, with one rule for the empty cases wherever they are computed.

Nothing to find is nothing missed: recall is 1.0 without gold. Nothing kept is right only when there was
nothing to find: precision is then 1.0, else 0.0. F1 is 0.0 when both are 0.0.
"""

from __future__ import annotations


def recall(found: int, gold: int) -> float:
    """The share of `gold` items found; 1.0 when there are none."""
    return found / gold if gold else 1.0


def precision(right: int, kept: int, gold: int) -> float:
    """The share of `kept` items that are right; with none kept, 1.0 when `gold` is 0, else 0.0."""
    return right / kept if kept else (1.0 if not gold else 0.0)


def f1(precision: float, recall: float) -> float:
    """The harmonic mean of precision and recall; 0.0 when both are 0.0."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
