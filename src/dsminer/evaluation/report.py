"""A static HTML report of one or more runs: every record beside its evidence page, the quote highlighted.

The report is a folder that opens from disk with no server and no network: `index.html` (the records as JSON,
a table to sort, filter and page through, a detail view per record), and the page images it shows, rendered
once per (PDF, page) with PyMuPDF. Highlights are boxes over the image, at the places PyMuPDF finds the quote
(and the link's anchor or URL) on the page. With several runs, each record says which conditions found the same
(paper, dataset); with gold, each record is marked correct, supported or wrong, and missed gold datasets are
listed. Verdicts typed in the page are kept in the browser and downloaded as a sheet `dsminer audit score`
reads. With a corpus catalogue (`dsminer.catalog`), a second view lists its entries, each with the papers that
name it and, where the report holds that paper's record, the row that shows its evidence.
"""

from __future__ import annotations

import base64
import json
import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pymupdf

from dsminer.catalog.entries import Catalog
from dsminer.evaluation.audit import INFO_COLUMNS, VERDICT_COLUMNS
from dsminer.evaluation.compare import canonical_titles, pair_key
from dsminer.evaluation.gold import GoldPaper, judge, link_matches, record_keys, records_by_gold_paper, url_key
from dsminer.evaluation.report_catalogue import catalogue_payload
from dsminer.evaluation.runs import RunData, assign_labels, paper_file
from dsminer.schema import DatasetRecord, normalize_name

logger = logging.getLogger(__name__)

ZOOM = 1.25  # page images at 90 dpi: sentences stay readable, a page is about 100 KB as JPEG
JPEG_QUALITY = 60
EMBED_PAGES = 300  # up to this many page images are written into index.html itself (the MLflow UI shows it so)
QUOTE_CHUNK_WORDS = 6  # a quote PyMuPDF cannot find whole (a line break inside a word) is found in chunks
FOOTNOTE_ZONE = 0.82  # a URL below this share of the page height is in a footnote
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 as shares of the page's width and height


@dataclass
class PageImages:
    """Renders each (PDF, page) once into `folder`; `src` is the file name or, when embedding, a data URI."""

    folder: Path
    embed: bool
    sources: dict[str, str] = field(default_factory=dict)

    def add(self, page: pymupdf.Page, pdf: Path) -> str:
        key = f"{pdf.stem}-p{page.number + 1}"
        if key not in self.sources:
            data = page.get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM)).tobytes("jpeg", jpg_quality=JPEG_QUALITY)
            if self.embed:
                self.sources[key] = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
            else:
                self.folder.mkdir(parents=True, exist_ok=True)
                (self.folder / f"{key}.jpg").write_bytes(data)
                self.sources[key] = f"{self.folder.name}/{key}.jpg"
        return key


def _share(rect: pymupdf.Rect, page: pymupdf.Page) -> Box:
    width, height = page.rect.width or 1.0, page.rect.height or 1.0
    return (round(rect.x0 / width, 4), round(rect.y0 / height, 4), round(rect.x1 / width, 4),
            round(rect.y1 / height, 4))


def quote_rects(page: pymupdf.Page, quote: str) -> list[pymupdf.Rect]:
    """Where the quote's words are on the page: the whole quote when PyMuPDF finds it, else the runs of
    `QUOTE_CHUNK_WORDS` words it finds (a word broken across lines, a ligature, stops a whole match)."""
    quote = " ".join(quote.split())
    if not quote:
        return []
    found = page.search_for(quote)
    if found:
        return found
    words = quote.split()
    rects: list[pymupdf.Rect] = []
    for start in range(0, len(words), QUOTE_CHUNK_WORDS):
        chunk = " ".join(words[start:start + QUOTE_CHUNK_WORDS])
        if len(chunk) >= 12:
            rects += page.search_for(chunk)
    return rects


def link_place(doc: pymupdf.Document, link: str) -> dict[str, Any] | None:
    """Where the PDF holds the record's link: a link annotation (with the rectangle of its anchor), a footnote,
    the reference list or the text (with the URL's rectangle); None when the PDF does not hold it."""
    key = url_key(link)
    if not key:
        return None
    for page in doc:
        for annotation in page.get_links():
            uri = annotation.get("uri") or ""
            if uri and link_matches(uri, [link]):
                return {"kind": "annotation", "page": page.number + 1, "rect": annotation["from"]}
    written = link.split("://", 1)[-1].rstrip("/")
    after_references = False
    for page in doc:
        text = page.get_text()
        starts_references = "References\n" in text or "REFERENCES\n" in text
        hits = _url_rects(page, written)
        if hits:
            rect = hits[0]
            if after_references or (starts_references and rect.y0 > _references_top(page)):
                kind = "reference"
            elif rect.y0 > FOOTNOTE_ZONE * page.rect.height:
                kind = "footnote"
            else:
                kind = "text"
            return {"kind": kind, "page": page.number + 1, "rect": rect}
        after_references = after_references or starts_references
    return None


