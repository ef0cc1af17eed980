"""Local corpora: PDF discovery, metadata files (CSV, JSONL), sidecars, and one-line errors."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from dsminer.corpus import CorpusPaper, load_corpus
from dsminer.errors import CorpusError, MetadataFileError
from dsminer.schema import PaperRefs


def touch_pdfs(folder: Path, *names: str) -> None:
    """Files named like PDFs; load_corpus does not open them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"%PDF-1.7\n%%EOF\n")


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def by_name(papers: list[CorpusPaper]) -> dict[str, CorpusPaper]:
    return {paper.path.name: paper for paper in papers}


def test_pdfs_are_sorted_case_insensitive_and_not_recursive(tmp_path: Path) -> None:
    touch_pdfs(tmp_path, "b.pdf", "A.PDF", "c.Pdf")
    touch_pdfs(tmp_path / "nested", "d.pdf")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "e.pdf.part").write_bytes(b"%PDF")

    papers = load_corpus(tmp_path)

    assert [paper.path.name for paper in papers] == ["A.PDF", "b.pdf", "c.Pdf"]
    assert all(paper.refs is None and paper.abstract is None for paper in papers)


CSV_TEXT = (
    "file,title,authors,institutions,venue,year,url,is_fellow,abstract\n"
    'a.pdf,Paper A,"Jane Doe; John Smith",MIT;ETH,NeurIPS 2024,2024,https://x.org/a,yes,An abstract.\n'
    "b.pdf,Paper B,,,,,,,\n"
)


def test_csv_metadata(tmp_path: Path) -> None:
    touch_pdfs(tmp_path, "a.pdf", "b.pdf", "c.pdf")
    metadata = tmp_path / "papers.csv"
    metadata.write_text(CSV_TEXT, encoding="utf-8")

    papers = by_name(load_corpus(tmp_path, metadata))

    assert papers["a.pdf"].refs == PaperRefs(
        title="Paper A", authors=["Jane Doe", "John Smith"], institutions=["MIT", "ETH"],
        venue="NeurIPS 2024", year=2024, url="https://x.org/a", is_fellow=True,
    )  # fmt: skip
    assert papers["a.pdf"].abstract == "An abstract."
    assert papers["b.pdf"].refs == PaperRefs(title="Paper B")
    assert papers["b.pdf"].abstract is None
    assert papers["c.pdf"].refs is None


def test_jsonl_metadata_with_lists_strings_and_blank_lines(tmp_path: Path) -> None:
    touch_pdfs(tmp_path, "a.pdf", "b.pdf")
    metadata = tmp_path / "meta.jsonl"
    metadata.write_text(
        json.dumps({"file": "a.pdf", "authors": ["Jane Doe"], "year": 2023, "is_fellow": False, "extra": 1})
        + "\n\n"
        + json.dumps({"file": "b.pdf", "authors": "X; Y", "year": "2021", "is_fellow": 1, "abstract": " Hi "})
        + "\n",
        encoding="utf-8",
    )

    papers = by_name(load_corpus(tmp_path, metadata))

    assert papers["a.pdf"].refs == PaperRefs(authors=["Jane Doe"], year=2023, is_fellow=False)
    assert papers["b.pdf"].refs == PaperRefs(authors=["X", "Y"], year=2021, is_fellow=True)
    assert papers["b.pdf"].abstract == "Hi"


@pytest.mark.parametrize("name", ["metadata.jsonl", "metadata.csv"])
def test_folder_metadata_file_is_found(tmp_path: Path, name: str) -> None:
    touch_pdfs(tmp_path, "a.pdf")
    if name.endswith(".jsonl"):
        write_jsonl(tmp_path / name, [{"file": "a.pdf", "title": "Found"}])
    else:
        (tmp_path / name).write_text("file,title\na.pdf,Found\n", encoding="utf-8")

    [paper] = load_corpus(tmp_path)

    assert paper.refs is not None and paper.refs.title == "Found"


def test_explicit_metadata_file_replaces_the_folder_one(tmp_path: Path) -> None:
    touch_pdfs(tmp_path / "pdfs", "a.pdf")
    write_jsonl(tmp_path / "pdfs" / "metadata.jsonl", [{"file": "a.pdf", "title": "Folder"}])
    explicit = write_jsonl(tmp_path / "explicit.jsonl", [{"file": "a.pdf", "venue": "ICML 2020"}])

    [paper] = load_corpus(tmp_path / "pdfs", explicit)

    assert paper.refs == PaperRefs(venue="ICML 2020")


