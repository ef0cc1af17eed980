"""Splitting a paper's reference list into entries, reading citation markers, and the entries of a dataset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dsminer.document.pdf import ParsedPaper, parse_pdf
from dsminer.document.references import Reference, cited_keys, extract_references, references_for
from tests.helpers import PAGE_ONE

PdfMaker = Callable[..., Path]

NUMBERED_BODY = (
    "Widget Study\n\n"
    "1 Data\n\n"
    "We evaluate on QuuxSet [1]. The gear models of [2-3] are our baselines.\n\n"
    "Springs were counted by hand [3]."
)
NUMBERED_REFERENCES = (
    "Widget Study\n\n"
    "References\n\n"
    "{1} J. Smith. The QuuxSet collection of widget photographs. Available at https://github.com/acme/\n"
    "quux-set. Widget Journal, 2019.\n\n"
    "{2} K. Jones. Springs and gears. Proc. WidgetConf, 2020. doi:10.1145/3292500.3330701.\n\n"
    "{3} A. Lee. Gears in the wild: a field guide. In Proceedings of the Conference on\n\n"
    "7"
)
NUMBERED_LAST_PAGE = (
    "Widget Study\n\n"
    "Widgets, pages 1-10, 2021.\n\n"
    "Appendix A Further details\n\n"
    "[4] is not a reference but an appendix paragraph about QuuxSet."
)
AUTHOR_YEAR = (
    "1 Introduction\n\n"
    "We use the BarCorpus (Smith et al., 2019) and compare with Lee (2020a). Springs follow van der Berg and Stone\n"
    "(2021).\n\n"
    "REFERENCES\n\n"
    "Smith, J., and Jones, K. (2019). Widget photographs. Widget Journal, 3, 1-10.\n"
    "Lee, A. (2020a). Gears and springs. Springer. https://doi.org/10.5281/zenodo.42.\n\n"
    "Ada van der Berg and Bob Stone. 2021. Counting springs in\n\n"
    "the wild. In Proc. WidgetConf.\n\n"
    "J. M\u00fcller. Widgets revisited, with the BarCorpus. Widget Letters, 2018."
)


def _numbered(style: str) -> list[str]:
    """The numbered paper's pages with markers written "[n]" or "n."."""
    marker = "[{}]" if style == "bracket" else "{}."
    refs = NUMBERED_REFERENCES
    for number in (1, 2, 3):
        refs = refs.replace(f"{{{number}}}", marker.format(number))
    return [NUMBERED_BODY, refs, NUMBERED_LAST_PAGE]


@pytest.fixture(params=["bracket", "dotted"])
def numbered_paper(request: pytest.FixtureRequest, make_pdf: PdfMaker) -> ParsedPaper:
    return parse_pdf(make_pdf(f"numbered-{request.param}.pdf", _numbered(request.param)))


@pytest.fixture
def author_year_paper(make_pdf: PdfMaker) -> ParsedPaper:
    return parse_pdf(make_pdf("author-year.pdf", [AUTHOR_YEAR]))


def test_numbered_list_splits_into_entries(numbered_paper: ParsedPaper) -> None:
    references = extract_references(numbered_paper)
    assert [(ref.key, ref.page) for ref in references] == [("1", 2), ("2", 2), ("3", 2)]
    assert references[0].text == (
        "J. Smith. The QuuxSet collection of widget photographs. Available at https://github.com/acme/ quux-set. "
        "Widget Journal, 2019."
    )


def test_numbered_list_repairs_urls_and_reads_dois(numbered_paper: ParsedPaper) -> None:
    first, second, third = extract_references(numbered_paper)
    assert first.urls == ("https://github.com/acme/quux-set",)
    assert first.dois == ()
    assert second.urls == ()
    assert second.dois == ("10.1145/3292500.3330701",)


def test_entry_continues_over_a_page_without_page_number_header_or_appendix(numbered_paper: ParsedPaper) -> None:
    last = extract_references(numbered_paper)[-1]
    assert last.text == (
        "A. Lee. Gears in the wild: a field guide. In Proceedings of the Conference on Widgets, pages 1-10, 2021."
    )


def test_fixture_paper_stops_at_the_appendix(paper_pdf: Path) -> None:
    references = extract_references(parse_pdf(paper_pdf))
    assert [ref.key for ref in references] == ["1", "2"]
    assert references[1].text == "K. Jones. Springs and gears. Proc. WidgetConf, 2020."


