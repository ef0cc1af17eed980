"""Gold loading, name and link matching, and scoring a run with known answers."""

from __future__ import annotations

import json

import pytest

from dsminer.errors import DsminerError, GoldFileError
from dsminer.evaluation.gold import (
    GoldDataset,
    GoldPaper,
    defined_abbreviations,
    format_scores,
    link_matches,
    load_gold,
    name_keys,
    score_run,
)
from dsminer.evaluation.runs import load_run
from dsminer.schema import normalize_name

GOLD = [
    {"file": "a.pdf", "title": "Alpha Paper", "datasets": [
        {"name": "Penn Treebank", "pwc_id": "Penn_Treebank", "aliases": ["PTB"]},
        {"name": "SQuAD", "aliases": [], "urls": ["https://rajpurkar.github.io/SQuAD-explorer/"]}],
     "material_mentions": {"WSJ": 3, "English": 1}, "code_urls": []},
    {"file": "b.pdf", "title": "Beta: a Paper", "datasets": [
        {"name": "MNIST", "url": "http://yann.lecun.com/exdb/mnist/"}, "Fashion-MNIST"],
     "material_mentions": ["digits"]},
    {"file": "c.pdf", "title": "Gamma", "datasets": ["CIFAR-10"]},
]


@pytest.fixture
def gold_file(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in GOLD) + "\n\n", encoding="utf-8")
    return path


def test_load_gold_accepts_names_objects_and_mentions(gold_file):
    gold = load_gold(gold_file)
    assert [paper.file for paper in gold] == ["a.pdf", "b.pdf", "c.pdf"]
    assert gold[0].datasets[0] == GoldDataset("Penn Treebank", ("PTB",), ())
    assert gold[1].datasets == [GoldDataset("MNIST", (), ("http://yann.lecun.com/exdb/mnist/",)),
                                GoldDataset("Fashion-MNIST")]
    assert gold[0].material_mentions == {"WSJ": 3, "English": 1}
    assert gold[1].material_mentions == {"digits": 1}


@pytest.mark.parametrize(("line", "reason"), [
    ("{not json", "not valid JSON"),
    ('["a.pdf"]', "not a JSON object"),
    ('{"title": "x", "datasets": []}', "missing 'file'"),
    ('{"file": "x.pdf", "datasets": "MNIST"}', "'datasets' must be a list"),
    ('{"file": "x.pdf", "datasets": [{"aliases": ["m"]}]}', "non-empty 'name'"),
    ('{"file": "x.pdf", "datasets": [{"name": "M", "aliases": "m"}]}', "'aliases' must be a list"),
    ('{"file": "x.pdf", "datasets": [], "material_mentions": {"WSJ": "3"}}', "'material_mentions'"),
    ('{"file": "a.pdf", "datasets": []}', "appears twice"),
])
def test_malformed_gold_line_is_named(tmp_path, line, reason):
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(GOLD[0]) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(GoldFileError, match=reason) as info:
        load_gold(path)
    assert info.value.line == 3
    assert str(info.value).startswith("gold.jsonl, line 3: ")


