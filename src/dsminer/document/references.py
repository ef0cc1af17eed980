"""The paper's reference list as entries, which entries a sentence cites, and the entries that go with a dataset."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from dsminer.document.pdf import PageText, ParsedPaper, _reference_spans
from dsminer.document.text import collapse_whitespace, find_urls, name_pattern, strip_url_end

__all__ = ["Reference", "cited_keys", "extract_references", "references_for"]

logger = logging.getLogger(__name__)

_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_PAGE_NUMBER = re.compile(r"[\s\d\-\u2013\u2014|]*|(?:page|p\.)\s*\d+(?:\s+of\s+\d+)?", re.I)
_BRACKET_MARKER = re.compile(r"\[(\d{1,4})\]\s*")
_DOTTED_MARKER = re.compile(r"(\d{1,4})\.(?:\s+|\Z)")
_YEAR = re.compile(r"(?<![\w/.:\-])(?:19|20)\d\d[a-z]?(?!\w|\.\d)")
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+")
_UPPER = "A-Z\u00c0-\u00d6\u00d8-\u00de"
_PARTICLE_WORDS = ("van", "von", "de", "der", "den", "del", "della", "di", "da", "du", "la", "le", "dos", "das")
_PARTICLES = rf"(?:(?:{'|'.join(_PARTICLE_WORDS)})\s+)*"
_SURNAME_FIRST = re.compile(
    rf"({_PARTICLES}[{_UPPER}][\w'\u2019\-]+)(?:,|\s+[A-Z]{{1,3}}\.?(?=[,;]|\s*\(|\s+(?:19|20)\d\d))"
)
_AUTHOR_LINE = re.compile(
    rf"{_PARTICLES}[{_UPPER}][\w'\u2019\-]+(?:,|\s+[A-Z]\.|\s+[A-Z]{{1,2}}\b|\s+and\s|\s+&)"
    rf"|[{_UPPER}][a-z]+\s+(?:[A-Z]\.\s*)*{_PARTICLES}[{_UPPER}][\w'\u2019\-]+(?:,|\.|\s+and\s|\s+&)"
    rf"|[A-Z]\.(?:\s?-?[A-Z]\.)*\s+{_PARTICLES}[{_UPPER}]"
)
_ENTRY_END = re.compile(r"(?:\.|(?:19|20)\d\d[a-z]?\)?[.,]?)\Z")
_CONTINUATION_WORD = re.compile(r"(?:In|Proceedings|Proc\.|pages|URL|DOI|doi|arXiv|Available)\b")
_UNFINISHED_END = re.compile(r"(?:[,;:/&\-]|\band|\bin)\Z")
_NAME = r"[^\W\d_][\w'\u2019\-]*"
_AUTHORS = rf"{_NAME}(?:\s*,\s*{_NAME})*(?:,?\s+(?:and|&)\s+{_NAME})?(?:\s+et\s+al\.?)?"
_TRAILING_AUTHORS = re.compile(rf"({_AUTHORS})(?:['\u2019]s?)?\s*\Z")
_NUMBER_RANGE = r"\d{1,4}(?:\s*[-\u2013\u2014]\s*\d{1,4})?"
_NUMERIC_CITATION = re.compile(rf"\[\s*({_NUMBER_RANGE}(?:\s*[,;]\s*{_NUMBER_RANGE})*)\s*\]")
_BRACKETED = re.compile(r"[(\[]([^()\[\]]*?(?:19|20)\d\d[^()\[\]]*)[)\]]")
_MIN_ENTRY_CHARS = 20
_YEAR_REACH = 400  # characters from an entry's start within which its year stands
_LIST_END_AFTER = 3  # after this many entries, a block that is no entry ends an author-year list
_MAX_RANGE = 200


@dataclass(frozen=True)
class Reference:
    """One entry of the paper's reference list.

    `key` is the number of a numbered list ("12") or the first author's surname and year ("Smith 2019a");
    `text` is the entry without its number marker, whitespace collapsed; `page` is 1-based.
    """

    key: str
    text: str
    page: int
    urls: tuple[str, ...]
    dois: tuple[str, ...]


Line = tuple[int, str, bool]  # (page number, text, whether it starts a text block)


def _header_form(block: str) -> str:
    """A block with digits masked and whitespace collapsed, to recognise running headers."""
    return re.sub(r"\d+", "#", collapse_whitespace(block)).casefold()


def _running_headers(pages: Sequence[PageText]) -> set[str]:
    """First or last blocks of a page that recur at the top or bottom of other pages, in `_header_form`."""
    counts: dict[str, int] = {}
    for page in pages:
        blocks = [block for block in _BLOCK_BREAK.split(page.text) if block.strip()]
        for form in {_header_form(block) for block in blocks[:1] + blocks[-1:] if len(block) <= 120}:
            counts[form] = counts.get(form, 0) + 1
    return {form for form, count in counts.items() if count >= 2}


def _list_segments(pages: Sequence[PageText]) -> list[tuple[int, str]]:
    """(page number, text) of each page's part of the reference list, without the heading line."""
    start, end = _reference_spans(pages)
    if start is None:
        return []
    segments: list[tuple[int, str]] = []
    for index in range(start[0], (end[0] if end else len(pages) - 1) + 1):
        text = pages[index].text
        if end and index == end[0]:
            text = text[: end[1]]
        if index == start[0]:
            text = text[start[1] :].lstrip().partition("\n")[2]
        segments.append((pages[index].number, text))
    return segments


