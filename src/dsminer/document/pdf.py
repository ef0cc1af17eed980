"""Read a paper PDF into page texts, links and sentences, and find where datasets are named."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pymupdf

from dsminer.document.tables import TableText, read_page_tables
from dsminer.document.text import (
    collapse_whitespace,
    dehyphenate,
    find_urls,
    name_pattern,
    split_sentences,
    strip_url_end,
)
from dsminer.errors import PdfReadError

__all__ = [
    "PageText",
    "PaperLink",
    "ParsedPaper",
    "Sentence",
    "find_mention",
    "find_urls",
    "first_pages_text",
    "parse_pdf",
    "split_sentences",
]

logger = logging.getLogger(__name__)

_TEXT_FLAGS = pymupdf.TEXTFLAGS_BLOCKS & ~pymupdf.TEXT_PRESERVE_LIGATURES
_MIN_CHARS_PER_PAGE = 20
_ANCHOR_PUNCTUATION = " .,;:()[]\"'"
_LINE_NUMBER = re.compile(r"[0-9]{1,4}")
_MIN_LINE_NUMBERS = 8
_URI_SCHEMES = ("http://", "https://", "ftp://", "www.")
_BLOCK_START = r"(?:\A|\n[ \t]*\n)[ \t]*"
_REFERENCES_HEADING = re.compile(
    _BLOCK_START + r"(?:[0-9]+\.?|[IVX]+\.)?[ \t]*"
    r"(?:References|REFERENCES|Bibliography|BIBLIOGRAPHY|Literature Cited|Works Cited)[ \t]*(?:\n|\Z)"
)
_APPENDIX_HEADING = re.compile(
    _BLOCK_START + r"(?:[A-Z0-9]\.?[ \t]+)?"
    r"(?:Appendix|APPENDIX|Appendices|APPENDICES|Supplementary Material|SUPPLEMENTARY MATERIAL)\b[^\n]{0,60}(?:\n|\Z)"
)


@dataclass(frozen=True)
class PageText:
    """The text of one page; `number` is 1-based."""

    number: int
    text: str


@dataclass(frozen=True)
class PaperLink:
    """A URL in the paper: written in the text, or a link annotation with the words under it."""

    url: str
    page: int
    anchor: str | None
    source: Literal["text", "annotation"]


@dataclass(frozen=True)
class Sentence:
    """A sentence as it appears in the paper (whitespace collapsed), with its 1-based page."""

    page: int
    text: str


@dataclass
class ParsedPaper:
    """A paper's text by page and the links found in it."""

    path: Path
    pages: list[PageText]
    links: list[PaperLink]
    tables: list[TableText] = field(default_factory=list)
    _sentences: list[tuple[Sentence, bool]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def file_name(self) -> str:
        """The PDF's file name, the key of its records."""
        return self.path.name

    @property
    def text(self) -> str:
        """All pages joined by a newline."""
        return "\n".join(page.text for page in self.pages)

    def urls(self) -> list[str]:
        """Every URL of the paper, text and annotations, unique in order."""
        return list(dict.fromkeys(link.url for link in self.links))

    def body_sentences(self) -> list[str]:
        """The text of every sentence outside the reference list, in document order."""
        return [sentence.text for sentence, in_refs in self.indexed_sentences() if not in_refs]

    def indexed_sentences(self) -> list[tuple[Sentence, bool]]:
        """Every sentence in document order, paired with whether it lies in the reference list."""
        if self._sentences is None:
            self._sentences = _index_sentences(self.pages)
        return self._sentences


def _open(path: Path) -> pymupdf.Document:
    """Open `path` as a PDF or raise PdfReadError with the reason."""
    if not path.is_file():
        raise PdfReadError(path, "file not found")
    with path.open("rb") as handle:
        if b"%PDF-" not in handle.read(1024):
            raise PdfReadError(path, "not a PDF file")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except (RuntimeError, ValueError) as exc:
        raise PdfReadError(path, f"corrupt PDF: {collapse_whitespace(str(exc))}") from exc
    if doc.needs_pass:
        doc.close()
        raise PdfReadError(path, "encrypted PDF (needs a password)")
    if doc.page_count == 0:
        doc.close()
        raise PdfReadError(path, "PDF has no pages")
    return doc


def line_number_words(words: Sequence[tuple], page_height: float) -> set[int]:
    """The indexes of the words that number a page's lines (a review or preprint copy): a column of at least
    `_MIN_LINE_NUMBERS` bare integers aligned on one edge over much of the page's height, always growing down the
    page, mostly one by one. A figure's axis ticks and a table's row numbers are aligned too, but they do not
    count the page's lines."""
    columns: dict[tuple[str, int], list[int]] = {}
    for index, word in enumerate(words):
        if _LINE_NUMBER.fullmatch(word[4]):
            columns.setdefault(("right", round(word[2] / 3)), []).append(index)
            columns.setdefault(("left", round(word[0] / 3)), []).append(index)
    found: set[int] = set()
    for members in columns.values():
        if len(members) < _MIN_LINE_NUMBERS:
            continue
        ordered = sorted(members, key=lambda i: words[i][1])
        if words[ordered[-1]][3] - words[ordered[0]][1] < 0.4 * page_height:
            continue
        values = [int(words[i][4]) for i in ordered]
        steps = [b - a for a, b in zip(values, values[1:])]
        if min(steps) >= 1 and sum(step <= 2 for step in steps) >= 0.8 * len(steps):
            found.update(ordered)
    return found


def _page_text(page: pymupdf.Page) -> str:
    """The page's text blocks, separated by blank lines; a column of line numbers is left out."""
    words = page.get_text("words", flags=_TEXT_FLAGS)
    numbers = line_number_words(words, page.rect.height)
    if not numbers:
        blocks = page.get_text("blocks", flags=_TEXT_FLAGS)
        return "\n\n".join(block[4].strip() for block in blocks if block[6] == 0)
    lines: dict[int, dict[int, list[str]]] = {}
    for index, word in enumerate(words):
        if index not in numbers:
            lines.setdefault(word[5], {}).setdefault(word[6], []).append(word[4])
    return "\n\n".join("\n".join(" ".join(line) for _, line in sorted(block.items()))
                       for _, block in sorted(lines.items()))


def _anchor_text(words: list[tuple], rect: pymupdf.Rect) -> str:
    """The words whose centres lie inside `rect`, in reading order."""
    area = pymupdf.Rect(rect) + (-1, -1, 1, 1)
    inside = [w[4] for w in words if pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2) in area]
    return " ".join(inside)[:200].strip(_ANCHOR_PUNCTUATION)


