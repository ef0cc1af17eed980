"""Download one NeurIPS year from the proceedings site (papers.nips.cc): PDFs plus JSON metadata sidecars.

The site's structure: the year listing `/paper_files/paper/<year>` links each paper's page
`/paper_files/paper/<year>/hash/<hash>-Abstract[-<track>].html` (no track suffix up to 2021; then
`Conference`, and `Datasets_and_Benchmarks` (2022-23) or `Datasets_and_Benchmarks_Track` (2024-)). A paper page carries
`citation_*` meta tags (title, one `citation_author` per author as "Last, First", `citation_pdf_url`)
and the abstract after an `<h4>Abstract</h4>` heading; its PDF is `.../file/<hash>-Paper[-<track>].pdf`.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pymupdf
from tqdm import tqdm

from dsminer.corpus.http_client import MAX_FILE_BYTES, MAX_PAGE_BYTES, FetchError, PoliteClient
from dsminer.corpus.neurips_pages import ListedPaper, PaperPage, parse_listing, parse_paper_page
from dsminer.errors import CorpusError

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://papers.nips.cc"
FIRST_YEAR = 1987
PDF_TAIL_BYTES = 2048


@dataclass
class DownloadReport:
    """What a download did, by paper page URL; `failed` pairs a page URL with a one-line reason."""

    downloaded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def download_neurips(
    year: int,
    out_dir: Path,
    limit: int | None = None,
    base_url: str = DEFAULT_BASE_URL,
    delay_s: float = 1.0,
    timeout_s: float = 60,
    progress: bool = True,
    retries: int = 2,
    backoff_s: float = 2.0,
    max_page_bytes: int = MAX_PAGE_BYTES,
    max_pdf_bytes: int = MAX_FILE_BYTES,
) -> DownloadReport:
    """Download the first `limit` papers of a NeurIPS year into `out_dir`; complete papers are skipped.

    Only `base_url`'s host is contacted (redirects and listing links elsewhere are refused), and a page or
    PDF larger than its cap is refused: each refusal is that paper's named failure, and the download goes on."""
    check_arguments(year, limit, base_url, delay_s, timeout_s)
    if retries < 0 or backoff_s < 0:
        raise CorpusError(f"retries and backoff must be >= 0, got {retries} and {backoff_s}")
    prepare_out_dir(out_dir)
    client = PoliteClient(delay_s=delay_s, timeout_s=timeout_s, retries=retries, backoff_s=backoff_s,
                          allowed_host=urlsplit(base_url).hostname, max_page_bytes=max_page_bytes,
                          max_file_bytes=max_pdf_bytes)
    papers = read_listing(client, listing_url(base_url, year), year)
    if limit is not None:
        papers = papers[:limit]
    report = DownloadReport()
    for paper in tqdm(papers, desc=f"NeurIPS {year}", unit="paper", disable=not progress):
        fetch_paper(client, paper, year, out_dir, report)
    logger.info(
        "NeurIPS %d into %s: %d downloaded, %d already complete, %d failed",
        year, out_dir, len(report.downloaded), len(report.skipped), len(report.failed),
    )  # fmt: skip
    return report


def check_arguments(year: int, limit: int | None, base_url: str, delay_s: float, timeout_s: float) -> None:
    """One-line CorpusError for a value the download cannot use."""
    if year < FIRST_YEAR:
        raise CorpusError(f"NeurIPS proceedings start in {FIRST_YEAR}; got year {year}")
    if limit is not None and limit < 1:
        raise CorpusError(f"limit must be at least 1, got {limit}")
    if urlsplit(base_url).scheme not in ("http", "https") or not urlsplit(base_url).netloc:
        raise CorpusError(f"base URL must be an http(s) URL, got {base_url!r}")
    if delay_s < 0 or timeout_s <= 0:
        raise CorpusError(f"delay must be >= 0 and timeout > 0 seconds, got {delay_s} and {timeout_s}")


