"""What several test modules build or check the same way: small PDFs, the CLI, one-line errors, a run's files."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import dspy
import pymupdf

from dsminer.document.pdf import ParsedPaper, parse_pdf

CALLS_PER_PAPER = 4  # s0 on a one-dataset paper: metadata, names, the check of its dataset, one detail call
TABLE_ROWS = [("Dataset", "Train", "Test"), ("OrcaSet-5", "1,200", "300"), ("WhaleCalls", "800", "95.5")]


def invoke(*args: str):
    """`dsminer ARGS...` through typer's runner (imported here: a parser process that imports this module for
    `hang_on_stuck` must start fast)."""
    from typer.testing import CliRunner

    from dsminer.cli import app

    return CliRunner().invoke(app, list(args))


def assert_one_line_error(result, fragment: str) -> None:
    """The command exited 1 with one line starting "error:" that holds `fragment`."""
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert fragment in lines[0]


def one_page_pdf(path: Path, lines: list[str]) -> Path:
    """A PDF of one page with `lines` of text."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate(lines):
        page.insert_text((72, 72 + 16 * i), line, fontsize=10)
    doc.save(path)
    doc.close()
    return path


def fish_corpus(folder: Path, names: list[str]) -> Path:
    """A folder of one-page papers (`names`) that each use the ReefCount-3k dataset."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        one_page_pdf(folder / name, ["Counting Fish", "We evaluate on the ReefCount-3k dataset of reef images."])
    return folder


def ruled_table_pdf(path: Path, caption: str = "Table 1: Statistics of the datasets.") -> Path:
    """A page with a caption over a three-column table (`TABLE_ROWS`) drawn with ruling lines."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), caption, fontsize=10)
    left, top, width, height = 72, 100, 120, 20
    for r, row in enumerate(TABLE_ROWS):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(left + c * width, top + r * height, left + (c + 1) * width, top + (r + 1) * height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.5)
            page.insert_text((rect.x0 + 4, rect.y1 - 6), cell, fontsize=9)
    doc.save(path)
    doc.close()
    return path


def hang_on_stuck(path: Path) -> ParsedPaper:
    """A parse that never ends on `stuck.pdf` (after leaving its process id beside it), as a PDF that sends
    PyMuPDF into an endless loop does."""
    if path.name == "stuck.pdf":
        path.with_suffix(".pid").write_text(str(os.getpid()))
        time.sleep(600)
    return parse_pdf(path)


def papers(out: Path = Path("out")) -> dict[str, dict]:
    """A run directory's status lines by file."""
    from dsminer.store import RunStore

    return {row["file"]: row for row in RunStore(out).read_papers()}


def records(out: Path = Path("out")) -> list[str]:
    """A run directory's records as sorted "file:name" strings."""
    from dsminer.store import RunStore

    return sorted(f"{r.evidence.source}:{r.name}" for r in RunStore(out).read_records())


# A two-page paper for the document and evidence tests: datasets, a broken footnote URL, a link, a table, references.
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


class ReadAs(dspy.Module):
    """The check step answered from a table (a name not in it reads as a dataset) without the LM, for the tests of
    the other steps; `asked` lists the names in the order checked."""

    def __init__(self, reads: dict[str, str] | bool | None = None) -> None:
        super().__init__()
        self.reads = reads if isinstance(reads, dict) else {}  # in place of `NameCheck(examples)`: no table
        self.asked: list[str] = []

    def forward(self, text: str, name: str, config=None) -> dspy.Prediction:
        self.asked.append(name)
        return dspy.Prediction(kind=self.reads.get(name, "dataset"))
