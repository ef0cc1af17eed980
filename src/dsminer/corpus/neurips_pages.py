"""Parsers for the NeurIPS proceedings pages (papers.nips.cc): a year's listing and a paper's page.

Listing (2020 site onwards): `<ul class="paper-list"><li class="conference">` items holding
`<a title="paper title" href="/paper_files/paper/<year>/hash/<hash>-Abstract-<Track>.html">` and the
authors, in `<span class="paper-authors">` (current) or `<i>` (earlier). Paper page: `citation_*` meta
tags, then `<h4>Abstract</h4>` followed by `<p class="paper-abstract"><p>...</p></p>` (older pages: a
plain `<p>`), and a `.../file/<hash>-Paper-<Track>.pdf` link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from dsminer.document.text import collapse_whitespace

ABSTRACT_PATH = re.compile(
    r"/paper(?:_files/paper)?/(?P<year>\d{4})/hash/(?P<hash>[0-9A-Za-z]+)-Abstract(?:-(?P<track>[A-Za-z0-9_]+))?\.html$"
)
PAPER_PDF_PATH = re.compile(r"/file/[0-9A-Za-z]+-Paper(?:-[A-Za-z0-9_]+)?\.pdf$")


@dataclass(frozen=True)
class ListedPaper:
    """One entry of a year's listing: the paper page URL, its hash and track, title and authors."""

    url: str
    paper_hash: str
    track: str | None
    title: str
    authors: tuple[str, ...] = ()


@dataclass(frozen=True)
class PaperPage:
    """What a paper's page says about it; empty fields fall back to the listing."""

    title: str | None
    authors: tuple[str, ...]
    institutions: tuple[str, ...]
    pdf_url: str
    abstract: str | None


def parse_listing(html: str, page_url: str, year: int) -> list[ListedPaper]:
    """The year's papers in listing order, one per hash (links to other years are ignored)."""
    parser = ListingParser()
    parser.feed(html)
    parser.close()
    papers: dict[str, ListedPaper] = {}
    for href, title, authors in parser.entries:
        match = ABSTRACT_PATH.search(urlsplit(href).path)
        if match is None or int(match["year"]) != year or match["hash"] in papers:
            continue
        names = tuple(name.strip() for name in authors.split(",") if name.strip())
        papers[match["hash"]] = ListedPaper(
            url=urljoin(page_url, href), paper_hash=match["hash"], track=match["track"],
            title=collapse_whitespace(title), authors=names,
        )  # fmt: skip
    return list(papers.values())


def parse_paper_page(html: str, paper: ListedPaper) -> PaperPage:
    """Title, authors, institutions, PDF URL and abstract from a paper page's tags and text."""
    parser = PaperPageParser()
    parser.feed(html)
    parser.close()
    meta = parser.meta
    title = collapse_whitespace(first(meta.get("citation_title"))) or None
    authors = tuple(name_first_last(collapse_whitespace(name)) for name in meta.get("citation_author", []) if name.strip())
    institutions = tuple(dict.fromkeys(collapse_whitespace(i) for i in meta.get("citation_author_institution", []) if i.strip()))
    abstract = collapse_whitespace("".join(parser.abstract_parts)) or collapse_whitespace(first(meta.get("citation_abstract"))) or None
    return PaperPage(title, authors, institutions, find_pdf_url(meta, parser.pdf_links, paper.url), abstract)


def find_pdf_url(meta: dict[str, list[str]], pdf_links: list[str], page_url: str) -> str:
    """The PDF: `citation_pdf_url`, else the page's `-Paper*.pdf` link, else derived from the page URL."""
    declared = first(meta.get("citation_pdf_url")).strip()
    if declared:
        return urljoin(page_url, declared)
    if pdf_links:
        return urljoin(page_url, pdf_links[0])
    path = urlsplit(page_url).path
    derived = path.replace("/hash/", "/file/").replace("-Abstract", "-Paper").removesuffix(".html") + ".pdf"
    return urljoin(page_url, derived)


def name_first_last(name: str) -> str:
    """'Last, First' (as in citation_author) becomes 'First Last'; other forms are kept."""
    parts = [part.strip() for part in name.split(",")]
    return f"{parts[1]} {parts[0]}" if len(parts) == 2 and all(parts) else name


def first(values: list[str] | None) -> str:
    """The first value of a repeated meta tag, or ''."""
    return values[0] if values else ""


def has_class(attrs: dict[str, str | None], name: str) -> bool:
    """True when the tag's class attribute lists `name`."""
    return name in (attrs.get("class") or "").split()


def is_author_line(tag: str, attrs: dict[str, str | None]) -> bool:
    """The listing's author line: `<span class="paper-authors">` now, `<i>` on the earlier site."""
    return tag == "i" or (tag == "span" and has_class(attrs, "paper-authors"))


class ListingParser(HTMLParser):
    """Collects (href, title, authors) for each link of a listing and the author line after it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: list[list[str]] = []
        self._capture: int | None = None  # 1: title text, 2: authors text
        self._capture_tag = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if self._capture is not None:
            return
        if tag == "a" and ABSTRACT_PATH.search(urlsplit(found.get("href") or "").path):
            self.entries.append([found.get("href") or "", "", ""])
            self._capture, self._capture_tag = 1, "a"
        elif self.entries and not self.entries[-1][2] and is_author_line(tag, found):
            self._capture, self._capture_tag = 2, tag

    def handle_endtag(self, tag: str) -> None:
        if self._capture is not None and tag == self._capture_tag:
            self._capture = None

    def handle_data(self, data: str) -> None:
        if self._capture is not None:
            self.entries[-1][self._capture] += data


class PaperPageParser(HTMLParser):
    """Collects a paper page's citation_* meta tags, its PDF links and the abstract's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, list[str]] = {}
        self.pdf_links: list[str] = []
        self.abstract_parts: list[str] = []
        self._heading: list[str] | None = None
        self._after_abstract_heading = False
        self._p_depth = 0
        self._abstract_done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        name = found.get("name") or ""
        if tag == "meta" and name.startswith("citation_"):
            self.meta.setdefault(name, []).append(found.get("content") or "")
        elif tag == "a" and PAPER_PDF_PATH.search(urlsplit(found.get("href") or "").path):
            self.pdf_links.append(found.get("href") or "")
        elif tag in ("h3", "h4"):
            self._heading = []
        elif tag == "p":
            self._enter_paragraph(found)

    def _enter_paragraph(self, attrs: dict[str, str | None]) -> None:
        """Start (or nest inside) the abstract: a p.paper-abstract, or the first p after 'Abstract'."""
        if self._p_depth:
            self._p_depth += 1
        elif not self._abstract_done and (self._after_abstract_heading or has_class(attrs, "paper-abstract")):
            self._p_depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h3", "h4") and self._heading is not None:
            self._after_abstract_heading = collapse_whitespace("".join(self._heading)).lower() == "abstract"
            self._heading = None
        elif tag == "p" and self._p_depth:
            self.abstract_parts.append(" ")
            self._p_depth -= 1
            self._abstract_done = self._p_depth == 0

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)
        elif self._p_depth:
            self.abstract_parts.append(data)
