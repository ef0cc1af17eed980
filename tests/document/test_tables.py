import pymupdf

from dsminer.document.pdf import parse_pdf
from dsminer.document.tables import TableText, read_page_tables
from tests.helpers import ruled_table_pdf


def test_a_ruled_table_gives_caption_header_and_first_column(tmp_path):
    with pymupdf.open(ruled_table_pdf(tmp_path / "t.pdf")) as doc:
        (table,) = read_page_tables(doc[0])
    assert table.page == 1
    assert table.caption == "Table 1: Statistics of the datasets."
    assert table.header == ("Dataset", "Train", "Test")
    assert table.first_column == ("OrcaSet-5", "WhaleCalls")


def test_parsed_paper_carries_its_tables(tmp_path):
    paper = parse_pdf(ruled_table_pdf(tmp_path / "t.pdf"))
    assert [t.first_column for t in paper.tables] == [("OrcaSet-5", "WhaleCalls")]


def test_numeric_cells_are_left_out_and_description_is_one_line():
    table = TableText(2, "Table 3: Results.", ("Model", "Acc"), ("OrcaSet-5",))
    assert table.describe() == "Table 3: Results. | columns: Model; Acc | rows: OrcaSet-5"
    assert table.cells() == ("Model", "Acc", "OrcaSet-5")


def test_a_page_without_tables_gives_none(tmp_path):
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Plain text only.", fontsize=10)
    assert read_page_tables(doc[0]) == []


def test_a_page_without_drawings_skips_the_table_search(tmp_path, monkeypatch):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Table 1: Text laid out like a table, with no lines.", fontsize=10)

    calls = []
    monkeypatch.setattr(pymupdf.Page, "find_tables", lambda *args, **kwargs: calls.append(args))
    assert read_page_tables(page) == [] and calls == []


def test_a_ruled_grid_without_a_table_caption_is_not_searched(tmp_path, monkeypatch):
    calls = []
    original = pymupdf.Page.find_tables
    monkeypatch.setattr(pymupdf.Page, "find_tables", lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
    with pymupdf.open(ruled_table_pdf(tmp_path / "figure.pdf", caption="Figure 2: A diagram drawn as a grid.")) as doc:
        assert read_page_tables(doc[0]) == [] and calls == []
    with pymupdf.open(ruled_table_pdf(tmp_path / "table.pdf")) as doc:
        assert len(read_page_tables(doc[0])) == 1 and calls == [1]
