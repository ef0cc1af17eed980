"""A fake NeurIPS proceedings site for tests: an HTTP server on 127.0.0.1 and pages in papers.nips.cc's structure."""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

import pymupdf


def make_pdf(text: str, pages: int = 1) -> bytes:
    """A small real PDF with `text` on each page."""
    document = pymupdf.open()
    for number in range(pages):
        document.new_page().insert_text((72, 72), f"{text} (page {number + 1})")
    data = document.tobytes()
    document.close()
    return data


@dataclass
class Route:
    """How the fake site answers one path."""

    body: bytes
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    delay_s: float = 0.0  # pause before the status line
    slow_requests: int | None = None  # only the first N requests are delayed (None: all)
    declared_length: int | None = None  # a Content-Length other than len(body): truncation
    fail_first: int = 0  # answer 503 to the first N requests
    location: str | None = None  # a Location header (a redirect, with status 301 to 308)


@dataclass
class FakeSite:
    """Routes by path, plus a log of (path, User-Agent) for every request received."""

    base_url: str = ""
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, path: str) -> int:
        """How many requests asked for `path`."""
        with self.lock:
            return sum(1 for seen, _ in self.requests if seen == path)

    def reset_log(self) -> None:
        with self.lock:
            self.requests.clear()


class FakeSiteHandler(BaseHTTPRequestHandler):
    """Answers GETs from the FakeSite's routes; HTTP/1.0, so each response closes its connection."""

    site: FakeSite

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        with self.site.lock:
            self.site.requests.append((self.path, self.headers.get("User-Agent", "")))
            seen = sum(1 for path, _ in self.site.requests if path == self.path)
        route = self.site.routes.get(self.path)
        if route is None:
            self._answer(404, b"<html><body>Not Found</body></html>", "text/html")
            return
        if route.delay_s and (route.slow_requests is None or seen <= route.slow_requests):
            if self.site.stopping.wait(route.delay_s):
                return
        if seen <= route.fail_first:
            self._answer(503, b"busy", "text/plain")
            return
        self._answer(route.status, route.body, route.content_type, route.declared_length, route.location)

    def _answer(self, status: int, body: bytes, content_type: str, declared: int | None = None,
                location: str | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(declared if declared is not None else len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


# --- pages in the structure of papers.nips.cc ------------------------------------------------


@dataclass(frozen=True)
class FixturePaper:
    """One paper of the fixture proceedings."""

    paper_hash: str
    title: str
    authors: tuple[str, ...]  # "First Last"
    track: str | None = "Conference"  # None: pre-2022 URLs without a track suffix
    abstract: str = "We introduce a benchmark and evaluate on ImageNet."
    listing_class: str = "conference"

    def suffix(self) -> str:
        return f"-{self.track}" if self.track else ""

    def page_path(self, year: int) -> str:
        return f"/paper_files/paper/{year}/hash/{self.paper_hash}-Abstract{self.suffix()}.html"

    def pdf_path(self, year: int) -> str:
        return f"/paper_files/paper/{year}/file/{self.paper_hash}-Paper{self.suffix()}.pdf"


def listing_html(year: int, papers: list[FixturePaper], authors_tag: str = "span") -> bytes:
    """The year listing: ul.paper-list > li.<track> > div.paper-content > a[title="paper title"] + authors."""
    items = []
    for paper in papers:
        authors = html.escape(", ".join(paper.authors))
        author_line = (
            f'<span class="paper-authors">{authors}</span>' if authors_tag == "span" else f"<i>{authors}</i>"
        )
        items.append(
            f'<li class="{paper.listing_class}"><div class="paper-content">'
            f'<a title="paper title" href="{paper.page_path(year)}">{html.escape(paper.title)}</a>'
            f"{author_line}</div></li>"
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>NeurIPS {year}</title></head><body>"
        '<nav class="navbar"><a class="navbar-brand" href="/">NeurIPS Proceedings</a>'
        f'<a href="/paper_files/paper/{year - 1}">{year - 1}</a></nav>'
        '<div class="container-fluid"><div class="col p-3">'
        f"<h2>Advances in Neural Information Processing Systems (NeurIPS {year})</h2>"
        f'<ul class="paper-list">{"".join(items)}</ul></div></div></body></html>'
    ).encode()


def paper_html(base_url: str, year: int, paper: FixturePaper, with_pdf_meta: bool = True) -> bytes:
    """A paper page: citation_* meta tags, buttons (Bibtex, Paper, Supplemental), authors, abstract."""
    metas = [f'<meta name="citation_title" content="{html.escape(paper.title)}">']
    for author in paper.authors:
        first, _, last = author.rpartition(" ")
        metas.append(f'<meta name="citation_author" content="{html.escape(f"{last}, {first}")}">')
    metas.append('<meta name="citation_journal_title" content="Advances in Neural Information Processing Systems">')
    metas.append(f'<meta name="citation_publication_date" content="{year}">')
    if with_pdf_meta:
        metas.append(f'<meta name="citation_pdf_url" content="{base_url}{paper.pdf_path(year)}">')
    bib = paper.page_path(year).removesuffix(".html") + "-bib.txt"
    supplemental = paper.pdf_path(year).replace("-Paper", "-Supplemental").removesuffix(".pdf") + ".zip"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(paper.title)}</title>{''.join(metas)}</head><body>"
        '<div class="container-fluid"><div class="col p-3">'
        f"<h4>{html.escape(paper.title)}</h4>"
        f'<p>Part of <a href="/paper_files/paper/{year}">Advances in Neural Information Processing Systems '
        f"(NeurIPS {year})</a> Main Conference Track</p>"
        f'<div><a class="btn btn-light btn-spacer" role="button" href="{bib}">Bibtex</a> '
        f'<a class="btn btn-light btn-spacer" role="button" href="{paper.pdf_path(year)}">Paper</a> '
        f'<a class="btn btn-light btn-spacer" role="button" href="{supplemental}">Supplemental</a></div>'
        f"<h4>Authors</h4><p><i>{html.escape(', '.join(paper.authors))}</i></p>"
        "<h4>Abstract</h4>"
        f'<p class="paper-abstract"><p>{html.escape(paper.abstract)}</p></p>'
        "</div></div></body></html>"
    ).encode()


def publish(site: FakeSite, year: int, papers: list[FixturePaper], **listing_options: str) -> None:
    """Serve the listing, each paper's page and each paper's PDF."""
    site.routes[f"/paper_files/paper/{year}"] = Route(listing_html(year, papers, **listing_options))
    for paper in papers:
        site.routes[paper.page_path(year)] = Route(paper_html(site.base_url, year, paper))
        site.routes[paper.pdf_path(year)] = Route(make_pdf(paper.title), content_type="application/pdf")


PAPERS = [
    FixturePaper("0a1b2c3d4e5f60718293a4b5c6d7e8f9", "Scaling Laws for Tabular Data", ("Jane Doe", "John Smith")),
    FixturePaper("1b2c3d4e5f60718293a4b5c6d7e8f90a", "A Graph Benchmark", ("Ada Lovelace",)),
    FixturePaper(
        "2c3d4e5f60718293a4b5c6d7e8f90a1b", "CityScenes: A Street Dataset", ("Alan Turing", "Grace Hopper"),
        track="Datasets_and_Benchmarks_Track", listing_class="datasets_and_benchmarks_track",
    ),  # fmt: skip
    FixturePaper("3d4e5f60718293a4b5c6d7e8f90a1b2c", "Robust Speech Recognition", ("Kurt Godel",)),
]
