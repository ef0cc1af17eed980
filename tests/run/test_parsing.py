"""Parsing PDFs in worker processes ahead of the model steps (dsminer.run.parsing)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from dsminer.document.pdf import ParsedPaper, parse_pdf
from dsminer.errors import DsminerError
from dsminer.run.parsing import PaperParser, ParserCrashed, ParserHung, parse_processes
from tests.helpers import PAGE_ONE, PAGE_TWO, PdfMaker, hang_on_stuck


def crash_on_bomb(path: Path) -> ParsedPaper:
    """A parse that kills its process on `bomb.pdf`, as a crash inside PyMuPDF would."""
    if path.name == "bomb.pdf":
        os._exit(1)
    return parse_pdf(path)


@pytest.fixture
def papers(make_pdf: PdfMaker) -> list[Path]:
    return [make_pdf(f"p{number}.pdf", [PAGE_ONE, PAGE_TWO][: 1 + number % 2]) for number in range(5)]


def texts(paper: ParsedPaper) -> list[str]:
    return [page.text for page in paper.pages]


def test_papers_parsed_in_processes_equal_papers_parsed_in_the_thread(papers: list[Path]) -> None:
    with PaperParser(papers, processes=2, ahead=3) as parser:
        assert len(parser.pending) == 3  # started before any paper is asked for, and no further ahead
        parsed = [parser.parse(path) for path in papers]
        assert not parser.pending
    for path, paper in zip(papers, parsed):
        expected = parse_pdf(path)
        assert texts(paper) == texts(expected) and paper.links == expected.links and paper.tables == expected.tables


def test_threads_asking_in_any_order_each_get_their_own_paper(papers: list[Path]) -> None:
    with PaperParser(papers, processes=2, ahead=2) as parser, ThreadPoolExecutor(3) as threads:
        parsed = list(threads.map(parser.parse, reversed(papers)))
    assert [paper.path.name for paper in parsed] == [path.name for path in reversed(papers)]


def test_a_refused_pdf_raises_its_one_line_reason(make_pdf: PdfMaker, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really")
    good = make_pdf("good.pdf", [PAGE_ONE])
    with PaperParser([broken, good], processes=1, ahead=2) as parser:
        with pytest.raises(DsminerError, match="broken.pdf"):
            parser.parse(broken)
        assert parser.parse(good).pages


def test_a_pdf_that_kills_the_parser_fails_alone_and_the_next_papers_parse(papers: list[Path],
                                                                           make_pdf: PdfMaker) -> None:
    bomb = make_pdf("bomb.pdf", [PAGE_ONE])
    order = [papers[0], bomb, *papers[1:]]
    with PaperParser(order, processes=2, ahead=4, reader=crash_on_bomb) as parser:
        assert parser.parse(papers[0]).pages
        with pytest.raises(ParserCrashed, match="bomb.pdf: the PDF parser crashed"):
            parser.parse(bomb)
        assert [parser.parse(path).path for path in papers[1:]] == papers[1:]


def test_a_crash_while_parsing_ahead_fails_only_the_crashed_paper(papers: list[Path], make_pdf: PdfMaker) -> None:
    bomb = make_pdf("bomb.pdf", [PAGE_ONE])
    with PaperParser([bomb, *papers], processes=2, ahead=3, reader=crash_on_bomb) as parser:
        crashed = parser.pending[bomb]
        wait([crashed])  # the pool broke before any paper is asked for
        assert isinstance(crashed.exception(), BrokenProcessPool)
        assert [parser.parse(path).path for path in papers] == papers
        with pytest.raises(ParserCrashed, match="bomb.pdf: the PDF parser crashed"):
            parser.parse(bomb)


def test_a_parse_past_the_time_limit_fails_its_paper_and_its_process_is_stopped(papers: list[Path],
                                                                               make_pdf: PdfMaker) -> None:
    stuck = make_pdf("stuck.pdf", [PAGE_ONE])
    with PaperParser([stuck, *papers], processes=2, ahead=3, reader=hang_on_stuck) as parser:
        with pytest.raises(ParserHung, match="stuck.pdf: parsing took longer than the time limit of 2 s"):
            parser.parse(stuck, timeout=2)
        assert [parser.parse(path, timeout=300).path for path in papers] == papers
    pid = int(stuck.with_suffix(".pid").read_text())
    for _ in range(100):  # the killed process is reaped by its pool's manager thread or here
        if pid not in {child.pid for child in multiprocessing.active_children()}:
            break
        time.sleep(0.1)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_without_processes_the_calling_thread_parses(papers: list[Path]) -> None:
    with PaperParser(papers, processes=0, ahead=3) as parser:
        assert not parser.pending and parser.pool is None
        assert texts(parser.parse(papers[1])) == texts(parse_pdf(papers[1]))


def test_processes_default_to_one_per_worker_and_at_most_one_per_core() -> None:
    cores = os.cpu_count() or 1
    assert parse_processes(None, 1) == 1
    assert parse_processes(None, 64) == cores
    assert parse_processes(0, 8) == 0 and parse_processes(3, 1) == 3


def priority(path: Path) -> int:
    """The niceness of the process that parses `path` (a reader that parses nothing)."""
    return os.nice(0)


def test_parser_processes_run_below_the_run_processs_priority(papers: list[Path]) -> None:
    if os.nice(0) >= 19:
        pytest.skip("the tests already run at the lowest priority")
    with PaperParser(papers[:1], processes=1, ahead=1, reader=priority) as parser:
        assert parser.parse(papers[0]) > os.nice(0)


def test_the_command_module_imports_neither_the_command_line_nor_dspy() -> None:
    # The parser's processes start from the `dsminer` script and import what it imports.
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, dsminer.__main__; print(sorted(m for m in ('dsminer.cli', 'dspy', "
         "'mlflow') if m in sys.modules))"], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
