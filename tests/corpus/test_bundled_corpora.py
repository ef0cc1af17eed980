"""The development corpora kept in the repository (`corpora/*/gold.jsonl`): each is a manifest `dsminer corpus
manifest` reads and a gold file `evaluate` reads, with fields-dev's keys filled as its annotation rules say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsminer.catalog.resolution import spelling
from dsminer.corpus.manifest import read_manifest
from dsminer.errors import GoldFileError
from dsminer.evaluation.gold import ROLES, load_gold
from dsminer.jsonl import iter_json_objects

CORPORA = sorted((Path(__file__).parents[2] / "corpora").glob("*/gold.jsonl"))
# The hosts a gold URL may have, as `../shared/eval/fields-dev/README.md` lists them (a record's own platform is the
# schema's, which has "unspecified" and no "UCI").
GOLD_PLATFORMS = {"GitHub", "HuggingFace", "OpenML", "Zenodo", "Kaggle", "UCI", "other"}


def test_the_repository_keeps_its_corpora() -> None:
    assert CORPORA, "no corpora/*/gold.jsonl found"


@pytest.mark.parametrize("path", CORPORA, ids=lambda path: path.parent.name)
def test_a_corpus_is_a_manifest_and_a_gold_file(path: Path) -> None:
    entries = read_manifest(path)
    papers = load_gold(path)
    assert [entry.file for entry in entries] == [paper.file for paper in papers]
    assert all(re.fullmatch(r"[0-9a-f]{40}", entry.commit) for entry in entries)
    assert all(re.fullmatch(r"[0-9a-f]{64}", entry.sha256) for entry in entries)
    assert len({entry.sha256 for entry in entries}) == len(entries), "one PDF is listed twice"


@pytest.mark.parametrize("path", CORPORA, ids=lambda path: path.parent.name)
def test_every_dataset_has_a_role_and_evidence_on_a_page_of_its_paper(path: Path) -> None:
    for _, row in iter_json_objects(path, GoldFileError):
        assert isinstance(row.get("pages"), int) and row["pages"] > 0, row["file"]
        assert row.get("title") and row.get("field"), row["file"]
        for dataset in row["datasets"]:
            where = f"{row['file']}: {dataset['name']}"
            assert dataset["role"] in ROLES, where
            assert 1 <= dataset["evidence_page"] <= row["pages"], where
            assert 0 < len(dataset["evidence_quote"]) <= 200, where
            assert isinstance(dataset["aliases"], list), where
            assert (dataset["url"] is None) == (dataset["platform"] is None), where
            assert dataset["platform"] is None or dataset["platform"] in GOLD_PLATFORMS, where


@pytest.mark.parametrize("path", CORPORA, ids=lambda path: path.parent.name)
def test_a_dataset_two_papers_name_has_one_canonical_name(path: Path) -> None:
    """`eval-module resolution` labels a corpus's mentions across papers by the canonical name, so one dataset
    written in two papers must carry the same one in both, or its mentions count as two datasets."""
    canonical: dict[str, dict[str, str]] = {}
    for _, row in iter_json_objects(path, GoldFileError):
        for dataset in row["datasets"]:
            name_key = spelling(dataset["name"]).key
            for form in (dataset["name"], *dataset["aliases"]):
                canonical.setdefault(spelling(form).key, {})[row["file"]] = name_key
    shared = {key: names for key, names in canonical.items() if len(names) > 1 and len(set(names.values())) > 1}
    assert not shared, shared
