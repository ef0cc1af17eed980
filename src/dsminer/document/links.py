"""Which hosting platform a URL points to, and which of a paper's links belong to a dataset."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from dsminer.document.pdf import PaperLink, ParsedPaper, Sentence
from dsminer.document.text import collapse_whitespace, name_pattern
from dsminer.schema import Platform

logger = logging.getLogger(__name__)

_PLATFORM_HOSTS: tuple[tuple[str, Platform], ...] = (
    ("github.com", "GitHub"),
    ("githubusercontent.com", "GitHub"),
    ("github.io", "GitHub"),
    ("huggingface.co", "HuggingFace"),
    ("hf.co", "HuggingFace"),
    ("openml.org", "OpenML"),
    ("zenodo.org", "Zenodo"),
    ("kaggle.com", "Kaggle"),
)
_PAPER_PAGE = re.compile(r"\barxiv\.org/(?:abs|pdf)/|\baclanthology\.org/|\baclweb\.org/anthology/|"
                         r"\bopenreview\.net/(?:forum|pdf)", re.I)
_TRAILING = ".,;:!?)]}>'\"\u201d\u2019/"
_FOOTNOTE_MARK = re.compile(r"[A-Za-z)\]]([1-9][0-9]?)(?!\w|\.\d)")
_SHORT_PARAGRAPH_WORDS = 40
_FOOTNOTE_REACH = 100  # characters after a mention in which its footnote mark may sit
_AVAILABILITY = re.compile(r"\b(?:available|download\w*|releas\w*|publicly|hosted|obtain\w*|access\w*)\b", re.I)


def _host(url: str) -> str:
    """The lower-case host of `url`, with or without a scheme."""
    text = url.strip()
    if not re.match(r"^[a-z][a-z0-9+.-]*://", text, re.I):
        text = f"http://{text}"
    try:
        return (urlsplit(text).hostname or "").lower()
    except ValueError:
        return ""


def is_paper_page(url: str) -> bool:
    """A page of a paper (arXiv, the ACL Anthology, OpenReview), which describes a dataset but does not host it."""
    return bool(_PAPER_PAGE.search(url))


def platform_for_url(url: str | None) -> Platform:
    """The platform hosting `url`: GitHub, HuggingFace, OpenML, Zenodo, Kaggle, "other" or "unspecified"."""
    if not url or not url.strip():
        return "unspecified"
    host = _host(url)
    for domain, platform in _PLATFORM_HOSTS:
        if host == domain or host.endswith(f".{domain}"):
            return platform
    return "other"


def canonical_url(url: str) -> str:
    """`url` without scheme, "www." and trailing slash or punctuation, with a lower-case host."""
    text = url.strip().rstrip(_TRAILING)
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text, flags=re.I)
    host, slash, rest = text.partition("/")
    host = re.sub(r"^www\.", "", host.lower())
    return f"{host}{slash}{rest}".rstrip(_TRAILING)


def _one_segment_apart(shorter: str, longer: str) -> bool:
    """Whether `longer` is `shorter` plus one path segment, and `shorter` already has a path."""
    if "/" not in shorter or not longer.startswith(shorter + "/"):
        return False
    return "/" not in longer[len(shorter) + 1 :]


def match_paper_url(candidate: str | None, paper_urls: Sequence[str]) -> str | None:
    """The paper's own URL that `candidate` names, or None when the paper has no such URL.

    Exact after canonicalisation (case-insensitive) wins; otherwise a candidate that differs from a
    paper URL by one trailing path segment (".../repo" vs ".../repo/README") is accepted when exactly
    one paper URL is that close.
    """
    if not candidate or not candidate.strip():
        return None
    wanted = canonical_url(candidate).casefold()
    canon = [(url, canonical_url(url).casefold()) for url in paper_urls]
    for url, form in canon:
        if form == wanted:
            return url
    near = [url for url, form in canon if _one_segment_apart(form, wanted) or _one_segment_apart(wanted, form)]
    if len(set(near)) == 1:
        return near[0]
    logger.debug("rejected link %s: not among the paper's %d URLs", candidate, len(canon))
    return None


def _squeeze(text: str) -> str:
    """`text` without whitespace, so URLs broken over lines compare equal."""
    return "".join(text.split())


def _paper_blocks(paper: ParsedPaper) -> list[tuple[int, str]]:
    """(page, collapsed text) of every text block of the paper."""
    return [
        (page.number, collapse_whitespace(block))
        for page in paper.pages
        for block in re.split(r"\n[ \t]*\n", page.text)
        if block.strip()
    ]


def _footnote_marks(text: str, patterns: list[re.Pattern[str]]) -> set[str]:
    """Footnote marks glued to a word shortly after a mention of the dataset in `text`."""
    marks: set[str] = set()
    for pattern in patterns:
        for mention in pattern.finditer(text):
            window = text[mention.start() : mention.end() + _FOOTNOTE_REACH]
            marks |= {m.group(1) for m in _FOOTNOTE_MARK.finditer(window, mention.end() - mention.start() - 1)}
    return marks


def _contexts_for(paper: ParsedPaper, patterns: list[re.Pattern[str]]) -> tuple[list[Sentence], list[Sentence]]:
    """Sentences naming the dataset, and the wider contexts for written URLs.

    The wider contexts add short paragraphs naming the dataset and the same-page footnotes that a
    mark in a naming sentence points to.
    """
    mentions = [s for s, _ in paper.indexed_sentences() if any(p.search(s.text) for p in patterns)]
    blocks = _paper_blocks(paper)
    wider = list(mentions)
    for page, block in blocks:
        # a block that opens in lower case is the rest of a longer paragraph cut at a line, not a paragraph
        if (len(block.split()) <= _SHORT_PARAGRAPH_WORDS and not block[:1].islower()
                and any(p.search(block) for p in patterns)):
            wider.append(Sentence(page, block))
    for sentence in mentions:
        for mark in _footnote_marks(sentence.text, patterns):
            notes = [b for p, b in blocks if p == sentence.page and re.match(rf"{mark}(?!\d)\s*\S", b)]
            wider.extend(Sentence(sentence.page, note) for note in notes)
    return mentions, wider


def _anchor_in(anchor: str, text: str) -> bool:
    """Whether the link anchor occurs in `text` as whole words."""
    pattern = name_pattern(anchor)
    return bool(pattern and pattern.search(text))


def links_for_name(paper: ParsedPaper, names: Sequence[str]) -> list[PaperLink]:
    """The paper's links that go with a dataset named by any of `names`, in document order.

    A link counts when its URL is written in a sentence naming the dataset, a short paragraph naming
    it, or a same-page footnote that the sentence's footnote mark points to; an annotation also counts
    when its anchor names the dataset or sits in a sentence that does ("available here").
    """
    patterns = [p for p in (name_pattern(n.strip()) for n in names if n.strip()) if p is not None]
    if not patterns:
        return []
    mentions, wider = _contexts_for(paper, patterns)
    squeezed = [(c.page, _squeeze(c.text)) for c in wider]
    found: list[PaperLink] = []
    for link in paper.links:
        hit = any(page == link.page and _squeeze(link.url) in text for page, text in squeezed)
        if link.source == "annotation" and link.anchor and not hit:
            hit = any(p.search(link.anchor) for p in patterns) or any(
                s.page == link.page and _anchor_in(link.anchor, s.text) for s in mentions
            )
        if hit and link not in found:
            found.append(link)
    return found


def availability_links(paper: ParsedPaper) -> list[tuple[PaperLink, Sentence]]:
    """The paper's URLs written in an availability statement ("available at", "can be downloaded from"), each
    with its sentence: where a paper gives the link of what it releases."""
    found = []
    for sentence, in_refs in paper.indexed_sentences():
        if in_refs or not _AVAILABILITY.search(sentence.text):
            continue
        squeezed = _squeeze(sentence.text)
        found += [(link, sentence) for link in paper.links
                  if link.page == sentence.page and _squeeze(link.url) in squeezed]
    return found
