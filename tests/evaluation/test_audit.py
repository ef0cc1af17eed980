"""Audit sheets: stratified sampling, CSV + HTML writing, and scoring a filled sheet."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from dsminer.errors import DsminerError
from dsminer.evaluation.audit import (
    VERDICT_COLUMNS,
    AuditSheetError,
    carry_verdicts,
    sample_audit,
    score_audit,
)
from dsminer.evaluation.report import write_audit_sheet
from dsminer.evaluation.runs import assign_labels, load_run


@pytest.fixture
def runs(write_run, record):
    s0 = [record("a.pdf", "MNIST", title="Alpha", page=2, quote="We train on MNIST <b>digits</b>."),
          record("a.pdf", "CIFAR-10", title="Alpha", link="https://www.cs.toronto.edu/~kriz/cifar.html"),
          record("b.pdf", "SQuAD", title="Beta", page=None, quote=None)]
    s2 = [record("a.pdf", "MNIST", title="Alpha", page=3), record("b.pdf", "GLUE", title="Beta"),
          record("b.pdf", "SNLI", title="Beta", link="https://nlp.stanford.edu/projects/snli/")]
    loaded = [load_run(str(write_run(name, rows))) for name, rows in (("s0", s0), ("s2", s2))]
    assign_labels(loaded)
    return loaded


def test_sample_spreads_over_conditions_and_categories(runs):
    sheet = sample_audit(runs, n=4, seed=1)
    assert len(sheet) == 4
    assert sorted(zip(sheet["condition"], sheet["category"])) == [
        ("s0", "shared"), ("s0", "specific"), ("s2", "shared"), ("s2", "specific")]
    assert list(sheet["row"]) == [1, 2, 3, 4]
    assert (sheet[VERDICT_COLUMNS] == "").all().all()


def test_sample_takes_everything_when_n_is_large_and_is_seeded(runs):
    sheet = sample_audit(runs, n=50, seed=0)
    assert len(sheet) == 6
    assert sorted(sheet[sheet["category"] == "shared"]["dataset"]) == ["MNIST", "MNIST"]
    first, again = sample_audit(runs, n=3, seed=7), sample_audit(runs, n=3, seed=7)
    pd.testing.assert_frame_equal(first, again)


def test_single_run_rows_are_marked_single(runs):
    sheet = sample_audit(runs[:1], n=10, seed=0)
    assert set(sheet["category"]) == {"single"} and len(sheet) == 3


def test_sheet_page_holds_the_sampled_rows_escaped(runs, tmp_path):
    sheet = sample_audit(runs, n=50, seed=0)
    csv_path, html_path = write_audit_sheet(sheet, runs, tmp_path)
    page = html_path.read_text()
    assert "<b>digits</b>" not in page  # record text is data for the page's script, never markup
    data = json.loads(re.search(r'id="data">(.*?)</script>', page, re.S).group(1).replace("<\\/", "</"))
    assert [(r["id"], r["condition"], r["dataset"], r["category"]) for r in data["rows"]] \
        == list(zip(sheet["row"], sheet["condition"], sheet["dataset"], sheet["category"]))
    assert len(pd.read_csv(csv_path)) == 6


def _fill(csv_path, verdicts):
    """Write verdicts {dataset@condition: (mentioned, is_dataset, link_supported, link_where)} into the sheet."""
    sheet = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    for index, row in sheet.iterrows():
        values = verdicts.get(f"{row['dataset']}@{row['condition']}")
        if values:
            sheet.loc[index, ["mentioned", "is_dataset", "link_supported", "link_where"]] = list(values)
    sheet.to_csv(csv_path, index=False)


def test_audit_round_trip_scores(runs, tmp_path):
    csv_path, _ = write_audit_sheet(sample_audit(runs, n=50, seed=0), runs, tmp_path)
    _fill(csv_path, {
        "MNIST@s0": ("yes", "yes", "", ""), "MNIST@s2": ("no", "yes", "", ""),
        "CIFAR-10@s0": ("y", "y", "yes", "text, tables"), "SQuAD@s0": ("yes", "no", "", ""),
        "SNLI@s2": ("yes", "yes", "no", ""),
    })
    result = score_audit(csv_path)
    overall = result["overall"]
    assert (overall["rows"], overall["annotated"]) == (6, 5)
    assert overall["precision"] == pytest.approx(3 / 5)
    assert overall["link_grounding_precision"] == pytest.approx(1 / 2)
    assert overall["link_where"] == {"text": 1, "table": 1, "caption": 0, "reference": 0}
    assert overall["missing_rates"]["dataset_link"] == pytest.approx(4 / 6)
    assert overall["missing_rates"]["quote"] == pytest.approx(1 / 6)
    assert result["by_condition"]["s0"]["precision"] == pytest.approx(2 / 3)
    assert result["by_condition"]["s2"]["link_grounding_precision"] == 0.0
    assert result["by_condition"]["s2"]["annotated"] == 2
    [disagreement] = result["disagreements"]
    assert (disagreement["dataset"], disagreement["field"], disagreement["conditions"]) == (
        "mnist", "mentioned", ["s0", "s2"])


def test_unannotated_sheet_has_no_precision(runs, tmp_path):
    csv_path, _ = write_audit_sheet(sample_audit(runs, n=50, seed=0), runs, tmp_path)
    overall = score_audit(csv_path)["overall"]
    assert overall["annotated"] == 0 and overall["precision"] is None and overall["link_grounding_precision"] is None


def test_bad_verdict_names_the_row(runs, tmp_path):
    csv_path, _ = write_audit_sheet(sample_audit(runs, n=50, seed=0), runs, tmp_path)
    sheet = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    sheet.loc[2, "is_dataset"] = "maybe"
    sheet.to_csv(csv_path, index=False)
    with pytest.raises(AuditSheetError, match=r"audit.csv, row 3: is_dataset must be yes, no or blank, not 'maybe'"):
        score_audit(csv_path)


def test_bad_link_place_and_missing_columns(runs, tmp_path):
    csv_path, _ = write_audit_sheet(sample_audit(runs, n=50, seed=0), runs, tmp_path)
    sheet = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    sheet.loc[0, "link_where"] = "footnote"
    sheet.to_csv(csv_path, index=False)
    with pytest.raises(AuditSheetError, match="row 1: link_where must name .* not 'footnote'"):
        score_audit(csv_path)
    sheet.drop(columns=["mentioned"]).to_csv(csv_path, index=False)
    with pytest.raises(AuditSheetError, match="missing columns: mentioned"):
        score_audit(csv_path)


def test_a_new_sample_carries_the_verdicts_of_the_same_paper_and_dataset(runs, write_run, record, tmp_path):
    first, _ = write_audit_sheet(sample_audit(runs[:1], n=50, seed=0), runs[:1], tmp_path / "first")
    _fill(first, {"MNIST@s0": ("yes", "yes", "", ""), "CIFAR-10@s0": ("yes", "yes", "yes", "text")})
    again = [load_run(str(write_run("s0-again", [
        record("a.pdf", "MNIST", title="Alpha"),  # the same dataset, written the same after normalising
        record("a.pdf", "CIFAR10", title="Alpha", link="https://example.org/cifar"),  # another link
        record("b.pdf", "Quokka-QA", title="Beta")])))]  # new: left to read
    sheet = sample_audit(again, n=50, seed=0)
    assert carry_verdicts(sheet, first) == 2
    rows = {row["dataset"]: row for row in sheet.to_dict("records")}
    assert (rows["MNIST"]["mentioned"], rows["MNIST"]["is_dataset"]) == ("yes", "yes")
    assert rows["MNIST"]["notes"] == "carried from audit.csv row 2"
    assert (rows["CIFAR10"]["is_dataset"], rows["CIFAR10"]["link_supported"], rows["CIFAR10"]["link_where"]) \
        == ("yes", "", "")  # a link verdict belongs to its link
    assert all(rows["Quokka-QA"][column] == "" for column in VERDICT_COLUMNS)
    csv_path, html_path = write_audit_sheet(sheet, again, tmp_path / "again")
    data = json.loads(re.search(r'id="data">(.*?)</script>', html_path.read_text()).group(1).replace("<\\/", "</"))
    given = {row["dataset"]: row["verdict"] for row in data["rows"]}
    assert given["MNIST"]["is_dataset"] == "yes" and given["Quokka-QA"] == {}  # the page's form starts from them
    overall = score_audit(csv_path)["overall"]
    assert (overall["rows"], overall["annotated"], overall["precision"]) == (3, 2, 1.0)


def test_carrying_from_a_bad_sheet_names_it(runs, tmp_path):
    with pytest.raises(DsminerError, match="audit sheet not found"):
        carry_verdicts(sample_audit(runs, n=50, seed=0), tmp_path / "none.csv")