def test_missing_or_empty_gold_file(tmp_path):
    with pytest.raises(DsminerError, match="gold file not found"):
        load_gold(tmp_path / "absent.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(GoldFileError, match="no gold papers"):
        load_gold(tmp_path / "empty.jsonl")


@pytest.mark.parametrize(("name", "matches"), [
    ("Penn Treebank", True),
    ("the Penn Treebank dataset", True),
    ("penn-treebank", True),
    ("PTB", True),
    ("P.T.B.", True),
    ("Penn Treebank corpus", True),
    ("Penn Tree", False),
    ("PTB-3", False),
    ("", False),
])
def test_names_match_gold_after_normalisation_and_aliases(name, matches):
    dataset = GoldDataset("Penn Treebank", aliases=("PTB",))
    assert (normalize_name(name) in dataset.keys()) is matches


@pytest.mark.parametrize(("name", "matches"), [
    ("QRS", True),
    ("the Quebec Rail Survey (QRS) trip records", True),
    ("Quebec Rail Survey", False),
])
def test_an_abbreviation_the_gold_name_defines_matches(name, matches):
    dataset = GoldDataset("Quebec Rail Survey (QRS) trip records")
    assert (normalize_name(name) in dataset.keys()) is matches


@pytest.mark.parametrize(("record", "matches"), [
    ("German Household Panel study", True),
    ("GHP data", True),
    ("the German Household Panel cohort", True),
    ("German Household", False),
    ("German Household Panel wave 2", False),
])
def test_a_data_noun_ending_a_name_does_not_keep_it_from_its_dataset(record, matches):
    dataset = GoldDataset("German Household Panel", aliases=("GHP",))
    assert bool(name_keys(record) & dataset.keys()) is matches


def test_only_abbreviation_shaped_parentheses_define_one():
    assert defined_abbreviations("Star periods (M14) (MA-DPH) (Ensembl 104) (R package) (ScPCA) (x)") == [
        "M14", "MA-DPH", "ScPCA"]


@pytest.mark.parametrize(("link", "expected"), [
    ("https://rajpurkar.github.io/SQuAD-explorer/", True),
    ("http://www.rajpurkar.github.io/SQuAD-explorer", True),
    ("https://RAJPURKAR.github.io/SQuAD-explorer/dataset/train-v1.1.json", True),
    ("https://rajpurkar.github.io/SQuAD-explorerX", False),
    ("https://github.com/rajpurkar/SQuAD-explorer", False),
])
def test_link_matches_gold_url_or_below(link, expected):
    assert link_matches(link, ["https://rajpurkar.github.io/SQuAD-explorer/"]) is expected


@pytest.fixture
def scored(gold_file, write_run, record, paper):
    records = [
        record("a.pdf", "PTB", title="Alpha Paper"),
        record("a.pdf", "the SQuAD dataset", link="http://www.rajpurkar.github.io/SQuAD-explorer"),
        record("a.pdf", "WSJ"),
        record("a.pdf", "ImageNet"),
        record("a.pdf", "ImageNet"),  # a duplicate (paper, name) pair counts once
        record("renamed.pdf", "MNIST", title="Beta: A paper", link="https://github.com/zalandoresearch/fashion-mnist"),
        record("x.pdf", "COCO", title="Not in the gold"),
    ]
    papers = [paper("a.pdf"), paper("b.pdf"), paper("renamed.pdf"), paper("x.pdf")]
    return score_run(load_run(str(write_run("s1a", records, papers))), load_gold(gold_file))


def test_score_run_known_answers(scored):
    assert (scored.papers, scored.gold_papers_not_run, scored.records_outside_gold) == (2, 1, 1)
    assert (scored.records, scored.correct, scored.supported, scored.repeats) == (5, 3, 1, 0)
    assert (scored.gold_datasets, scored.recalled) == (4, 3)
    metrics = scored.metrics()
    assert metrics["precision_strict"] == pytest.approx(0.6)
    assert metrics["precision_lenient"] == pytest.approx(0.8)
    assert metrics["recall"] == pytest.approx(0.75)
    assert metrics["f1_strict"] == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    assert (scored.link_checked, scored.link_correct, metrics["link_precision"]) == (2, 1, 0.5)


def test_score_run_per_paper_rows(scored):
    rows = {row["file"]: row for row in scored.per_paper}
    assert set(rows) == {"a.pdf", "b.pdf"}
    assert (rows["a.pdf"]["correct"], rows["a.pdf"]["supported"], rows["a.pdf"]["wrong"]) == (2, 1, 1)
    assert rows["a.pdf"]["wrong_names"] == "ImageNet"
    assert rows["b.pdf"]["missed"] == "Fashion-MNIST"
    assert rows["b.pdf"]["recall"] == pytest.approx(0.5)


def test_a_correct_record_that_repeats_a_matched_gold_dataset_is_counted(gold_file, write_run, record, paper):
    records = [record("a.pdf", "Penn Treebank"), record("a.pdf", "PTB"), record("a.pdf", "SQuAD")]
    scores = score_run(load_run(str(write_run("s0", records, [paper("a.pdf")]))), load_gold(gold_file))
    assert (scores.correct, scores.repeats, scores.metrics()["repeated_records"]) == (3, 1, 1.0)
    assert scores.per_paper[0]["repeats"] == 1
    assert "repeats 1 (correct, but" in format_scores(scores)


def test_failed_paper_counts_with_zero_recall_and_no_links_gives_none(write_run, paper):
    gold = [GoldPaper("a.pdf", None, [GoldDataset("MNIST")])]
    scores = score_run(load_run(str(write_run("s0", [], [paper("a.pdf", "failed")]))), gold)
    assert (scores.papers, scores.recall, scores.precision_strict) == (1, 0.0, 0.0)
    assert scores.per_paper[0]["status"] == "failed"
    assert scores.link_precision is None and "link_precision" not in scores.metrics()


def test_scirex_gold_loads_and_scores_a_perfect_run(scirex_gold, write_run, record):
    gold = load_gold(scirex_gold)
    assert len(gold) == 58 and sum(len(paper.datasets) for paper in gold) == 109
    records = [record(paper.file, dataset.name) for paper in gold for dataset in paper.datasets]
    scores = score_run(load_run(str(write_run("s0", records))), gold)
    assert (scores.recall, scores.precision_strict, scores.papers) == (1.0, 1.0, 58)


def test_roles_give_recall_of_used_and_created_datasets_and_role_accuracy(tmp_path, write_run, record):
    gold = [{"file": "a.pdf", "datasets": [{"name": "UK Biobank", "role": "used"}, {"name": "ReefSet", "role": "created"},
                                           {"name": "GTEx", "role": "mentioned"}, {"name": "ERA5", "role": "used"}]}]
    path = tmp_path / "roles.jsonl"
    path.write_text(json.dumps(gold[0]) + "\n", encoding="utf-8")
    records = [record("a.pdf", "UK Biobank", role="used"), record("a.pdf", "ReefSet", role="used"),
               record("a.pdf", "GTEx", role="mentioned"), record("a.pdf", "Kepler", role="used")]
    scores = score_run(load_run(str(write_run("s0", records))), load_gold(path))
    metrics = scores.metrics()
    assert metrics["recall"] == pytest.approx(0.75)  # any role
    assert metrics["recall_used"] == pytest.approx(2 / 3)  # ERA5 missed among the used and created
    assert (scores.role_correct, scores.role_checked, metrics["role_accuracy"]) == (2, 3, pytest.approx(2 / 3))
    assert "role_accuracy      0.667 (2/3)" in format_scores(scores)


def test_a_gold_without_roles_scores_every_dataset_as_used_and_gives_no_role_accuracy(gold_file, write_run, record):
    scores = score_run(load_run(str(write_run("s0", [record("a.pdf", "PTB", role="used")]))), load_gold(gold_file))
    assert scores.recall_used == scores.recall and "role_accuracy" not in scores.metrics()


def test_an_unknown_role_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"file": "a.pdf", "datasets": [{"name": "X", "role": "trained"}]}) + "\n")
    with pytest.raises(GoldFileError, match="'role' must be one of used, created, mentioned"):
        load_gold(path)
