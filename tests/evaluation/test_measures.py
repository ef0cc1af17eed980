"""One rule for precision, recall and F1, empty cases included, wherever they are computed."""

from __future__ import annotations

import pytest

from dsminer.evaluation.measures import f1, precision, recall
from dsminer.evaluation.sentence_gold import micro_scores
from dsminer.evaluation.step_scores import NamesScore


@pytest.mark.parametrize(("found", "gold", "expected"), [(3, 4, 0.75), (0, 4, 0.0), (0, 0, 1.0)])
def test_recall_of_nothing_to_find_is_one(found, gold, expected):
    assert recall(found, gold) == expected


@pytest.mark.parametrize(("right", "kept", "gold", "expected"), [(1, 4, 2, 0.25), (0, 0, 0, 1.0), (0, 0, 3, 0.0)])
def test_precision_of_nothing_kept_is_right_only_when_nothing_was_to_find(right, kept, gold, expected):
    assert precision(right, kept, gold) == expected


def test_f1_and_every_caller_agree_on_a_paper_without_gold():
    assert f1(0.5, 1.0) == pytest.approx(2 / 3) and f1(0.0, 0.0) == 0.0
    score = NamesScore(gold=0, recalled=0, kept=0, correct=0, supported=0, missed=(), wrong=())
    assert (score.recall, score.precision_lenient, score.value) == (1.0, 1.0, 1.0)
    assert micro_scores([(0, 0, 0)])["f1"] == 1.0
