"""A local corpus: a folder of PDFs, with paper metadata from a CSV/JSONL file and per-PDF sidecars."""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsminer.errors import CorpusError, MetadataFileError
from dsminer.jsonl import iter_json_objects
from dsminer.schema import PaperRefs

logger = logging.getLogger(__name__)

FOLDER_METADATA_NAMES = ("metadata.jsonl", "metadata.csv")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
LIST_FIELDS = ("authors", "institutions")
TEXT_FIELDS = ("title", "venue", "url", "abstract")
TRUE_WORDS = frozenset({"true", "1", "yes"})
FALSE_WORDS = frozenset({"false", "0", "no"})


@dataclass(frozen=True)
class CorpusPaper:
    """One PDF of a corpus; `refs` is None when no metadata was supplied for it."""

    path: Path
    refs: PaperRefs | None
    abstract: str | None = None


@dataclass(frozen=True)
class PaperMetadata:
    """One metadata entry after validation: the paper fields and the abstract kept apart."""

    refs: PaperRefs
    abstract: str | None

    def is_empty(self) -> bool:
        """True when the entry names a file and says nothing else about it."""
        return self.abstract is None and self.refs == PaperRefs()


def load_corpus(pdf_dir: Path, metadata_file: Path | None = None) -> list[CorpusPaper]:
    """The folder's PDFs in name order, each with the metadata supplied for it (if any)."""
    pdfs = list_pdfs(pdf_dir)
    source = metadata_file if metadata_file is not None else find_folder_metadata(pdf_dir)
    table = read_metadata_file(source) if source is not None else {}
    for unknown in sorted(set(table) - {pdf.name for pdf in pdfs}):
        logger.warning("%s names %s, which is not a PDF in %s; ignored", source, unknown, pdf_dir)
    papers = []
    for pdf in pdfs:
        entry = merge_metadata(table.get(pdf.name), read_sidecar(pdf.with_suffix(".json")))
        if entry is None or entry.is_empty():
            papers.append(CorpusPaper(path=pdf, refs=None))
        else:
            papers.append(CorpusPaper(path=pdf, refs=entry.refs, abstract=entry.abstract))
    supplied = sum(paper.refs is not None for paper in papers)
    logger.info("corpus %s: %d PDFs, %d with supplied metadata", pdf_dir, len(papers), supplied)
    return papers


def list_pdfs(pdf_dir: Path) -> list[Path]:
    """The *.pdf files (any case) directly inside the folder, sorted by name."""
    if not pdf_dir.exists():
        raise CorpusError(f"corpus folder not found: {pdf_dir}")
    if not pdf_dir.is_dir():
        raise CorpusError(f"corpus path is not a folder: {pdf_dir}")
    pdfs = sorted(p for p in pdf_dir.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    if not pdfs:
        raise CorpusError(f"no PDF files in {pdf_dir}")
    return pdfs


def find_folder_metadata(pdf_dir: Path) -> Path | None:
    """The folder's own metadata.jsonl or metadata.csv (JSONL first), if there is one."""
    found = [pdf_dir / name for name in FOLDER_METADATA_NAMES if (pdf_dir / name).is_file()]
    if len(found) > 1:
        logger.warning("%s has both %s; using %s", pdf_dir, " and ".join(FOLDER_METADATA_NAMES), found[0].name)
    return found[0] if found else None


def read_metadata_file(path: Path) -> dict[str, PaperMetadata]:
    """Metadata keyed by PDF file name, from a CSV (with a header) or a JSONL file."""
    if not path.is_file():
        raise CorpusError(f"metadata file not found: {path}")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = iter_csv_rows(path)
    elif suffix in JSONL_SUFFIXES:
        rows = iter_jsonl_rows(path)
    else:
        raise MetadataFileError(path, 0, f"unknown metadata file extension {suffix!r} (use .csv or .jsonl)")
    table: dict[str, PaperMetadata] = {}
    first_row: dict[str, int] = {}
    try:
        for row_number, raw in rows:
            name = file_name_of(path, row_number, raw)
            if name in first_row:
                reason = f"duplicate entry for {name} (first at row {first_row[name]})"
                raise MetadataFileError(path, row_number, reason)
            first_row[name] = row_number
            table[name] = parse_metadata(path, row_number, raw)
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path.name}: not UTF-8 text ({exc.reason})") from exc
    return table