def _annotation_links(page: pymupdf.Page, number: int) -> list[PaperLink]:
    """Link annotations to web URLs, merged per URL, with the words under them as anchor."""
    uris = [link for link in page.get_links() if link.get("kind") == pymupdf.LINK_URI]
    uris = [link for link in uris if str(link.get("uri", "")).lower().startswith(_URI_SCHEMES)]
    if not uris:
        return []
    words = page.get_text("words", flags=_TEXT_FLAGS)
    anchors: dict[str, list[str]] = {}
    for link in uris:
        anchor, uri = _anchor_text(words, link["from"]), strip_url_end(link["uri"].strip())
        anchors.setdefault(uri, [])
        if anchor:
            anchors[uri].append(anchor)
    return [PaperLink(uri, number, " ".join(parts) or None, "annotation") for uri, parts in anchors.items()]


def _read_pages(path: Path, doc: pymupdf.Document) -> tuple[list[PageText], list[PaperLink], list[TableText]]:
    """Text, links and tables of every page; a page-level failure is a corrupt PDF."""
    try:
        raw = [_page_text(page) for page in doc]
        annotations = [_annotation_links(page, page.number + 1) for page in doc]
        tables = [table for page in doc for table in read_page_tables(page)]
    except (RuntimeError, ValueError) as exc:
        raise PdfReadError(path, f"corrupt PDF: {collapse_whitespace(str(exc))}") from exc
    document = "\n".join(raw)
    pages = [PageText(number, dehyphenate(text, document)) for number, text in enumerate(raw, start=1)]
    links: list[PaperLink] = []
    for page, page_annotations in zip(pages, annotations):
        links.extend(PaperLink(url, page.number, None, "text") for url in find_urls(page.text))
        links.extend(page_annotations)
    return pages, links, tables


def parse_pdf(path: Path) -> ParsedPaper:
    """Read a PDF into text by page and links; raise PdfReadError if it has no usable text."""
    path = Path(path)
    doc = _open(path)
    with doc:
        pages, links, tables = _read_pages(path, doc)
    chars = sum(len("".join(page.text.split())) for page in pages)
    if chars < _MIN_CHARS_PER_PAGE * len(pages):
        raise PdfReadError(path, f"no text layer ({chars} characters on {len(pages)} pages; scanned?)")
    logger.debug("parsed %s: %d pages, %d links, %d tables", path.name, len(pages), len(links), len(tables))
    return ParsedPaper(path=path, pages=pages, links=links, tables=tables)


def _reference_spans(pages: Sequence[PageText]) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(page index, offset) where the reference list starts and where an appendix after it starts."""
    start = None
    for index, page in enumerate(pages):
        for match in _REFERENCES_HEADING.finditer(page.text):
            start = (index, match.start())
    if start is None:
        return None, None
    for index in range(start[0], len(pages)):
        offset = start[1] if index == start[0] else 0
        match = _APPENDIX_HEADING.search(pages[index].text, offset)
        if match:
            return start, (index, match.start())
    return start, None


def _index_sentences(pages: Sequence[PageText]) -> list[tuple[Sentence, bool]]:
    """Sentences of all pages, each flagged True when it lies in the reference list."""
    start, end = _reference_spans(pages)
    cuts = [point for point in (start, end) if point is not None]
    indexed: list[tuple[Sentence, bool]] = []
    for index, page in enumerate(pages):
        offsets = sorted({0, len(page.text), *(offset for i, offset in cuts if i == index)})
        for lo, hi in zip(offsets, offsets[1:]):
            in_refs = start is not None and start <= (index, lo) and (end is None or (index, lo) < end)
            indexed.extend((Sentence(page.number, s), in_refs) for s in split_sentences(page.text[lo:hi]))
    return indexed


def find_mention(paper: ParsedPaper, names: Sequence[str]) -> Sentence | None:
    """The first sentence naming any of `names`, outside the reference list if possible."""
    patterns = [p for p in (name_pattern(n.strip()) for n in names if n.strip()) if p is not None]
    loose = [p for p in (name_pattern(n.strip(), True) for n in names if n.strip()) if p is not None]
    indexed = paper.indexed_sentences()
    for candidates in (patterns, loose):
        for want_refs in (False, True):
            for sentence, in_refs in indexed:
                if in_refs == want_refs and any(p.search(sentence.text) for p in candidates):
                    return sentence
    return None


def first_pages_text(paper: ParsedPaper, max_chars: int = 3000) -> str:
    """The start of the paper (title, authors, affiliations, abstract), one text block a line."""
    lines: list[str] = []
    size = 0
    for page in paper.pages:
        for block in re.split(r"\n[ \t]*\n", page.text):
            line = collapse_whitespace(block)
            if line:
                lines.append(line)
                size += len(line) + 1
            if size >= max_chars:
                return "\n".join(lines)[:max_chars].rsplit(" ", 1)[0]
    return "\n".join(lines)[:max_chars]
