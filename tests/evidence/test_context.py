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


def test_paper_context_says_what_it_shows(tmp_path):
    from dsminer.evidence.context import paper_context
    from tests.helpers import ruled_table_pdf

    paper = parse_pdf(ruled_table_pdf(tmp_path / "t.pdf"))
    context = paper_context(paper, max_sentences=10)
    assert context.text == build_paper_context(paper, max_sentences=10)
    indexed = paper.indexed_sentences()
    assert context.tables == {0} and context.sentences
    assert all(indexed[index][0].text[:30] in context.text for index in context.sentences)


def test_unread_context_holds_what_no_attempt_read_of_data_sections_and_appendix(make_pdf):
    from dsminer.evidence.context import paper_context, unread_context

    filler = " ".join(f"We evaluate model variant {i} on held-out benchmark splits." for i in range(80))
    pages = ["4 Experiments\n\nWe evaluate on the DuneSet benchmark. " + filler,
             "References\n\n[1] A. Author. A paper. 2020.\n\nA Appendix\n\nRainfall grids come from GridRain."]
    paper = parse_pdf(make_pdf("u.pdf", pages))
    first = paper_context(paper, max_sentences=40, with_urls=False)
    read = {index for index in first.sentences if "GridRain" not in paper.indexed_sentences()[index][0].text}
    unread = unread_context(paper, read, first.tables)  # an attempt that read the experiments, not the appendix
    assert unread is not None and not unread.sentences & read
    kinds = dict(unread.kinds)
    assert kinds["appendix"] == 1 and kinds["data_section"] >= 1
    assert "[p2] Rainfall grids come from GridRain." in unread.text and "DuneSet" not in unread.text
    assert "A paper. 2020" not in unread.text  # the reference list is never new evidence
    everything = set(range(len(paper.indexed_sentences())))
    assert unread_context(paper, everything, first.tables) is None


def test_unread_context_finds_the_other_spellings_of_a_name_the_paper_does_not_write(make_pdf):
    from dsminer.evidence.context import unread_context

    text = ("1 Introduction\n\nWe like maps of the sky at night.\n\nAcknowledgments\n\n"
            "We thank the GridRain team for their help with the maps.")
    paper = parse_pdf(make_pdf("s.pdf", [text]))
    assert unread_context(paper, set(), set()) is None  # nothing cued or named outside the acknowledgments
    spelled = unread_context(paper, set(), set(), spellings=["GridRain v2 archive"])
    assert spelled is not None and dict(spelled.kinds) == {"spellings": 1}
    assert "GridRain team" in spelled.text


def test_unread_dataset_evidence_is_the_mentions_not_yet_read(make_pdf):
    from dsminer.evidence.context import dataset_evidence, unread_dataset_evidence

    mentions = " ".join(f"OrcaSet-5 recording {word} was made offshore. The sea was calm." for word in
                        ("alpha", "beta", "gamma", "delta", "epsilon"))
    paper = parse_pdf(make_pdf("d.pdf", [f"We evaluate on OrcaSet-5. {mentions}"]))
    shown = dataset_evidence(paper, ["OrcaSet-5"])
    unread = unread_dataset_evidence(paper, ["OrcaSet-5"], shown)
    assert unread is not None and dict(unread.kinds) == {"mentions": 2}  # the sentence after each was read already
    assert "epsilon" in unread.text and not set(unread.text.splitlines()) & set(shown.splitlines())
    assert unread_dataset_evidence(paper, ["OrcaSet-5"], shown + unread.text) is None


def test_unread_context_reads_running_text_not_headers_or_figure_labels(make_pdf):
    from dsminer.evidence.context import unread_context

    text = ("1 Methods\n\nREVEALING THE DATED TREE OF LIFE\n\nRouter New Router Old Tasks\n\n"
            "Ages were taken from the TimeTree resource for all species in the tree.")
    unread = unread_context(parse_pdf(make_pdf("p.pdf", [text])), set(), set())
    assert unread is not None
    assert unread.text == "[p1] Ages were taken from the TimeTree resource for all species in the tree."


def test_name_sentence_prefers_the_one_writing_the_name_as_data_and_cuts_around_the_name(make_pdf):
    from dsminer.evidence.context import name_sentence

    long_tail = " ".join(f"word{i}" for i in range(80))
    text = ("We ran OrcaTool on every clip. Our recordings come from the OrcaSet-5 archive, " + long_tail + ". "
            "Later OrcaTool again.\n\nReferences\n\n[1] The OrcaTool archive paper.")
    paper = parse_pdf(make_pdf("n.pdf", [text]))
    assert name_sentence(paper, ["OrcaTool"]) == "We ran OrcaTool on every clip."  # the reference list is not read
    cut = name_sentence(paper, ["OrcaSet-5"], max_chars=60)
    assert "OrcaSet-5 archive" in cut and len(cut) <= 60
    assert name_sentence(paper, ["Absent"]) == ""
