"""Section headings of a paper and which sections are where its datasets are described."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A heading block: an optional section number, then a short title without a final full stop.
_HEADING = re.compile(
    r"^(?:(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,4}|[A-H])\.?\s+)?"
    r"([A-Z][A-Za-z\-]*(?:[ ,&/:\-]+[A-Za-z][A-Za-z\-]*){0,6})$"
)
# A numbered heading that the PDF ran into the paragraph after it ("4.1 Datasets We use ...").
_NUMBERED_START = re.compile(r"^\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+([A-Z][a-z]+(?:\s+(?:and|&|of|[A-Z][a-z]+)){0,3})\s+[A-Z]")
_DATA_SECTION = re.compile(
    r"\b(?:experiment\w*|data\w*|corp(?:us|ora)|evaluat\w*|set-?up|settings?|benchmark\w*|appendix|"
    r"results?|training|implementation|materials?|tasks?)\b",
    re.I,
)
_KNOWN_SECTION = re.compile(
    r"\b(?:abstract|introduction|background|related|method\w*|models?|approach|analysis|discussion|conclusions?|"
    r"references|acknowledg\w*|limitations?)\b",
    re.I,
)
# Sections that frame the work rather than report it: a dataset named only there is discussed, not used.
_ASIDE_SECTION = re.compile(
    r"\b(?:introduction|background|related|discussion|conclusions?|limitations?|future|acknowledg\w*|outlook)\b", re.I
)
_MAX_HEADING_WORDS = 7


def heading_title(text: str) -> str | None:
    """The title when `text` is a heading ("4 Experiments", "3.2 Datasets and Setup", "EXPERIMENTS")."""
    text = text.strip()
    if not text or len(text.split()) > _MAX_HEADING_WORDS + 1 or text.endswith((".", ",", ";")):
        match = _NUMBERED_START.match(text)
        return match.group(1) if match else None
    match = _HEADING.match(text)
    if match is None:
        match = _NUMBERED_START.match(text)
        return match.group(1) if match else None
    title = match.group(1)
    words = title.split()
    capitalised = sum(word[0].isupper() for word in words)
    if title != text:  # numbered
        return title
    known = _DATA_SECTION.search(title) or _KNOWN_SECTION.search(title)
    return title if known and (capitalised == len(words) or title.isupper()) else None


def is_data_section(title: str | None) -> bool:
    """Whether a section of this title is where papers describe their data and experiments."""
    return bool(title) and bool(_DATA_SECTION.search(title))


def is_aside_section(title: str | None) -> bool:
    """Whether a section of this title frames the work (introduction, related work, discussion, conclusions,
    limitations, acknowledgements) rather than reports what it did."""
    return bool(title) and bool(_ASIDE_SECTION.search(title))


def section_titles(sentences: Sequence[str]) -> list[str | None]:
    """For each sentence, the title of the section it lies in (None before the first heading)."""
    current: str | None = None
    titles: list[str | None] = []
    for text in sentences:
        title = heading_title(text)
        if title is not None:
            current = title
        titles.append(current)
    return titles
