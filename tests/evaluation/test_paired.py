"""Paired differences from the baseline with bootstrap intervals, and McNemar's test, on hand-written runs."""

from __future__ import annotations

import pandas as pd
import pytest

from dsminer.evaluation.compare import compare_runs, comparison_metrics, paired_markdown
from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.evaluation.paired import agreement, paired_differences, per_paper
from dsminer.evaluation.runs import assign_labels, load_run

GOLD = [GoldPaper(f"{n}.pdf", None, [GoldDataset(f"Numbat-{n}"), GoldDataset(f"Quokka-{n}")]) for n in range(8)]


@pytest.fixture
def runs(write_run, record, paper):
    """s0 finds one gold dataset a paper; s1a both on every paper but the first, and one wrong name more."""
    papers = [paper(f"{n}.pdf") for n in range(8)]
    s0 = [record(f"{n}.pdf", f"Numbat-{n}") for n in range(8)]
    s1a = [*s0, *(record(f"{n}.pdf", f"Quokka-{n}", link="https://example.org") for n in range(1, 8)),
           record("0.pdf", "Emu Calls")]
    loaded = [load_run(str(write_run(name, rows, papers, condition=name))) for name, rows in (("s1a", s1a), ("s0", s0))]
    assign_labels(loaded)
    return loaded


def test_per_paper_counts_records_links_calls_and_gold(runs):
    frame = per_paper(runs[0], GOLD)
    assert frame.loc["3.pdf", ["records", "links", "llm_calls", "prompt_tokens"]].tolist() == [2, 1, 2, 100]
    assert frame.loc["0.pdf", ["gold", "recalled", "scored", "correct"]].tolist() == [2, 1, 2, 1]


def test_a_difference_on_every_paper_has_an_interval_that_excludes_zero(runs):
    s1a, s0 = (per_paper(run, GOLD) for run in runs)
    paired = paired_differences(s0, s1a, seed=1)
    recall = paired.loc["recall"]
    assert (recall["baseline"], recall["run"]) == (pytest.approx(8 / 16), pytest.approx(15 / 16))
    assert 0 < recall["low"] <= recall["difference"] <= recall["high"]
    assert paired.loc["records", "difference"] == pytest.approx(8 / 8)
    calls = paired.loc["llm_calls"]
    assert (calls["difference"], calls["low"], calls["high"]) == (0, 0, 0)  # the same calls: no difference at all
    assert paired.loc["precision_strict", "run"] == pytest.approx(15 / 16)


def test_mcnemar_counts_the_datasets_only_one_run_found(runs):
    found = agreement(runs[1], runs[0], GOLD)
    assert (found.gained, found.lost, found.both, found.neither) == (7, 0, 8, 1)
    assert found.p_value == pytest.approx(2 * 0.5 ** 7)


def test_compare_takes_s0_as_the_baseline_and_logs_the_intervals(runs):
    comparison = compare_runs(runs, GOLD)
    assert comparison.baseline == "s0" and list(comparison.paired) == ["s1a"]
    metrics = comparison_metrics(comparison)
    assert metrics["paired.s1a.recall.difference"] == pytest.approx(7 / 16)
    assert metrics["mcnemar.s1a.gained"] == 7 and metrics["mcnemar.s1a.p_value"] < 0.05
    text = paired_markdown(comparison)
    assert "### s1a against s0 (8 papers both read)" in text and "McNemar exact p = 0.016" in text


def test_without_gold_only_the_counts_are_compared(runs):
    comparison = compare_runs(runs)
    assert list(comparison.paired["s1a"].index) == ["records", "links", "llm_calls", "prompt_tokens"]
    assert comparison.agreements == {}
    assert isinstance(comparison.paired["s1a"], pd.DataFrame)
