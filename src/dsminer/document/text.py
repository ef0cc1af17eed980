"""Pure functions over extracted PDF text: line-end repair, URL finding, sentences, name patterns."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_URL = re.compile(r"(?:(?:https?|ftp)://|(?<![A-Za-z_@/.-])www\.)[^\s<>\"{}|\\^`\u201c\u201d\u2018\u2019]+", re.I)
# A web address written without a scheme ("timetree.org", "data.example.ac.uk/x"): lower-case labels and a common
# top-level domain, not one that is also a file extension (".md", ".py") or an English word (".in", ".is", ".no").
_BARE_TLDS = "org|com|net|edu|gov|io|info|app|dev|fun|eu|uk|de|fr|es|nl|ch|jp|cn|ca|au|se|dk|fi|br|kr|ru"
_BARE_DOMAIN = re.compile(rf"(?<![\w@/.\-])[a-z][a-z0-9\-]*\.(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)*(?:{_BARE_TLDS})"
                          r"(?:/[^\s<>\"{}|\\^`\u201c\u201d\u2018\u2019]*)?(?![\w\-])")
_URL_CONTINUATION = re.compile(r"[ \t]*\n[ \t]*([A-Za-z0-9][\w\-./~%?=&#+:@!$*,;]*)")
_URL_START_PIECE = re.compile(r"[0-9]*(?:https?://|ftp://|www\.)", re.I)
_URL_JOINERS = frozenset("/-_.~=?&#%:")
_URL_TRAILING = ".,;:!?'\"]}>*\u2020\u2021\u201d\u2019"
_HYPHEN_BREAK = re.compile(r"(\S+)-[ \t]*\n[ \t]*(\S+)")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_BOUNDARY = re.compile(r"[.!?][\"')\]\u2019\u201d]*\s+")
_TERMINAL = (".", "!", "?", ":")
_ABBREVIATIONS = frozenset(
    "al e.g i.e cf fig figs sec secs sect eq eqs tab tabs vs resp approx no nos dr mr ms prof vol pp ch "
    "ref refs viz inc ltd jr st et app def thm lem alg esp incl dept univ ed eds proc conf trans int comput".split()
)
_INITIALS = re.compile(r"^(?:[A-Za-z]\.)*[A-Za-z]$")
_NAME_SEPARATOR = r"[\s\-\u2010\u2011\u2013_/]*"
_WORD_CHAR = "A-Za-z0-9"
_HYPHENS = "\\-\u2010\u2011"  # a hyphen joins words into one name ("PTB-XL", "PTB\u2010XL"): no name ends inside it


# A table caption's opening ("Table 3:", "TABLE IV.", "Tab. 2:"), matched at the start of a line.
TABLE_CAPTION = re.compile(r"^[ \t]*(?:Table|TABLE|Tab\.)[ \t]*[0-9IVX]+[:.]", re.M)
_NUMBER_TOKEN = re.compile(r"^(?:[-+(]?\d[\d.,%\u00b1hms]*[)%]?|-|\u2013)$")


def is_table_row_text(sentence: str) -> bool:
    """Whether a "sentence" is table text run together: many words, a third or more of them numbers."""
    words = sentence.split()
    return len(words) >= 5 and sum(bool(_NUMBER_TOKEN.match(w)) for w in words) >= len(words) / 3


def within_budget(lines: Iterable[str], max_chars: int, keep_first: bool = False, skip: bool = False) -> list[str]:
    """The lines, in order, that fit in `max_chars` joined by newlines: up to the first that does not fit, or with
    `skip` every later line that still fits. With `keep_first` the first line is kept even when it alone does not."""
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) > max_chars and not (keep_first and not kept):
            if skip:
                continue
            break
        kept.append(line)
        size += len(line) + 1
    return kept


def collapse_whitespace(text: str | None) -> str:
    """Runs of whitespace, line breaks included, become one space; None becomes ''."""
    return " ".join((text or "").split())


def dehyphenate(text: str, reference: str | None = None) -> str:
    """Join words broken at a line end ("exam-\\nple" -> "example") where that is safe.

    The hyphen is kept when the break sits in a URL, a compound ("state-of-the-\\nart"), a name with
    capitals or digits ("Coral-\\nScan", "ABC-\\n10"), or when the hyphenated form occurs elsewhere in
    `reference` (the whole document; `text` itself by default).
    """
    lowered = (text if reference is None else reference).lower()

    def repair(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        if "/" in left or left.lower().startswith("www.") or "@" in left:
            return match.group(0)
        head, tail = re.search(r"[A-Za-z]*$", left).group(0), re.match(r"[A-Za-z]*", right).group(0)
        keep = (
            not head
            or not tail
            or "-" in left
            or "-" in right
            or right[0].isupper()
            or any(ch.isupper() or ch.isdigit() for ch in left[1:])
            or f"{head}-{tail}".lower() in lowered
        )
        return f"{left}-{right}" if keep else f"{left}{right}"

    return _HYPHEN_BREAK.sub(repair, text)


def strip_url_end(url: str) -> str:
    """Drop trailing punctuation and an unbalanced closing bracket."""
    while url:
        if url[-1] in _URL_TRAILING:
            url = url[:-1]
        elif url[-1] == ")" and url.count("(") < url.count(")"):
            url = url[:-1]
        else:
            break
    return url


def _extend_across_lines(text: str, url: str, end: int) -> tuple[str, int]:
    """Follow a URL over line breaks while it ends in a joiner and the next line continues it: the URL and where
    it ends in the text."""
    while url and url[-1] in _URL_JOINERS:
        nxt = _URL_CONTINUATION.match(text, end)
        if nxt is None:
            break
        piece = nxt.group(1)
        if _URL_START_PIECE.match(piece):
            break
        if url[-1] in ".:" and not (url[-2:-1].isalnum() and (piece[0].islower() or piece[0].isdigit())):
            break
        url, end = url + piece, nxt.end()
    return url, end


def find_urls(text: str) -> list[str]:
    """Every http(s), ftp and www. URL in `text`, and every address written without one ("timetree.org"), unique
    in order, repaired across line breaks."""
    matches: list[tuple[int, str]] = []
    rest = list(text)  # the text with the addresses found so far blanked, for those written without a scheme
    for pattern in (_URL, _BARE_DOMAIN):
        for match in pattern.finditer("".join(rest)):
            url, end = _extend_across_lines(text, match.group(0), match.end())
            matches.append((match.start(), strip_url_end(url)))
            rest[match.start():end] = " " * (end - match.start())
    found: list[str] = []
    for _, url in sorted(matches):
        host = re.sub(r"^[a-z]+://", "", url, flags=re.I).split("/")[0]
        if "." in host.strip(".") and url not in found:
            found.append(url)
    return found


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks; a long unfinished block is merged with a lower-case continuation."""
    merged: list[str] = []
    for block in _PARAGRAPH_BREAK.split(text):
        block = collapse_whitespace(block)
        if not block:
            continue
        if merged and block[0].islower() and not merged[-1].endswith(_TERMINAL) and len(merged[-1].split()) >= 8:
            merged[-1] = f"{merged[-1]} {block}"
        else:
            merged.append(block)
    return merged