def test_sidecar_wins_field_by_field(tmp_path: Path) -> None:
    touch_pdfs(tmp_path, "a.pdf", "b.pdf")
    write_jsonl(
        tmp_path / "metadata.jsonl",
        [{"file": "a.pdf", "title": "From file", "is_fellow": True, "abstract": "File abstract"}],
    )
    sidecar = {"title": "From sidecar", "authors": ["Jane Doe"], "institutions": [], "venue": "NeurIPS 2024",
               "year": 2024, "url": "https://papers.nips.cc/x", "pdf_url": "https://papers.nips.cc/x.pdf",
               "abstract": None, "track": "Conference"}  # fmt: skip
    (tmp_path / "a.json").write_text(json.dumps(sidecar), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps({"title": "Only sidecar", "abstract": "B."}), encoding="utf-8")

    papers = by_name(load_corpus(tmp_path))

    assert papers["a.pdf"].refs == PaperRefs(
        title="From sidecar", authors=["Jane Doe"], venue="NeurIPS 2024", year=2024,
        url="https://papers.nips.cc/x", is_fellow=True,
    )  # fmt: skip
    assert papers["a.pdf"].abstract == "File abstract"
    assert papers["b.pdf"].refs == PaperRefs(title="Only sidecar")
    assert papers["b.pdf"].abstract == "B."


def test_rows_for_absent_files_are_ignored_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    touch_pdfs(tmp_path, "a.pdf")
    metadata = write_jsonl(tmp_path / "m.jsonl", [{"file": "a.pdf", "title": "A"}, {"file": "ghost.pdf"}])

    with caplog.at_level(logging.WARNING, logger="dsminer.corpus.local"):
        [paper] = load_corpus(tmp_path, metadata)

    assert paper.refs == PaperRefs(title="A")
    assert any("ghost.pdf" in record.getMessage() for record in caplog.records)


BAD_FILES = [
    ("m.jsonl", '{"file": "a.pdf"}\n{"file": "b.pdf",\n', 2, "not valid JSON"),
    ("m.jsonl", '{"file": "a.pdf"}\n\n{"title": "no file"}\n', 3, "missing 'file'"),
    ("m.jsonl", '{"file": "a.pdf"}\n[1, 2]\n', 2, "not a JSON object"),
    ("m.jsonl", '{"file": "a.pdf", "year": "twenty"}\n', 1, "year must be an integer"),
    ("m.jsonl", '{"file": "a.pdf", "year": 2020.5}\n', 1, "year must be an integer"),
    ("m.jsonl", '{"file": "a.pdf", "is_fellow": "maybe"}\n', 1, "is_fellow"),
    ("m.jsonl", '{"file": "a.pdf", "authors": [1, 2]}\n', 1, "authors"),
    ("m.jsonl", '{"file": "a.pdf"}\n{"file": "a.pdf"}\n', 2, "duplicate entry for a.pdf (first at row 1)"),
    ("m.csv", "file,title,year\na.pdf,A,2020\nb.pdf,B,20x0\n", 3, "year must be an integer"),
    ("m.csv", "file,is_fellow\na.pdf,sometimes\n", 2, "is_fellow"),
    ("m.csv", "file,title\n,No file\n", 2, "missing 'file'"),
    ("m.csv", "file,title\na.pdf,A,extra\n", 2, "more values than header columns"),
    ("m.csv", "name,title\na.pdf,A\n", 1, "no 'file' column"),
    ("m.txt", "file,title\n", 0, "unknown metadata file extension '.txt'"),
]


@pytest.mark.parametrize(("name", "text", "row", "reason"), BAD_FILES)
def test_bad_metadata_row_is_a_one_line_error_naming_the_row(
    tmp_path: Path, name: str, text: str, row: int, reason: str
) -> None:
    touch_pdfs(tmp_path / "pdfs", "a.pdf", "b.pdf")
    metadata = tmp_path / name
    metadata.write_text(text, encoding="utf-8")

    with pytest.raises(MetadataFileError) as caught:
        load_corpus(tmp_path / "pdfs", metadata)

    assert caught.value.row == row
    assert caught.value.path == metadata
    message = str(caught.value)
    assert message.startswith(f"{name}, row {row}: ")
    assert reason in message
    assert "\n" not in message


def test_bad_sidecar_names_its_file(tmp_path: Path) -> None:
    touch_pdfs(tmp_path, "a.pdf")
    (tmp_path / "a.json").write_text("{not json", encoding="utf-8")

    with pytest.raises(MetadataFileError, match=r"^a\.json, row 1: not valid JSON"):
        load_corpus(tmp_path)


def make_missing(tmp_path: Path) -> tuple[Path, Path | None]:
    return tmp_path / "absent", None


def make_file(tmp_path: Path) -> tuple[Path, Path | None]:
    (tmp_path / "file.pdf").write_bytes(b"%PDF")
    return tmp_path / "file.pdf", None


def make_empty(tmp_path: Path) -> tuple[Path, Path | None]:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("no pdfs")
    return tmp_path / "empty", None


def make_missing_metadata(tmp_path: Path) -> tuple[Path, Path | None]:
    touch_pdfs(tmp_path, "a.pdf")
    return tmp_path, tmp_path / "nope.csv"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (make_missing, "corpus folder not found"),
        (make_file, "corpus path is not a folder"),
        (make_empty, "no PDF files in"),
        (make_missing_metadata, "metadata file not found"),
    ],
)
def test_unusable_corpus_is_a_one_line_corpus_error(tmp_path: Path, make, message: str) -> None:  # noqa: ANN001
    folder, metadata = make(tmp_path)

    with pytest.raises(CorpusError) as caught:
        load_corpus(folder, metadata)

    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not isinstance(caught.value, MetadataFileError)