def _reference_lines(pages: Sequence[PageText]) -> list[Line]:
    """The lines of the reference list, without its heading, page numbers and running headers."""
    headers = _running_headers(pages)
    lines: list[Line] = []
    for number, text in _list_segments(pages):
        for block in _BLOCK_BREAK.split(text):
            if _PAGE_NUMBER.fullmatch(block.strip()) or _header_form(block) in headers:
                continue
            rows = [row.strip() for row in block.splitlines() if row.strip()]
            lines.extend((number, row, n == 0) for n, row in enumerate(rows))
    return lines


def _number_markers(lines: Sequence[Line]) -> dict[int, re.Match[str]]:
    """Line index -> number marker, for "[n]" lists or "n." lists numbered 1, 2, 3...; {} if not numbered."""
    for pattern in (_BRACKET_MARKER, _DOTTED_MARKER):
        markers: dict[int, re.Match[str]] = {}
        for index, (_, text, _) in enumerate(lines):
            match = pattern.match(text)
            if match and (pattern is _BRACKET_MARKER or int(match.group(1)) == len(markers) + 1):
                markers[index] = match
        if len(markers) >= 2 or 0 in markers:
            return markers
    return {}


def _numbered_entries(lines: Sequence[Line], markers: dict[int, re.Match[str]]) -> list[tuple[str, int, list[str]]]:
    """(number, page, lines) of each entry; text before the first marker is dropped."""
    entries: list[tuple[str, int, list[str]]] = []
    for index, (page, text, _) in enumerate(lines):
        if index in markers:
            entries.append((markers[index].group(1), page, [text[markers[index].end() :]]))
        elif entries:
            entries[-1][2].append(text)
    return entries


def _continues(previous: str, text: str) -> bool:
    """Whether a block starting with `text` continues the entry whose last line is `previous`."""
    return not text[:1].isupper() or bool(_CONTINUATION_WORD.match(text) or _UNFINISHED_END.search(previous))


def _split_entry(lines: list[Line]) -> list[list[Line]]:
    """Split one block at lines that start a new author entry, when both sides carry a year."""
    cuts = [i for i in range(1, len(lines)) if _ENTRY_END.search(lines[i - 1][1]) and _AUTHOR_LINE.match(lines[i][1])]
    parts: list[list[Line]] = []
    start = 0
    for n, cut in enumerate(cuts):
        after = lines[cut : cuts[n + 1] if n + 1 < len(cuts) else len(lines)]
        if any(_YEAR.search(t) for _, t, _ in lines[start:cut]) and any(_YEAR.search(t) for _, t, _ in after):
            parts.append(lines[start:cut])
            start = cut
    return [*parts, lines[start:]]


def _author_year_entries(lines: Sequence[Line]) -> list[tuple[str, int, list[str]]]:
    """(key, page, lines) of each entry: one per block, blocks that continue an entry merged into it."""
    blocks: list[list[Line]] = []
    for line in lines:
        if line[2] and not (blocks and _continues(blocks[-1][-1][1], line[1])):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    entries: list[tuple[str, int, list[str]]] = []
    for block in blocks:
        for part in _split_entry(block):
            texts = [text for _, text, _ in part]
            text = collapse_whitespace(" ".join(texts))
            if len(text) < _MIN_ENTRY_CHARS:
                continue
            if not _is_entry(text):
                if len(entries) >= _LIST_END_AFTER:  # the list has ended: an appendix whose heading was not found
                    return entries
                continue
            entries.append((_author_key(text), part[0][0], texts))
    return entries


def _is_entry(text: str) -> bool:
    """Whether a block reads as an author-year entry: a first author's surname, and a year (or "n.d.") near the
    start."""
    start = text[:_YEAR_REACH]
    return _first_surname(text) is not None and (_YEAR.search(start) is not None or "n.d." in start)


def _first_surname(text: str) -> str | None:
    """The first author's surname: "Smith, J.", "Smith J,", "J. Smith.", "John A. Smith and ...", "Ann van Berg"."""
    match = _SURNAME_FIRST.match(text)
    if match:
        return match.group(1)
    words: list[str] = []
    for token in text.split()[:6]:
        word = token.rstrip(",.;:")
        if token.startswith("(") or word in ("and", "&", "et") or _YEAR.fullmatch(word):
            break
        words.append(word)
        initial = re.fullmatch(r"(?:[A-Z]\.-?)+|[A-Z]", token.rstrip(","))
        if token.endswith((",", ";", ":")) or (token.endswith(".") and not initial):
            break
    surname: list[str] = []
    for word in reversed(words):
        if not surname and not (word[:1].isupper() and len(word) > 1):
            return None
        if surname and word.lower() not in _PARTICLE_WORDS:
            break
        surname.insert(0, word)
    return " ".join(surname) or None


