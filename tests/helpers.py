"""What several test modules build or check the same way: small PDFs, the CLI, one-line errors, a run's files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pymupdf

from dsminer.tools.pdf import ParsedPaper, parse_pdf

CALLS_PER_PAPER = 3  # s0 on a one-dataset paper: metadata, names, one detail call
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