def prepare_out_dir(out_dir: Path) -> None:
    """Create the output folder; a file in its place is a CorpusError."""
    if out_dir.exists() and not out_dir.is_dir():
        raise CorpusError(f"output path is not a folder: {out_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)


def listing_url(base_url: str, year: int) -> str:
    """The proceedings page that lists a year's papers."""
    return f"{base_url.rstrip('/')}/paper_files/paper/{year}"


def read_listing(client: PoliteClient, url: str, year: int) -> list[ListedPaper]:
    """The year's papers in listing order; an unreadable or empty listing is a CorpusError."""
    try:
        html = client.fetch_text(url)
    except FetchError as exc:
        raise CorpusError(f"cannot read the NeurIPS {year} listing at {url}: {exc.reason}") from exc
    papers = parse_listing(html, url, year)
    if not papers:
        raise CorpusError(f"no NeurIPS {year} papers found in the listing at {url}")
    logger.info("NeurIPS %d listing: %d papers", year, len(papers))
    return papers


def paper_stem(year: int, paper_hash: str) -> str:
    """A filesystem-safe file stem for a paper: `neurips<year>-<hash>`."""
    return f"neurips{year}-{re.sub(r'[^A-Za-z0-9_-]', '_', paper_hash)[:80]}"


def fetch_paper(client: PoliteClient, paper: ListedPaper, year: int, out_dir: Path, report: DownloadReport) -> None:
    """Fetch one paper's page and PDF unless both files are already complete; record the outcome."""
    stem = paper_stem(year, paper.paper_hash)
    pdf_path, sidecar_path = out_dir / f"{stem}.pdf", out_dir / f"{stem}.json"
    pdf_ok = pdf_path.is_file() and pdf_problem(pdf_path) is None
    if pdf_ok and sidecar_complete(sidecar_path):
        report.skipped.append(paper.url)
        return
    step = "page"
    try:
        page = parse_paper_page(client.fetch_text(paper.url), paper)
        step = "PDF"
        if not pdf_ok:
            download_pdf(client, page.pdf_url, pdf_path)
        write_json_atomically(sidecar_path, sidecar_record(paper, page, year))
    except FetchError as exc:
        logger.warning("NeurIPS %d: %s failed: %s (%s)", year, step, exc.reason, exc.url)
        report.failed.append((paper.url, f"{step}: {exc.reason}"))
        return
    report.downloaded.append(paper.url)


def download_pdf(client: PoliteClient, url: str, pdf_path: Path) -> None:
    """Download to `<name>.part`, verify, then rename into place; the .part never outlives the call."""
    part = pdf_path.with_name(pdf_path.name + ".part")
    try:
        client.fetch_to_file(url, part)
        problem = pdf_problem(part)
        if problem is not None:
            raise FetchError(url, problem, transient=False)
        os.replace(part, pdf_path)
    finally:
        part.unlink(missing_ok=True)


def pdf_problem(path: Path) -> str | None:
    """Why a file is not a complete, readable PDF, or None when it is."""
    with path.open("rb") as handle:
        head = handle.read(5)
        handle.seek(max(0, path.stat().st_size - PDF_TAIL_BYTES))
        tail = handle.read()
    if not head.startswith(b"%PDF"):
        return "not a PDF (no %PDF header)"
    if b"%%EOF" not in tail:
        return "incomplete PDF (no %%EOF marker)"
    try:
        with pymupdf.open(path) as document:
            pages = document.page_count
    except RuntimeError as exc:
        return f"PDF does not open ({exc})"
    return None if pages > 0 else "PDF has no pages"


def sidecar_complete(path: Path) -> bool:
    """True when the metadata sidecar exists and holds a JSON object with a title and URL."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(value, dict) and bool(value.get("title")) and bool(value.get("url"))


def sidecar_record(paper: ListedPaper, page: PaperPage, year: int) -> dict[str, object]:
    """The sidecar `<stem>.json`: the fields `load_corpus` reads, plus the PDF URL and track."""
    return {
        "title": page.title or paper.title,
        "authors": list(page.authors or paper.authors),
        "institutions": list(page.institutions),
        "venue": f"NeurIPS {year}",
        "year": year,
        "url": paper.url,
        "pdf_url": page.pdf_url,
        "abstract": page.abstract,
        "track": paper.track,
    }


def write_json_atomically(path: Path, value: dict[str, object]) -> None:
    """Write JSON to a temporary file, then rename it over `path`."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(part, path)