def _url_rects(page: pymupdf.Page, written: str) -> list[pymupdf.Rect]:
    """Where the page writes the URL (without its scheme): whole, else its longest leading part ending before a
    "/" (a URL broken across lines in a footnote: "example.org/data/" then "set-1.zip"), down to its host."""
    parts = written.split("/")
    for end in range(len(parts), 0, -1):
        head = "/".join(parts[:end])
        if len(head) >= 4 and (end == 1 or "." in parts[0]):
            hits = page.search_for(head)
            if hits:
                return hits
    return []


def _references_top(page: pymupdf.Page) -> float:
    heading = page.search_for("References") or page.search_for("REFERENCES")
    return heading[0].y0 if heading else page.rect.height


@dataclass
class _Pdfs:
    """The runs' PDFs, opened once each; None for a PDF that is missing or unreadable (counted, logged once)."""

    folders: list[Path]
    open_docs: dict[str, pymupdf.Document | None] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def get(self, name: str) -> pymupdf.Document | None:
        if name not in self.open_docs:
            path = next((folder / name for folder in self.folders if (folder / name).is_file()), None)
            try:
                self.open_docs[name] = pymupdf.open(path) if path else None
            except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
                logger.warning("%s: cannot open for the report: %s", name, exc)
                self.open_docs[name] = None
            if path is None:
                self.missing.append(name)
        return self.open_docs[name]

    def close(self) -> None:
        for doc in self.open_docs.values():
            if doc is not None:
                doc.close()
        if self.missing:
            where = f"in {', '.join(map(str, self.folders))}" if self.folders else "(no PDF folder: give --pdfs)"
            logger.warning("%d PDFs not found %s, first %s: their records have no page image",
                           len(self.missing), where, self.missing[0])


def _pdf_folders(runs: list[RunData], pdf_dir: Path | None) -> list[Path]:
    folders = [pdf_dir] if pdf_dir else []
    folders += [Path(run.manifest["corpus_dir"]) for run in runs if run.manifest.get("corpus_dir")]
    return list(dict.fromkeys(folders))


def _picked(runs: list[RunData], sheet: Any | None) -> list[tuple[RunData, DatasetRecord, int, str, dict[str, str]]]:
    """(run, record, row number, audit category, the sheet's verdicts already given) for every record, or for the
    rows of an audit sheet."""
    if sheet is None:
        every = [(run, record) for run in runs for record in run.records]
        return [(run, record, number, "", {}) for number, (run, record) in enumerate(every, 1)]
    index = {(run.label, paper_file(record), normalize_name(record.name)): (run, record)
             for run in reversed(runs) for record in reversed(run.records)}
    picked = []
    for row in sheet.to_dict("records"):
        found = index.get((str(row["condition"]), str(row["paper"]), str(row["norm_name"])))
        if found is not None:
            given = {column: str(row[column]) for column in VERDICT_COLUMNS if str(row.get(column, "")).strip()}
            picked.append((*found, int(row["row"]), str(row["category"]), given))
    return picked


def report_rows(runs: list[RunData], pages: PageImages, pdfs: _Pdfs, gold: list[GoldPaper] | None = None,
                sheet: Any | None = None) -> list[dict[str, Any]]:
    """One row per record of every run (or per row of an audit sheet): the record, the conditions that found the
    same (paper, dataset), the gold mark, and the page images with highlight boxes for its evidence and link."""
    titles = canonical_titles(runs)
    found_by: dict[Any, list[str]] = defaultdict(list)
    for run in runs:
        for key in dict.fromkeys(pair_key(record, titles) for record in run.records):
            found_by[key].append(run.label)
    by_file = {paper.file: paper for paper in gold or []}
    rows = []
    for run, record, number, category, given in _picked(runs, sheet):
        file = paper_file(record)
        row = {
            "id": number, "condition": run.label, "run_id": run.run_id or "", "category": category, "paper": file,
            "title": titles.get(file, record.paper_refs.title or ""), "dataset": record.name,
            "norm_name": normalize_name(record.name), "aliases": record.aliases, "role": record.role or "",
            "platform": record.platform, "link": record.dataset_link or "",
            "content": record.dataset_describe.content or "", "page": record.evidence.page,
            "quote": record.evidence.quote or "", "found_by": found_by.get(pair_key(record, titles), []),
            "mark": judge(record, by_file[file])[0] if file in by_file else "",
            "image": None, "boxes": [], "link_place": None, "verdict": given,
        }
        _add_evidence(row, record, pdfs.get(file), pages)
        rows.append(row)
    return rows


