from pathlib import Path

import pymupdf
import pytest

from dsminer.programs.agent import controller
from tests.helpers import ReadAs

PAPER_LINES = [
    "Learning to Count Reef Fish",
    "Ada Lovelace, Alan Turing",
    "Analytical Engines Lab",
    "Abstract. We study counting in underwater images.",
    "",
    "4 Experiments",
    "We evaluate on the ReefCount-3k dataset and on the KelpScenes corpus.",
    "ReefCount-3k holds 3,000 annotated underwater images with fish counts.",
    "The data is available at https://reefcount.example.org/data for research use.",
]


@pytest.fixture
def paper_pdf(tmp_path: Path) -> Path:
    """A one-page paper naming two datasets, one with a URL in the text."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 72
    for line in PAPER_LINES:
        page.insert_text((72, y), line, fontsize=10)
        y += 16
    path = tmp_path / "reef.pdf"
    doc.save(path)
    doc.close()
    return path


# An appendix after the reference list: site notes that name the survey, more than the first context reads, with
# ReefCount-3k mentioned again where a first detail step does not read.
SITES = ("north", "south", "east", "west", "outer", "inner", "upper", "lower", "far")


def appendix_lines(sites: int) -> list[str]:
    return ["References", "[1] A. Lovelace. Counting fish in the reef. Journal of Reefs, 2020.", "",
            "A Appendix: Survey Notes",
            *(f"Transects at the {first}{second} site from TideLog list the species seen along fifty metres of reef."
              for first in SITES[:sites] for second in "abcdefghij"),
            *(f"ReefCount-3k images of the {place} reef were taken with one camera at four metres depth in clear "
              "water." for place in SITES[:4])]


def write_paper(path: Path, sites: int) -> Path:
    doc = pymupdf.open()
    appendix = appendix_lines(sites)
    pages = [(PAPER_LINES, 10, 16), *((appendix[start:start + 80], 6, 9) for start in range(0, len(appendix), 80))]
    for lines, size, step in pages:
        page = doc.new_page()
        y = 40
        for line in lines:
            page.insert_text((40, y), line, fontsize=size)
            y += step
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def appendix_pdf(tmp_path: Path) -> Path:
    """The one-page paper with its reference list and an appendix that one retry reads to the end."""
    return write_paper(tmp_path / "reef.pdf", 5)


@pytest.fixture
def long_appendix_pdf(tmp_path: Path) -> Path:
    """The one-page paper with its reference list and an appendix that takes two retries to read."""
    return write_paper(tmp_path / "reef.pdf", 9)


@pytest.fixture(autouse=True)
def agents_read_every_name_as_a_dataset(monkeypatch):
    """The agents' check step answers without the LM (`ReadAs`), so their tests script only the other steps; a test
    of the check puts a real `NameCheck` in `agent.check`."""
    monkeypatch.setattr(controller, "NameCheck", ReadAs)