def iter_csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) for each data row; the header is row 1."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or "file" not in [name.strip() for name in reader.fieldnames]:
            raise MetadataFileError(path, 1, "the header has no 'file' column")
        for row in reader:
            if None in row:
                raise MetadataFileError(path, reader.line_num, "more values than header columns")
            cleaned = {key.strip(): value for key, value in row.items() if key}
            if any(value and value.strip() for value in cleaned.values()):
                yield reader.line_num, cleaned


def iter_jsonl_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line."""
    return iter_json_objects(path, MetadataFileError)


def file_name_of(path: Path, row: int, raw: dict[str, Any]) -> str:
    """The PDF file name a row is about (a bare name; any folder part is dropped)."""
    value = raw.get("file")
    if not isinstance(value, str) or not value.strip():
        raise MetadataFileError(path, row, "missing 'file' (the PDF file name)")
    return Path(value.strip()).name


def parse_metadata(path: Path, row: int, raw: dict[str, Any]) -> PaperMetadata:
    """Validate one row's fields into PaperRefs and an abstract; unknown fields are ignored."""
    fields: dict[str, Any] = {}
    for key in TEXT_FIELDS:
        fields[key] = parse_text(path, row, key, raw.get(key))
    for key in LIST_FIELDS:
        fields[key] = parse_names(path, row, key, raw.get(key))
    fields["year"] = parse_year(path, row, raw.get("year"))
    fields["is_fellow"] = parse_flag(path, row, raw.get("is_fellow"))
    abstract = fields.pop("abstract")
    return PaperMetadata(refs=PaperRefs(**fields), abstract=abstract)


def parse_text(path: Path, row: int, key: str, value: Any) -> str | None:
    """A stripped string, or None when empty or absent."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise MetadataFileError(path, row, f"{key} must be text, got {value!r}")
    return value.strip() or None


def parse_names(path: Path, row: int, key: str, value: Any) -> list[str]:
    """A list of names, from a JSON list or a ';'-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(";")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise MetadataFileError(path, row, f"{key} must be a list of names or a ';'-separated string")
    return [item.strip() for item in value if item.strip()]


def parse_year(path: Path, row: int, value: Any) -> int | None:
    """An integer year, from a number or a string of digits."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise MetadataFileError(path, row, f"year must be an integer, got {value!r}")


def parse_flag(path: Path, row: int, value: Any) -> bool | None:
    """is_fellow as a bool: true/false/1/0/yes/no (any case), or None when empty."""
    if value is None or isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if word == "":
        return None
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    raise MetadataFileError(path, row, f"is_fellow must be true/false/1/0/yes/no or empty, got {value!r}")


def read_sidecar(path: Path) -> PaperMetadata | None:
    """The downloader's `<stem>.json` next to a PDF, if present (a bad one is row 1 of its file)."""
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MetadataFileError(path, 1, f"not valid JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path.name}: not UTF-8 text ({exc.reason})") from exc
    if not isinstance(value, dict):
        raise MetadataFileError(path, 1, "not a JSON object")
    return parse_metadata(path, 1, value)


def merge_metadata(table_entry: PaperMetadata | None, sidecar: PaperMetadata | None) -> PaperMetadata | None:
    """Field by field, the sidecar's non-empty values win over the metadata file's."""
    if table_entry is None or sidecar is None:
        return sidecar or table_entry
    base = table_entry.refs.model_dump()
    override = {key: value for key, value in sidecar.refs.model_dump().items() if value not in (None, [])}
    abstract = sidecar.abstract if sidecar.abstract is not None else table_entry.abstract
    return PaperMetadata(refs=PaperRefs(**{**base, **override}), abstract=abstract)
