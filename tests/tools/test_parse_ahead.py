"""Parsing PDFs in worker processes ahead of the model steps (dsminer.run.parsing)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dsminer.errors import DsminerError
from dsminer.run.parsing import PaperParser, ParserCrashed, parse_processes
from dsminer.tools.pdf import ParsedPaper, parse_pdf

from tests.tools.conftest import PAGE_ONE, PAGE_TWO, PdfMaker


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


def test_without_processes_the_calling_thread_parses(papers: list[Path]) -> None:
    with PaperParser(papers, processes=0, ahead=3) as parser:
        assert not parser.pending and parser.pool is None
        assert texts(parser.parse(papers[1])) == texts(parse_pdf(papers[1]))


def test_processes_default_to_one_per_worker_and_at_most_one_per_core() -> None:
    cores = os.cpu_count() or 1
    assert parse_processes(None, 1) == 1
    assert parse_processes(None, 64) == cores
    assert parse_processes(0, 8) == 0 and parse_processes(3, 1) == 3