def test_author_year_list_keys_by_first_surname_and_year(author_year_paper: ParsedPaper) -> None:
    references = extract_references(author_year_paper)
    assert [ref.key for ref in references] == ["Smith 2019", "Lee 2020a", "van der Berg 2021", "M\u00fcller 2018"]
    assert references[2].text == (
        "Ada van der Berg and Bob Stone. 2021. Counting springs in the wild. In Proc. WidgetConf."
    )
    assert references[1].urls == ("https://doi.org/10.5281/zenodo.42",)
    assert references[1].dois == ("10.5281/zenodo.42",)
    assert {ref.page for ref in references} == {1}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Smith, J. (2019). A title. Journal.", "Smith 2019"),
        ("Smith J, Jones K. A title. Journal 2019;3:1-10.", "Smith 2019"),
        ("John A. Smith, Kim Jones. 2019b. A title.", "Smith 2019b"),
        ("van der Berg, A. 2021. A title.", "van der Berg 2021"),
        ("OpenAI. 2023. GPT-4 technical report.", "OpenAI 2023"),
        ("Anonymous. A title of no date. n.d.", "Anonymous"),
    ],
)
def test_author_year_key_forms(make_pdf: PdfMaker, text: str, key: str) -> None:
    paper = parse_pdf(make_pdf("one.pdf", [f"Body text of the paper.\n\nReferences\n\n{text}"]))
    assert [ref.key for ref in extract_references(paper)] == [key]


def test_an_author_year_list_ends_at_the_first_block_that_is_no_entry(make_pdf: PdfMaker) -> None:
    entries = "\n\n".join(f"{name}, A. 2019. Title {name}. In Proc. Conf." for name in ("Ames", "Bell", "Cole"))
    appendix = ("A.1 Experimental Setup for GearSet\n\n"
                "Tables 6 and 7 list examples from GearSet, see https://github.com/acme/gears.\n\n"
                "Dale, B. 2020. Not an entry of the list.")
    paper = parse_pdf(make_pdf("tail.pdf", [f"Body text.\n\nReferences\n\n{entries}\n\n{appendix}"]))
    assert [ref.key for ref in extract_references(paper)] == ["Ames 2019", "Bell 2019", "Cole 2019"]


def test_paper_without_a_reference_list(make_pdf: PdfMaker) -> None:
    paper = parse_pdf(make_pdf("plain.pdf", [PAGE_ONE]))
    assert extract_references(paper) == []
    assert references_for(paper, ["FooBench-10"], []) == []


def _ref(key: str, text: str = "") -> Reference:
    return Reference(key=key, text=text or f"Entry {key}.", page=1, urls=(), dois=())


NUMBERED = [_ref(str(number)) for number in range(1, 6)]
AUTHORS = [_ref(key) for key in ("Smith 2019", "Jones 2019", "Lee 2020a", "van der Berg 2021", "M\u00fcller 2018")]


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        ("Widgets were counted [3].", ["3"]),
        ("Widgets were counted [3, 5].", ["3", "5"]),
        ("Widgets were counted [3-5].", ["3", "4", "5"]),
        ("Widgets were counted [3\u20135].", ["3", "4", "5"]),
        ("Widgets [4] were counted [2; 9] and again [4].", ["4", "2"]),
        ("Widgets were counted [7].", []),
        ("In 2019 we counted 3 widgets (Table 2).", []),
    ],
)
def test_cited_keys_numeric(sentence: str, keys: list[str]) -> None:
    assert cited_keys(sentence, NUMBERED) == keys


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        ("Widgets were counted (Smith et al., 2019).", ["Smith 2019"]),
        ("Smith et al. (2019) counted widgets.", ["Smith 2019"]),
        ("Widgets (Smith and Jones, 2019; Lee, 2020a) matter.", ["Smith 2019", "Lee 2020a"]),
        ("Lee (2020a) extends the counts of Jones (2019).", ["Lee 2020a", "Jones 2019"]),
        ("Widgets (see Jones 2019, and M\u00fcller, 2018) matter.", ["Jones 2019", "M\u00fcller 2018"]),
        ("As van der Berg et al. (2021) show, springs vary.", ["van der Berg 2021"]),
        ("Widgets (Muller, 2018) matter.", ["M\u00fcller 2018"]),
        ("Widgets were counted (Lee, 2020b).", []),
        ("Widgets were counted (Smith, 2017).", []),
        ("In 2019 we counted widgets (Table 2).", []),
    ],
)
def test_cited_keys_author_year(sentence: str, keys: list[str]) -> None:
    assert cited_keys(sentence, AUTHORS) == keys


def test_cited_keys_ignores_numbers_in_an_author_year_list() -> None:
    assert cited_keys("Widgets were counted [1].", AUTHORS) == []


def test_references_for_returns_the_entry_cited_next_to_the_name(numbered_paper: ParsedPaper) -> None:
    references = extract_references(numbered_paper)
    assert [ref.key for ref in references_for(numbered_paper, ["QuuxSet"], references)] == ["1"]
    assert [ref.key for ref in references_for(numbered_paper, ["Springs"], references)] == ["3", "2"]
    assert references_for(numbered_paper, ["NoSuchSet"], references) == []


def test_references_for_adds_entries_that_name_the_dataset(author_year_paper: ParsedPaper) -> None:
    references = extract_references(author_year_paper)
    found = references_for(author_year_paper, ["Bar Corpus"], references)
    assert [ref.key for ref in found] == ["Smith 2019", "Lee 2020a", "M\u00fcller 2018"]