def _is_boundary(paragraph: str, match: re.Match[str]) -> bool:
    """Whether the punctuation at `match` ends a sentence."""
    following = paragraph[match.end() : match.end() + 1]
    if not following or following.islower() or re.match(r"[A-Z]\.(?:\s|$)", paragraph[match.end() :]):
        return False
    if paragraph[match.start()] != ".":
        return True
    before = paragraph[: match.start()].split()
    word = before[-1].lstrip("([\"'") if before else ""
    return not (word.lower() in _ABBREVIATIONS or _INITIALS.match(word))


def split_sentences(text: str) -> list[str]:
    """Sentences of `text` with whitespace collapsed; blank lines and headings end a sentence."""
    sentences: list[str] = []
    for paragraph in _paragraphs(text):
        start = 0
        for match in _BOUNDARY.finditer(paragraph):
            if _is_boundary(paragraph, match):
                sentences.append(paragraph[start : match.end()].strip())
                start = match.end()
        if paragraph[start:].strip():
            sentences.append(paragraph[start:].strip())
    return sentences


@lru_cache(maxsize=2048)
def inline_pattern(pattern: re.Pattern[str]) -> str:
    """A compiled pattern as a group that keeps its own case rule, to join with others."""
    return f"(?i:{pattern.pattern})" if pattern.flags & re.I else f"(?:{pattern.pattern})"


def name_pattern(name: str, footnote_digit: bool = False) -> re.Pattern[str] | None:
    """A case-insensitive pattern for `name`, tolerant to hyphen, space and line-break differences.

    Word boundaries hold on both sides ("SST" does not match in "SSTB" or "SST-2"). With `footnote_digit`, one
    footnote digit glued to the end of the name is allowed ("LexiQA2" matches "LexiQA"). A short acronym (at
    most four characters, capitals and digits only: "IT", "ALL", "MS") matches only as written, since
    without case it is an ordinary word ("it", "all", "ms").
    """
    parts = re.findall(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9\-\u2010\u2011\u2013_/]", name)
    if not parts:
        return None
    pieces = [r"['\u2019\u2018]" if part in "'\u2019\u2018" else re.escape(part) for part in parts]
    body = _NAME_SEPARATOR.join(pieces)
    start = f"(?<![{_WORD_CHAR}])(?<![{_WORD_CHAR}][{_HYPHENS}])" if parts[0][0].isalnum() else ""
    end = f"(?![{_WORD_CHAR}]|[{_HYPHENS}][{_WORD_CHAR}])" if parts[-1][-1].isalnum() else ""
    if footnote_digit and name[-1].isalpha():
        end = f"[1-9]?{end}"
    short_acronym = len(name) <= 4 and name.isupper() and name.isalnum()
    return re.compile(f"{start}{body}{end}", 0 if short_acronym else re.I)
