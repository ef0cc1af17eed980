from pathlib import Path

import pymupdf
import pytest

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
