"""The synthetic sample papers: they parse, and every dataset they name can be found."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsminer.demo import SAMPLE_GOLD, write_sample_papers
from dsminer.document.links import links_for_name
from dsminer.document.pdf import ParsedPaper, find_mention, parse_pdf
from dsminer.document.text import name_pattern
from dsminer.evidence.context import select_dataset_sentences


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedPaper]:
    paths = write_sample_papers(tmp_path_factory.mktemp("samples"))
    return {path.name: parse_pdf(path) for path in paths}


def test_three_two_page_papers_match_the_gold(papers: dict[str, ParsedPaper]) -> None:
    assert sorted(papers) == sorted(SAMPLE_GOLD)
    assert all(len(paper.pages) == 2 for paper in papers.values())
    assert all(2 <= len(names) <= 3 for names in SAMPLE_GOLD.values())


def test_writing_is_deterministic_and_overwrites(tmp_path: Path) -> None:
    first = {path.name: path.read_bytes() for path in write_sample_papers(tmp_path)}
    (tmp_path / "sample_table_qa.pdf").write_bytes(b"stale")
    second = {path.name: path.read_bytes() for path in write_sample_papers(tmp_path)}
    assert first == second


@pytest.mark.parametrize(
    ("file_name", "url"),
    [
        ("sample_reef_monitoring.pdf", "https://data.example.org/coral-scan/v2/images.zip"),
        ("sample_birdsong_detection.pdf", "https://huggingface.co/datasets/example-lab/night-call-300"),
        ("sample_table_qa.pdf", "https://www.openml.org/d/99999"),
    ],
)
def test_the_broken_footnote_url_is_repaired(papers: dict[str, ParsedPaper], file_name: str, url: str) -> None:
    assert url in [link.url for link in papers[file_name].links if link.source == "text"]


@pytest.mark.parametrize(
    ("file_name", "anchor", "url", "name"),
    [
        ("sample_reef_monitoring.pdf", "project page", "https://github.com/example-lab/kelpwatch", "KelpWatch"),
        ("sample_birdsong_detection.pdf", "here", "https://zenodo.org/records/0000042", "DawnChorus-2k"),
        ("sample_table_qa.pdf", "dataset page", "https://www.kaggle.com/datasets/example-lab/scholartables-2k",
         "ScholarTables-2k"),
    ],
)
def test_the_annotation_is_found_with_its_anchor(
    papers: dict[str, ParsedPaper], file_name: str, anchor: str, url: str, name: str
) -> None:
    paper = papers[file_name]
    annotations = [(link.anchor, link.url) for link in paper.links if link.source == "annotation"]
    assert annotations == [(anchor, url)]
    assert url in [link.url for link in links_for_name(paper, [name])]


GOLD_PAIRS = [(file_name, name) for file_name, names in SAMPLE_GOLD.items() for name in names]


@pytest.mark.parametrize(("file_name", "name"), GOLD_PAIRS)
def test_every_gold_name_is_found_and_selected(papers: dict[str, ParsedPaper], file_name: str, name: str) -> None:
    paper = papers[file_name]
    pattern = name_pattern(name)
    mention = find_mention(paper, [name])
    assert mention is not None and mention.page == 1 and pattern.search(mention.text)
    assert any(pattern.search(s.text) for s in select_dataset_sentences(paper))


def test_sample_gold_is_a_gold_file(tmp_path):
    from dsminer.demo import SAMPLE_GOLD, write_sample_gold
    from dsminer.evaluation.gold import load_gold

    gold = load_gold(write_sample_gold(tmp_path / "gold.jsonl"))
    assert {paper.file: [d.name for d in paper.datasets] for paper in gold} == SAMPLE_GOLD
