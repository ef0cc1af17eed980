"""Comparison table, pairwise overlap and written files on hand-written runs."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dsminer.evaluation.compare import compare_runs, comparison_metrics, markdown_table, write_comparison
from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.evaluation.runs import assign_labels, load_run

GOLD = [GoldPaper("a.pdf", "Alpha", [GoldDataset("MNIST"), GoldDataset("CIFAR-10")]),
        GoldPaper("b.pdf", "Beta", [GoldDataset("SQuAD", aliases=("Stanford QA",))])]


@pytest.fixture
def runs(write_run, record, paper):
    s0 = [record("a.pdf", "MNIST", title="Alpha", link="https://x.org/mnist"),
          record("a.pdf", "CIFAR-10", title="Alpha"), record("b.pdf", "SQuAD", title="Beta")]
    s1a = [record("a.pdf", "the MNIST dataset"),  # no title: keyed through the title the other run found
           record("b.pdf", "Stanford QA", title="Beta"), record("b.pdf", "SQuAD", title="Beta"),
           record("b.pdf", "GLUE", title="Beta", link="https://gluebenchmark.com")]
    papers = [paper("a.pdf"), paper("b.pdf"), paper("c.pdf")]
    loaded = [load_run(str(write_run(name, rows, papers))) for name, rows in (("s0", s0), ("s1a", s1a))]
    assign_labels(loaded)
    return loaded


def test_table_has_one_row_per_run(runs):
    table = compare_runs(runs).table
    assert list(table.index) == ["s0", "s1a"]
    assert table.loc["s0", "record_count"] == 3 and table.loc["s1a", "record_count"] == 4
    assert table.loc["s0", "datasets_per_paper"] == pytest.approx(1.0)
    assert table.loc["s1a", "link_rate"] == pytest.approx(0.25)
    assert "recall" not in table.columns


def test_overlap_counts_and_examples(runs):
    [overlap] = compare_runs(runs).overlaps
    assert (overlap.a, overlap.b) == ("s0", "s1a")
    assert (overlap.shared, overlap.only_a, overlap.only_b) == (2, 1, 2)
    assert overlap.jaccard == pytest.approx(2 / 5)
    assert overlap.examples_shared == ["Alpha | MNIST", "Beta | SQuAD"]
    assert overlap.examples_only_a == ["Alpha | CIFAR-10"]
    assert overlap.examples_only_b == ["Beta | GLUE", "Beta | Stanford QA"]


def test_gold_adds_scores_to_the_table(runs):
    comparison = compare_runs(runs, GOLD)
    assert comparison.table.loc["s0", "recall"] == pytest.approx(1.0)
    assert comparison.table.loc["s1a", "recall"] == pytest.approx(2 / 3)
    assert comparison.table.loc["s1a", "precision_strict"] == pytest.approx(3 / 4)
    assert set(comparison.scores) == {"s0", "s1a"}


def test_three_runs_give_three_overlaps_and_examples_are_capped(write_run, record):
    many = [record("a.pdf", f"Set {index}") for index in range(8)]
    loaded = [load_run(str(write_run(name, many if name == "s2" else []))) for name in ("s0", "s1b", "s2")]
    overlaps = compare_runs(loaded).overlaps
    assert [(o.a, o.b) for o in overlaps] == [("s0", "s1b"), ("s0", "s2"), ("s1b", "s2")]
    assert overlaps[2].only_b == 8 and len(overlaps[2].examples_only_b) == 5


def test_write_comparison_files(runs, tmp_path):
    written = write_comparison(compare_runs(runs, GOLD), tmp_path / "out")
    names = sorted(path.name for path in written)
    assert names == ["comparison.csv", "comparison.md", "datasets_per_paper.png", "link_rate.png", "overlap.md",
                     "paired.png", "recall.png", "records.png"]
    assert "## Paired differences" in (tmp_path / "out" / "comparison.md").read_text(encoding="utf-8")
    for path in written:
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(tmp_path / "out" / "comparison.csv", index_col="label")
    assert table.loc["s1a", "record_count"] == 4
    markdown = (tmp_path / "out" / "comparison.md").read_text()
    assert "| metric | s0 | s1a |" in markdown and "| record_count | 3 | 4 |" in markdown
    assert "- Alpha | CIFAR-10" in (tmp_path / "out" / "overlap.md").read_text()


def test_no_recall_plot_without_gold(runs, tmp_path):
    names = {path.name for path in write_comparison(compare_runs(runs), tmp_path)}
    assert "recall.png" not in names and "records.png" in names


def test_comparison_metrics_are_prefixed_by_label(runs):
    metrics = comparison_metrics(compare_runs(runs, GOLD))
    assert metrics["s0.record_count"] == 3.0
    assert metrics["s1a.recall"] == pytest.approx(2 / 3)
    assert not any(key.endswith("run_id") or key.endswith("condition") for key in metrics)
    json.dumps(metrics)


@pytest.mark.parametrize(("value", "cell"), [
    (0.5, "0.500"), (3.0, "3"), (float("nan"), "-"), ("a|b", "a\\|b"), (7, "7"),
])
def test_markdown_cells(value, cell):
    table = markdown_table(pd.DataFrame({"x": [value]}, index=["r"]), "row")
    assert table.splitlines() == ["| row | x |", "|---|---|", f"| r | {cell} |"]


def test_runs_of_one_condition_get_distinct_labels(write_run, record):
    loaded = [load_run(str(write_run(name, [record("a.pdf", "MNIST")], condition="s0", run_id=run_id)))
              for name, run_id in (("first", "aaaaaa111"), ("second", "bbbbbb222"))]
    comparison = compare_runs(loaded)
    assert list(comparison.table.index) == ["s0-aaaaaa", "s0-bbbbbb"]
    assert list(comparison.table["condition"]) == ["s0", "s0"]
    assert comparison.overlaps[0].shared == 1
