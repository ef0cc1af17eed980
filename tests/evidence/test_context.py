from pathlib import Path

import pymupdf

from dsminer.document.pdf import parse_pdf
from dsminer.evidence.context import build_paper_context, format_urls


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


def test_context_holds_table_lines_and_data_section_sentences(tmp_path):
    from dsminer.evidence.context import dataset_evidence
    from tests.helpers import ruled_table_pdf

    paper = parse_pdf(ruled_table_pdf(tmp_path / "t.pdf"))
    context = build_paper_context(paper, max_sentences=10)
    assert context.startswith("Tables:\n[p1] Table 1: Statistics of the datasets. | columns: Dataset; Train; Test")
    assert "rows: OrcaSet-5; WhaleCalls" in context
    assert "OrcaSet-5" in dataset_evidence(paper, ["WhaleCalls"])  # the table line that names it


def test_data_section_sentences_outrank_the_same_words_elsewhere(make_pdf):
    filler = " ".join(f"Filler sentence number {i} about nothing in particular." for i in range(60))
    pages = ["1 Introduction\n\nOthers evaluate on many benchmarks.\n\n" + filler,
             "4 Experiments\n\nWe evaluate on many benchmarks.\n\n" + filler]
    context = build_paper_context(parse_pdf(make_pdf("s.pdf", pages)), max_sentences=1, with_urls=False)
    assert context == "[p2] We evaluate on many benchmarks."


def test_dataset_evidence_is_its_mentions_with_the_next_sentence(make_pdf):
    from dsminer.evidence.context import dataset_evidence

    text = ("Intro text here. We evaluate on OrcaSet-5 and WhaleCalls. OrcaSet-5 holds 1,200 recordings. "
            "It was collected in 2019. Unrelated sentence about gears.\n\nReferences\n\n[1] OrcaSet-5 paper.")
    evidence = dataset_evidence(parse_pdf(make_pdf("e.pdf", [text])), ["OrcaSet-5"])
    assert evidence.splitlines() == ["[p1] We evaluate on OrcaSet-5 and WhaleCalls.",
                                     "[p1] OrcaSet-5 holds 1,200 recordings.", "[p1] It was collected in 2019."]
    assert dataset_evidence(parse_pdf(make_pdf("e2.pdf", [text])), ["Absent"]) == ""
