"""Parsing the proceedings pages: both listing layouts, the paper page, the PDF URL fallbacks."""

from __future__ import annotations

import pytest
from neurips_site import PAPERS, FixturePaper, listing_html, paper_html

from dsminer.corpus.neurips_pages import ListedPaper, name_first_last, parse_listing, parse_paper_page

BASE = "https://papers.nips.cc"
PDF_2020 = "/paper_files/paper/2020/file/ab12-Paper.pdf"


@pytest.mark.parametrize("authors_tag", ["span", "i"])
def test_listing_in_both_layouts(authors_tag: str) -> None:
    html = listing_html(2024, PAPERS, authors_tag=authors_tag).decode()

    papers = parse_listing(html, f"{BASE}/paper_files/paper/2024", 2024)

    assert [paper.paper_hash for paper in papers] == [paper.paper_hash for paper in PAPERS]
    assert papers[0] == ListedPaper(
        url=f"{BASE}{PAPERS[0].page_path(2024)}", paper_hash=PAPERS[0].paper_hash, track="Conference",
        title="Scaling Laws for Tabular Data", authors=("Jane Doe", "John Smith"),
    )  # fmt: skip
    assert papers[2].track == "Datasets_and_Benchmarks_Track"


def test_listing_ignores_other_years_duplicates_and_non_paper_links() -> None:
    html = (
        '<ul class="paper-list">'
        '<li><a title="paper title" href="/paper_files/paper/2021/hash/aa11-Abstract.html">Old style</a> '
        "<i>A. Author</i></li>"
        '<li><a title="paper title" href="/paper_files/paper/2021/hash/aa11-Abstract.html">Again</a></li>'
        '<li><a title="paper title" href="/paper_files/paper/2020/hash/bb22-Abstract.html">Other year</a></li>'
        '<li><a href="/paper_files/paper/2021/hash/cc33-Abstract-round2.html">D&amp;B <i>2021</i></a></li>'
        '<li><a href="/author/somebody">Not a paper</a></li></ul>'
    )

    papers = parse_listing(html, f"{BASE}/paper_files/paper/2021", 2021)

    assert [(p.paper_hash, p.track, p.title, p.authors) for p in papers] == [
        ("aa11", None, "Old style", ("A. Author",)),
        ("cc33", "round2", "D&B 2021", ()),
    ]


def test_paper_page_fields() -> None:
    paper = PAPERS[0]
    listed = ListedPaper(f"{BASE}{paper.page_path(2024)}", paper.paper_hash, "Conference", "x", ())

    page = parse_paper_page(paper_html(BASE, 2024, paper).decode(), listed)

    assert page.title == "Scaling Laws for Tabular Data"
    assert page.authors == ("Jane Doe", "John Smith")
    assert page.institutions == ()
    assert page.pdf_url == f"{BASE}{paper.pdf_path(2024)}"
    assert page.abstract == paper.abstract


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<a href="/paper_files/paper/2020/file/ab12-Paper.pdf">Paper</a>', PDF_2020),
        ('<a href="/paper_files/paper/2020/file/ab12-Supplemental.zip">S</a>', PDF_2020),
        ('<a href="https://m.example/file/ab12-Paper.pdf">Paper</a>', "https://m.example/file/ab12-Paper.pdf"),
        ("", PDF_2020),
    ],
)
def test_pdf_url_without_citation_meta(html: str, expected: str) -> None:
    listed = ListedPaper(f"{BASE}/paper_files/paper/2020/hash/ab12-Abstract.html", "ab12", None, "T", ())

    page = parse_paper_page(f"<html><body>{html}</body></html>", listed)

    assert page.pdf_url == (expected if expected.startswith("https:") else f"{BASE}{expected}")
    assert page.title is None and page.authors == () and page.abstract is None


@pytest.mark.parametrize(
    ("body", "abstract"),
    [
        ("<h4>Abstract</h4><p><p>Old <i>style</i>.</p></p>", "Old style."),
        ("<h4>Abstract</h4><p>One.</p><p>Not abstract.</p>", "One."),
        ('<p class="paper-abstract"><p>First.</p><p>Second.</p></p>', "First. Second."),
        ("<h4>Authors</h4><p><i>A</i></p><h4>Abstract</h4><p>Text</p>", "Text"),
        ('<meta name="citation_abstract" content="From meta.">', "From meta."),
        ("<h4>Authors</h4><p><i>A</i></p>", None),
    ],
)
def test_abstract_forms(body: str, abstract: str | None) -> None:
    listed = ListedPaper(f"{BASE}/paper_files/paper/2020/hash/ab12-Abstract.html", "ab12", None, "T", ())

    assert parse_paper_page(f"<html><body>{body}</body></html>", listed).abstract == abstract


def test_institutions_from_meta_are_deduplicated() -> None:
    html = "".join(
        f'<meta name="citation_author_institution" content="{name}">' for name in ("MIT", "ETH Zurich", "MIT")
    )
    listed = FixturePaper("ab12", "T", ())

    page = parse_paper_page(html, ListedPaper(f"{BASE}{listed.page_path(2024)}", "ab12", "Conference", "T"))

    assert page.institutions == ("MIT", "ETH Zurich")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Doe, Jane", "Jane Doe"), ("Jane Doe", "Jane Doe"), ("Smith, Jr., John", "Smith, Jr., John"), ("Doe,", "Doe,")],
)
def test_name_first_last(name: str, expected: str) -> None:
    assert name_first_last(name) == expected
