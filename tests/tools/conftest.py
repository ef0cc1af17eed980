"""Small PDFs built with PyMuPDF for the tool tests: a paper, and files that must be refused."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pymupdf
import pytest

PAGE_ONE = (
    "A Tiny Study of Widget Recognition\n\n"
    "Ada Example (Institute of Widgets)\n\n"
    "Abstract. We recognise widgets in photographs, e.g. gears and springs, following Smith et al. (2019).\n\n"
    "1 Introduction\n\n"
    "Widgets matter. Prior work (Fig. 2) reached 91.5 percent accuracy on small sets.\n\n"
    "2 Data\n\n"
    "We evaluate on the FooBench-10 dataset1 which contains 4,000 images. The Bar Corpus\n"
    "consists of 900 labeled photographs and can be downloaded here. Our exper-\n"
    "iments use a held-out test set from each.\n\n"
    "We thank the reviewers for their comments."
)
PAGE_TWO = (
    "3 Results\n\n"
    "Table 1: Accuracy (%) on FooBench-10 and Bar Corpus.\n\n"
    "Model FooBench-10 Bar Corpus\n\n"
    "Baseline 80.1 70.2\n\n"
    "References\n\n"
    "[1] J. Smith. The QuuxSet collection of widget photographs. Widget Journal, 2019.\n\n"
    "[2] K. Jones. Springs and gears. Proc. WidgetConf, 2020.\n\n"
    "Appendix A Further details\n\n"
    "A pilot study also used QuuxSet for calibration."
)
FOOTNOTE = ("1 Data: https://example.org/widgets/", "foobench-10.zip")
LINK = ("here", "https://github.com/acme/bar-corpus")

PdfMaker = Callable[..., Path]


def build_pdf(
    path: Path,
    pages: Sequence[str],
    links: Sequence[tuple[int, str, str]] = (),
    footnote: Sequence[str] = (),
    **save_options: object,
) -> Path:
    """Write `pages` (text with blank lines between blocks) to `path`, with link annotations and a footnote."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=612, height=792)
        y = 72.0
        for block in text.split("\n\n"):
            rect = pymupdf.Rect(72, y, 540, 700)
            rest = page.insert_textbox(rect, block, fontsize=10, fontname="tiro")
            assert rest >= 0, f"fixture text does not fit: {block[:30]!r}"
            y += rect.height - rest + 8
    for number, line in enumerate(footnote):
        doc[0].insert_text((72, 730 + 10 * number), line, fontsize=8, fontname="tiro")
    for page_index, anchor, uri in links:
        rect = doc[page_index].search_for(anchor)[-1]
        doc[page_index].insert_link({"kind": pymupdf.LINK_URI, "from": rect, "uri": uri})
    doc.save(path, **save_options)
    doc.close()
    return path


@pytest.fixture
def make_pdf(tmp_path: Path) -> PdfMaker:
    """A factory writing small PDFs into tmp_path: make_pdf(name, pages, links=..., footnote=...)."""

    def make(name: str, pages: Sequence[str], **options: object) -> Path:
        return build_pdf(tmp_path / name, pages, **options)

    return make


@pytest.fixture
def paper_pdf(make_pdf: PdfMaker) -> Path:
    """A two-page paper: datasets, a broken footnote URL, a link under "here", a table, references."""
    return make_pdf("paper.pdf", [PAGE_ONE, PAGE_TWO], links=[(0, *LINK)], footnote=FOOTNOTE)


@pytest.fixture
def encrypted_pdf(make_pdf: PdfMaker) -> Path:
    """A PDF that needs a password to open."""
    return make_pdf(
        "locked.pdf", [PAGE_ONE], encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y"
    )


@pytest.fixture
def corrupt_pdf(tmp_path: Path) -> Path:
    """A file with a PDF header and nothing readable after it."""
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.7\n\x00\x01 this is not a PDF body \xff\xfe")
    return path


@pytest.fixture
def not_pdf(tmp_path: Path) -> Path:
    """A text file named like a PDF."""
    path = tmp_path / "notes.pdf"
    path.write_text("just some notes, not a PDF\n", encoding="utf-8")
    return path


@pytest.fixture
def zero_page_pdf(tmp_path: Path) -> Path:
    """A syntactically valid PDF whose page tree is empty."""
    path = tmp_path / "empty.pdf"
    path.write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
        b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    )
    return path


@pytest.fixture
def image_only_pdf(tmp_path: Path) -> Path:
    """Two pages with a picture and shapes but no text layer, like a scan."""
    doc = pymupdf.open()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), 0)
    pixmap.clear_with(200)
    for _ in range(2):
        page = doc.new_page()
        page.insert_image(pymupdf.Rect(72, 72, 500, 700), pixmap=pixmap)
        page.draw_rect(pymupdf.Rect(100, 100, 200, 200), color=(0, 0, 0))
    path = tmp_path / "scan.pdf"
    doc.save(path)
    doc.close()
    return path