def _author_key(text: str) -> str:
    """The key of an author-year entry: "Surname year", or whichever of the two could be found."""
    year = _YEAR.search(text)
    surname = _first_surname(text) or text.split(maxsplit=1)[0].strip(",.;:")
    return f"{surname} {year.group(0)}" if year else surname


def _reference(key: str, page: int, lines: Sequence[str]) -> Reference | None:
    """A Reference from an entry's lines, with its URLs (repaired across lines) and DOIs."""
    raw = "\n".join(line for line in lines if line)
    text = collapse_whitespace(raw)
    if not text:
        return None
    urls = tuple(find_urls(raw))
    dois: list[str] = []
    for candidate in (*urls, text):
        for match in _DOI.finditer(candidate):
            doi = strip_url_end(match.group(0))
            if not any(found.startswith(doi) for found in dois):
                dois.append(doi)
    return Reference(key=key, text=text, page=page, urls=urls, dois=tuple(dois))


def extract_references(paper: ParsedPaper) -> list[Reference]:
    """The entries of the reference list (between its heading and an appendix after it), in order."""
    lines = _reference_lines(paper.pages)
    markers = _number_markers(lines)
    entries = _numbered_entries(lines, markers) if markers else _author_year_entries(lines)
    references = [ref for ref in (_reference(*entry) for entry in entries) if ref is not None]
    logger.debug("%s: %d references (%s)", paper.file_name, len(references), "numbered" if markers else "author-year")
    return references


def _fold(word: str) -> str:
    """`word` without accents, case-folded, for comparing surnames."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch)).casefold()


def _author_year_index(references: Sequence[Reference]) -> dict[tuple[str, str], str]:
    """(folded last word of the surname, year with suffix) -> key, for author-year entries."""
    index: dict[tuple[str, str], str] = {}
    for ref in references:
        surname, _, year = ref.key.rpartition(" ")
        if surname and re.fullmatch(r"(?:19|20)\d\d[a-z]?", year):
            index.setdefault((_fold(surname.split()[-1]), year), ref.key)
    return index


def _expand_numbers(marker: str) -> list[str]:
    """The numbers of a numeric marker's content: "3, 5-7" -> ["3", "5", "6", "7"]."""
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", marker.strip()):
        low, _, high = re.sub(r"\s*[\u2013\u2014]\s*|\s*-\s*", "-", part).partition("-")
        first, last = int(low), int(high or low)
        numbers.extend(range(first, last + 1) if first <= last <= first + _MAX_RANGE else (first, last))
    return [str(number) for number in dict.fromkeys(numbers)]


def _author_year_citations(sentence: str, match: re.Match[str], index: dict[tuple[str, str], str]) -> list[str]:
    """Keys cited by a bracketed author-year marker; names may precede it ("Smith et al. (2019)")."""
    before = _TRAILING_AUTHORS.search(sentence[max(0, match.start() - 120) : match.start()])
    names = re.findall(_NAME, before.group(1)) if before else []
    content, start, keys = match.group(1), 0, []
    for year in _YEAR.finditer(content):
        names = re.findall(_NAME, content[start : year.start()]) or names
        start = year.end()
        key = next((index[k] for k in ((_fold(name), year.group(0)) for name in names) if k in index), None)
        if key:
            keys.append(key)
    return keys


def cited_keys(sentence: str, references: Sequence[Reference]) -> list[str]:
    """Keys of the entries `sentence` cites, unique in order of appearance.

    Numeric markers ("[3]", "[3, 5]", "[3-5]") and author-year markers ("(Smith et al., 2019)",
    "Smith et al. (2019)", "(Smith and Jones, 2019; Lee, 2020a)") count only when they name an existing entry.
    """
    keys = {ref.key for ref in references}
    index = _author_year_index(references)
    found: list[tuple[int, str]] = []
    for match in _NUMERIC_CITATION.finditer(sentence):
        found.extend((match.start(), number) for number in _expand_numbers(match.group(1)) if number in keys)
    if index:
        for match in _BRACKETED.finditer(sentence):
            found.extend((match.start(), key) for key in _author_year_citations(sentence, match, index))
    return list(dict.fromkeys(key for _, key in sorted(found, key=lambda item: item[0])))


def references_for(paper: ParsedPaper, names: Sequence[str], references: Sequence[Reference]) -> list[Reference]:
    """The entries cited by body sentences naming any of `names`, in order, then the entries that name one
    themselves; unique."""
    patterns = [p for p in (name_pattern(n.strip()) for n in names if n.strip()) if p is not None]
    if not patterns or not references:
        return []
    by_key: dict[str, list[Reference]] = {}
    for ref in references:
        by_key.setdefault(ref.key, []).append(ref)
    chosen: list[Reference] = []
    for sentence in paper.body_sentences():
        if any(pattern.search(sentence) for pattern in patterns):
            chosen.extend(ref for key in cited_keys(sentence, references) for ref in by_key[key])
    chosen.extend(ref for ref in references if any(pattern.search(ref.text) for pattern in patterns))
    return list(dict.fromkeys(chosen))
