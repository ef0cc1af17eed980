from pathlib import Path

import pymupdf

from dsminer.tools.context import build_paper_context, format_urls
from dsminer.tools.pdf import parse_pdf


def paper_with_reference_url(tmp_path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    lines = ["1 Experiments", "We evaluate on the DuneSet benchmark, available at https://dune.example.org/data.",
             "", "References", "[1] A. Writer. A cited paper. https://papers.example.org/cited-paper.pdf"]
    for i, line in enumerate(lines):
        page.insert_text((72, 72 + 16 * i), line, fontsize=10)
    path = tmp_path / "p.pdf"
    doc.save(path)
    return path


def test_reference_list_urls_are_not_offered(tmp_path):
    paper = parse_pdf(paper_with_reference_url(tmp_path))
    assert "https://papers.example.org/cited-paper.pdf" in paper.urls()
    listed = format_urls(paper)
    assert "https://dune.example.org/data" in listed
    assert "cited-paper" not in listed


def test_context_has_page_tags_and_urls(tmp_path):
    context = build_paper_context(parse_pdf(paper_with_reference_url(tmp_path)), max_sentences=10)
    assert "[p1] We evaluate on the DuneSet benchmark" in context
    assert context.index("URLs in the paper:") > context.index("DuneSet")
