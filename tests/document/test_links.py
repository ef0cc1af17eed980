"""Platforms of URLs, URL canonical forms, accepting proposed links, and links that go with a dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsminer.document.links import canonical_url, links_for_name, match_paper_url, platform_for_url
from dsminer.document.pdf import PageText, PaperLink, ParsedPaper, parse_pdf


@pytest.mark.parametrize(
    ("url", "platform"),
    [
        ("https://github.com/acme/repo", "GitHub"),
        ("https://raw.githubusercontent.com/acme/repo/main/x.csv", "GitHub"),
        ("https://acme.github.io/data/", "GitHub"),
        ("github.com/acme/repo", "GitHub"),
        ("https://huggingface.co/datasets/acme/x", "HuggingFace"),
        ("https://hf.co/datasets/acme/x", "HuggingFace"),
        ("https://www.openml.org/d/61", "OpenML"),
        ("https://zenodo.org/records/42", "Zenodo"),
        ("https://www.kaggle.com/datasets/acme/x", "Kaggle"),
        ("https://notgithub.com/acme", "other"),
        ("https://example.org/github.com", "other"),
        ("https://example.org/data.zip", "other"),
        ("", "unspecified"),
        (None, "unspecified"),
    ],
)
def test_platform_for_url(url: str | None, platform: str) -> None:
    assert platform_for_url(url) == platform


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("https://www.GitHub.com/Acme/Repo/", "github.com/Acme/Repo"),
        ("http://example.org/data.zip).", "example.org/data.zip"),
        ("www.example.org", "example.org"),
        ("  https://zenodo.org/records/42;  ", "zenodo.org/records/42"),
        ("ftp://FTP.Example.org/pub/", "ftp.example.org/pub"),
    ],
)
def test_canonical_url(url: str, canonical: str) -> None:
    assert canonical_url(url) == canonical


PAPER_URLS = [
    "https://github.com/acme/bar-corpus",
    "https://example.org/widgets/foobench-10.zip",
    "https://zenodo.org",
    "https://example.org/two/a.zip",
    "https://example.org/two/b.zip",
]


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("https://github.com/acme/bar-corpus", "https://github.com/acme/bar-corpus"),
        ("http://www.github.com/ACME/bar-corpus/", "https://github.com/acme/bar-corpus"),
        ("github.com/acme/bar-corpus/README", "https://github.com/acme/bar-corpus"),
        ("https://example.org/widgets", "https://example.org/widgets/foobench-10.zip"),
        ("https://github.com/acme/bar-corpus/tree/main", None),
        ("https://github.com/acme", "https://github.com/acme/bar-corpus"),
        ("https://github.com", None),
        ("https://example.org/two", None),
        ("https://example.org/two/a.zip", "https://example.org/two/a.zip"),
        ("https://github.com/acme/other", None),
        ("https://zenodo.org/records/1", None),
        ("https://huggingface.co/datasets/acme/bar", None),
        ("", None),
        (None, None),
    ],
)
def test_match_paper_url(candidate: str | None, expected: str | None) -> None:
    assert match_paper_url(candidate, PAPER_URLS) == expected


@pytest.fixture
def paper(paper_pdf: Path) -> ParsedPaper:
    return parse_pdf(paper_pdf)


@pytest.mark.parametrize(
    ("names", "urls"),
    [
        (["Bar Corpus"], ["https://github.com/acme/bar-corpus"]),
        (["FooBench-10"], ["https://example.org/widgets/foobench-10.zip"]),
        (["QuuxSet"], []),
        (["Missing"], []),
        ([], []),
    ],
)
def test_links_for_name_on_a_pdf(paper: ParsedPaper, names: list[str], urls: list[str]) -> None:
    assert [link.url for link in links_for_name(paper, names)] == urls


def _paper(text: str, links: list[PaperLink]) -> ParsedPaper:
    return ParsedPaper(Path("x.pdf"), [PageText(1, text), PageText(2, "Other page about Baz.")], links)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Baz"], ["https://baz.org/data"]),
        (["Qux"], ["https://github.com/a/qux"]),
        (["Zap"], ["https://zap.org"]),
    ],
)
def test_links_for_name_by_sentence_anchor_and_anchor_name(names: list[str], expected: list[str]) -> None:
    text = (
        "We use Baz from https://baz.org/data for training. The Qux set is available here. "
        "Unrelated text continues at length so that this paragraph is not a short one, and it keeps going "
        "with more words about nothing in particular for a good while longer than forty words in total."
    )
    links = [
        PaperLink("https://baz.org/data", 1, None, "text"),
        PaperLink("https://github.com/a/qux", 1, "here", "annotation"),
        PaperLink("https://zap.org", 1, "Zap dataset", "annotation"),
        PaperLink("https://github.com/a/other", 2, "here", "annotation"),
    ]
    assert [link.url for link in links_for_name(_paper(text, links), names)] == expected


def test_a_short_block_that_opens_in_lower_case_is_no_paragraph_of_its_own():
    # the lines of a long paragraph extracted as blocks: the second holds the end of a sentence with a URL, then the
    # start of the next one, which names another dataset
    text = ("The Owl Archive holds recordings and is browsable in its viewer\n\n"
            "interface (owlarchive.org). The Kite Catalogue was not readable by machines\n\n"
            "Footnote: the Kite Catalogue, at kite.example.org/data.")
    links = [PaperLink("owlarchive.org", 1, None, "text"), PaperLink("kite.example.org/data", 1, None, "text")]
    paper = _paper(text, links)
    assert [link.url for link in links_for_name(paper, ["Kite Catalogue"])] == ["kite.example.org/data"]
