"""Parsing PDFs into pages and links, refusing bad files, and finding dataset sentences."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest

from dsminer.document.pdf import (
    PageText,
    PaperLink,
    ParsedPaper,
    Sentence,
    find_mention,
    first_pages_text,
    line_number_words,
    parse_pdf,
)
from dsminer.errors import PdfReadError
from dsminer.evidence.context import select_dataset_sentences


@pytest.fixture
def paper(paper_pdf: Path) -> ParsedPaper:
    return parse_pdf(paper_pdf)


def test_parse_pdf_reads_pages_in_order(paper: ParsedPaper, paper_pdf: Path) -> None:
    assert [page.number for page in paper.pages] == [1, 2]
    assert paper.file_name == "paper.pdf"
    assert paper.path == paper_pdf
    assert "FooBench-10 dataset1" in paper.pages[0].text
    assert "References" in paper.pages[1].text
    assert paper.text == paper.pages[0].text + "\n" + paper.pages[1].text


def test_parse_pdf_dehyphenates_line_breaks(paper: ParsedPaper) -> None:
    assert "Our experiments use" in paper.pages[0].text


def test_parse_pdf_repairs_the_footnote_url(paper: ParsedPaper) -> None:
    text_links = [link for link in paper.links if link.source == "text"]
    assert text_links == [PaperLink("https://example.org/widgets/foobench-10.zip", 1, None, "text")]


def test_parse_pdf_keeps_annotation_links_with_their_anchor(paper: ParsedPaper) -> None:
    annotations = [link for link in paper.links if link.source == "annotation"]
    assert annotations == [PaperLink("https://github.com/acme/bar-corpus", 1, "here", "annotation")]


def test_urls_are_unique_and_ordered(paper: ParsedPaper) -> None:
    doubled = ParsedPaper(paper.path, paper.pages, paper.links + paper.links)
    assert doubled.urls() == ["https://example.org/widgets/foobench-10.zip", "https://github.com/acme/bar-corpus"]


@pytest.mark.parametrize(
    ("fixture", "reason"),
    [
        ("encrypted_pdf", "encrypted"),
        ("corrupt_pdf", "corrupt PDF"),
        ("not_pdf", "not a PDF"),
        ("zero_page_pdf", "no pages"),
        ("image_only_pdf", "no text layer"),
    ],
)
def test_parse_pdf_refuses_unusable_files(fixture: str, reason: str, request: pytest.FixtureRequest) -> None:
    path = request.getfixturevalue(fixture)
    with pytest.raises(PdfReadError) as info:
        parse_pdf(path)
    assert reason in info.value.reason
    assert info.value.path == path
    assert "\n" not in str(info.value)


def test_parse_pdf_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PdfReadError, match="file not found"):
        parse_pdf(tmp_path / "absent.pdf")


def test_corrupt_pdf_keeps_the_library_error_as_cause(corrupt_pdf: Path) -> None:
    with pytest.raises(PdfReadError) as info:
        parse_pdf(corrupt_pdf)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_reference_list_is_flagged(paper: ParsedPaper) -> None:
    flagged = {s.text: in_refs for s, in_refs in paper.indexed_sentences()}
    assert flagged["The QuuxSet collection of widget photographs."] is True
    assert flagged["A pilot study also used QuuxSet for calibration."] is False
    assert flagged["Table 1: Accuracy (%) on FooBench-10 and Bar Corpus."] is False


def test_select_dataset_sentences_finds_dataset_sentences(paper: ParsedPaper) -> None:
    texts = [s.text for s in select_dataset_sentences(paper, max_sentences=4)]  # the best four of a short paper
    assert "We evaluate on the FooBench-10 dataset1 which contains 4,000 images." in texts
    assert "The Bar Corpus consists of 900 labeled photographs and can be downloaded here." in texts
    assert "Table 1: Accuracy (%) on FooBench-10 and Bar Corpus." in texts
    assert not any("QuuxSet collection" in text for text in texts)
    assert "We thank the reviewers for their comments." not in texts


def test_select_dataset_sentences_is_bounded_ordered_and_deterministic(paper: ParsedPaper) -> None:
    chosen = select_dataset_sentences(paper, max_sentences=2)
    assert len(chosen) == 2
    assert chosen == select_dataset_sentences(parse_pdf(paper.path), max_sentences=2)
    everything = [s for s, _ in paper.indexed_sentences()]
    positions = [everything.index(s) for s in select_dataset_sentences(paper)]
    assert positions == sorted(positions)


def test_extra_keywords_widen_the_selection(paper: ParsedPaper) -> None:
    plain = [s.text for s in select_dataset_sentences(paper, max_sentences=4)]
    widened = [s.text for s in select_dataset_sentences(paper, max_sentences=4, extra_keywords=["calibration"])]
    assert "A pilot study also used QuuxSet for calibration." not in plain
    assert "A pilot study also used QuuxSet for calibration." in widened


def test_long_sentences_are_shortened_around_the_cue() -> None:
    long_text = "filler words " * 60 + "we evaluate on the Widget dataset of 5,000 images " + "more words " * 60 + "."
    paper = ParsedPaper(Path("x.pdf"), [PageText(1, long_text)], [])
    (sentence,) = select_dataset_sentences(paper)
    assert len(sentence.text) <= 420
    assert "Widget dataset" in sentence.text
    assert sentence.text.startswith("... ") and sentence.text.endswith(" ...")


FOO = Sentence(1, "We evaluate on the FooBench-10 dataset1 which contains 4,000 images.")
BAR = Sentence(1, "The Bar Corpus consists of 900 labeled photographs and can be downloaded here.")


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["FooBench-10"], FOO),
        (["foobench 10"], FOO),
        (["Foo Bench 10", "QuuxSet"], FOO),
        (["Bar Corpus"], BAR),
        (["Nothing", "bar corpus"], BAR),
        (["Bar"], BAR),
        (["QuuxSet"], Sentence(2, "A pilot study also used QuuxSet for calibration.")),
        (["Widget Journal"], Sentence(2, "Widget Journal, 2019.")),
        (["FooBench"], None),
        (["gear"], None),
        ([], None),
    ],
)
def test_find_mention(paper: ParsedPaper, names: list[str], expected: Sentence | None) -> None:
    assert find_mention(paper, names) == expected


def test_find_mention_accepts_a_glued_footnote_digit_as_last_resort() -> None:
    paper = ParsedPaper(Path("x.pdf"), [PageText(1, "We release LexiQA2 today.")], [])
    assert find_mention(paper, ["LexiQA"]) == Sentence(1, "We release LexiQA2 today.")


def test_first_pages_text_starts_with_title_and_is_bounded(paper: ParsedPaper) -> None:
    start = first_pages_text(paper, max_chars=120)
    assert start.startswith("A Tiny Study of Widget Recognition\nAda Example (Institute of Widgets)")
    assert len(start) <= 120
    assert "References" in first_pages_text(paper, max_chars=10_000)


def test_annotation_uris_are_cleaned_and_non_web_links_skipped(make_pdf: Callable[..., Path]) -> None:
    text = "Our corpus is described on the project page and you can write to the authors for access."
    path = make_pdf(
        "links.pdf",
        [text],
        links=[(0, "project page", "https://example.org/corpus/."), (0, "authors", "mailto:a@example.org")],
    )
    links = parse_pdf(path).links
    assert links == [PaperLink("https://example.org/corpus/", 1, "project page", "annotation")]


def _numbered_page_pdf(path: Path, numbers: Callable[[int], str], first_line: str) -> Path:
    """One page of 30 text lines with a number in the left margin of each, as a review copy prints them."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [first_line] + [f"Line {i} of the methods text, with no dataset in it." for i in range(1, 30)]
    for i, line in enumerate(lines):
        y = 60 + i * 22
        page.insert_text((30, y), numbers(i), fontsize=8)
        page.insert_text((72, y), line, fontsize=10)
    doc.save(path)
    return path


def test_line_numbers_in_the_margin_are_left_out(tmp_path: Path) -> None:
    path = _numbered_page_pdf(tmp_path / "review.pdf", lambda i: str(101 + i),
                              "The stars come from the Kepler Input Catalog and the eclipsing binary catalog.")
    text = parse_pdf(path).text
    assert "Kepler Input Catalog" in text
    assert not any(str(101 + i) in text.split() for i in range(30))


def test_a_column_of_numbers_that_does_not_count_lines_stays(tmp_path: Path) -> None:
    ticks = _numbered_page_pdf(tmp_path / "ticks.pdf", lambda i: str(300 - 10 * i), "An axis of a figure.")
    assert "300" in parse_pdf(ticks).text.split()
    words = [(30.0, 60.0 + 12 * i, 40.0, 68.0 + 12 * i, str(i + 1), 0, i, 0) for i in range(9)]
    assert line_number_words(words, page_height=792.0) == set()  # a table's row numbers: a short column
    assert line_number_words(words, page_height=200.0) == set(range(9))