def _add_evidence(row: dict[str, Any], record: DatasetRecord, doc: pymupdf.Document | None,
                  pages: PageImages) -> None:
    if doc is None:
        return
    number = record.evidence.page
    if number is not None and 1 <= number <= doc.page_count:
        page = doc[number - 1]
        row["image"] = pages.add(page, Path(doc.name))
        row["boxes"] = [_share(rect, page) for rect in quote_rects(page, record.evidence.quote or "")]
        row["name_boxes"] = [_share(rect, page) for rect in page.search_for(record.name)][:20]
    if record.dataset_link:
        place = link_place(doc, record.dataset_link)
        if place is not None:
            page = doc[place["page"] - 1]
            row["link_place"] = {"kind": place["kind"], "page": place["page"], "image": pages.add(page, Path(doc.name)),
                                 "boxes": [_share(pymupdf.Rect(place["rect"]), page)]}


def missed_gold(runs: list[RunData], gold: list[GoldPaper]) -> list[dict[str, str]]:
    """Each gold dataset of a paper a run processed that none of the run's records names."""
    missed = []
    for run in runs:
        for paper, records in records_by_gold_paper(run, gold)[0]:
            keys = set().union(*(record_keys(record) for record in records)) if records else set()
            missed += [{"condition": run.label, "paper": paper.file, "title": paper.title or "",
                        "dataset": dataset.name} for dataset in paper.datasets if not keys & dataset.keys()]
    return missed


def build_report(runs: list[RunData], out_dir: Path, gold: list[GoldPaper] | None = None,
                 pdf_dir: Path | None = None, embed: bool | None = None, sheet: Any | None = None,
                 index_name: str = "index.html", catalog: Catalog | None = None) -> dict[str, Any]:
    """Write the report folder; return what it holds (records, pages, missed gold, the index file).

    `embed` puts the page images into the page (as the MLflow UI needs to show them); by default, when the
    runs cite at most `EMBED_PAGES` pages. With `sheet` (an audit sample), only its rows, numbered as in it.
    With `catalog`, the page has a catalogue view (`catalogue_payload`)."""
    assign_labels(runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    if embed is None:
        cited = {(paper_file(r), r.evidence.page) for run in runs for r in run.records}
        embed = len(cited) <= EMBED_PAGES
    pages = PageImages(out_dir / "pages", embed)
    pdfs = _Pdfs(_pdf_folders(runs, pdf_dir))
    try:
        rows = report_rows(runs, pages, pdfs, gold, sheet)
    finally:
        pdfs.close()
    missed = missed_gold(runs, gold) if gold is not None else []
    data = {
        "runs": [{"label": run.label, "run_id": run.run_id or "", "directory": str(run.directory),
                  "model": run.manifest.get("model", ""), "records": len(run.records)} for run in runs],
        "rows": rows, "images": pages.sources, "missed": missed, "gold": gold is not None,
        "platforms": {run.label: Counter(r.platform for r in run.records) for run in runs},
        "audit_columns": INFO_COLUMNS + VERDICT_COLUMNS,
        "catalog": catalogue_payload(catalog, rows) if catalog is not None else None,
    }
    index = out_dir / index_name
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    template = Path(__file__).with_name("report.html").read_text(encoding="utf-8")
    index.write_text(template.replace("__DATA__", payload, 1), encoding="utf-8")
    logger.info("wrote a report of %d records and %d page images to %s", len(rows), len(pages.sources), out_dir)
    return {"index": index, "records": len(rows), "pages": len(pages.sources), "embedded": embed,
            "missed": len(missed), "without_image": sum(row["image"] is None for row in rows)}


def write_audit_sheet(frame: pd.DataFrame, runs: list[RunData], out_dir: Path,
                      pdf_dir: Path | None = None) -> list[Path]:
    """Write audit.csv (for the verdicts) and audit.html: the report page of the sampled records (each beside its
    evidence page, the quote highlighted, see `dsminer.evaluation.report`), whose verdict form downloads a
    filled audit.csv."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "audit.csv"
    frame.to_csv(csv_path, index=False)
    html_path = build_report(runs, out_dir, pdf_dir=pdf_dir, sheet=frame, index_name="audit.html")["index"]
    logger.info("wrote an audit sheet of %d rows to %s", len(frame), out_dir)
    return [csv_path, html_path]
