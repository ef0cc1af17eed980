"""The HTML report: every record, highlights on the quote's words, link places, conditions, gold marks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pymupdf
import pytest
from typer.testing import CliRunner

from dsminer.catalog.entries import Catalog, build_catalog, mention_rows
from dsminer.catalog.known import KnownDataset
from dsminer.catalog.resolution import spelling
from dsminer.catalog.tables import write_catalog
from dsminer.cli import app
from dsminer.evaluation.audit import (
    INFO_COLUMNS,
    VERDICT_COLUMNS,
    carry_verdicts,
    sample_audit,
    score_audit,
)
from dsminer.evaluation.gold import load_gold
from dsminer.evaluation.report import build_report, write_audit_sheet
from dsminer.evaluation.runs import read_run_dir
from dsminer.schema import DatasetRecord, normalize_name
from tests.evaluation.conftest import make_record, write_jsonl
from tests.helpers import FOOTNOTE, LINK, PAGE_ONE, PAGE_TWO, build_pdf

FOO_QUOTE = "We evaluate on the FooBench-10 dataset1 which contains 4,000 images."
QUUX_QUOTE = "A pilot study also used QuuxSet for calibration."


@pytest.fixture
def pdfs(tmp_path: Path) -> Path:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    build_pdf(folder / "paper.pdf", [PAGE_ONE, PAGE_TWO], links=[(0, *LINK)], footnote=FOOTNOTE)
    return folder


def _run(tmp_path: Path, pdfs: Path, name: str, records: list[dict]) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    write_jsonl(directory / "results.jsonl", records)
    files = sorted({record["evidence"]["source"] for record in records})
    write_jsonl(directory / "papers.jsonl", [{"file": file, "status": "ok", "records": 1} for file in files])
    (directory / "manifest.json").write_text(json.dumps({"condition": name, "model": "dummy", "corpus_dir": str(pdfs),
                                                         "mlflow": {"run_id": None}}), encoding="utf-8")
    return directory


def _records() -> list[dict]:
    return [
        make_record("paper.pdf", "FooBench-10", title="A Tiny Study", page=1, quote=FOO_QUOTE,
                    link="https://example.org/widgets/"),
        make_record("paper.pdf", "Bar Corpus", title="A Tiny Study", page=1,
                    quote="The Bar Corpus consists of 900 labeled photographs", link=LINK[1]),
        make_record("paper.pdf", "QuuxSet", title="A Tiny Study", page=2, quote=QUUX_QUOTE),
        make_record("gone.pdf", "GoneSet", title="Elsewhere", page=1, quote="We use GoneSet."),
    ]


def _data(index: Path) -> dict:
    text = index.read_text(encoding="utf-8")
    payload = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S).group(1)
    return json.loads(payload.replace("<\\/", "</"))


def _shares(page: pymupdf.Page, rects: list[pymupdf.Rect]) -> list[list[float]]:
    w, h = page.rect.width, page.rect.height
    return [[round(r.x0 / w, 4), round(r.y0 / h, 4), round(r.x1 / w, 4), round(r.y1 / h, 4)] for r in rects]


def test_every_record_is_in_the_report_with_boxes_on_its_quote(tmp_path, pdfs):
    run = read_run_dir(_run(tmp_path, pdfs, "s0", _records()))
    built = build_report([run], tmp_path / "report")
    data = _data(built["index"])
    assert [row["dataset"] for row in data["rows"]] == ["FooBench-10", "Bar Corpus", "QuuxSet", "GoneSet"]
    assert built["without_image"] == 1 and data["rows"][3]["image"] is None
    with pymupdf.open(pdfs / "paper.pdf") as doc:
        for row in data["rows"][:3]:
            page = doc[row["page"] - 1]
            expected = _shares(page, page.search_for(" ".join(row["quote"].split())))
            assert expected and row["boxes"] == expected
            assert data["images"][row["image"]].startswith("data:image/jpeg;base64,")
    assert data["rows"][0]["image"] == data["rows"][1]["image"]  # one image per page, shared


def test_a_quote_pymupdf_cannot_find_whole_is_found_in_chunks(tmp_path, pdfs):
    record = make_record("paper.pdf", "FooBench-10", page=1, quote=FOO_QUOTE.replace("4,000", "4000 (sic)"))
    data = _data(build_report([read_run_dir(_run(tmp_path, pdfs, "s0", [record]))], tmp_path / "r")["index"])
    assert data["rows"][0]["boxes"]  # the chunks around the changed words are still found


def test_link_places(tmp_path, pdfs):
    data = _data(build_report([read_run_dir(_run(tmp_path, pdfs, "s0", _records()))], tmp_path / "r")["index"])
    foo, bar, quux = data["rows"][:3]
    assert foo["link_place"]["kind"] == "footnote" and foo["link_place"]["page"] == 1
    assert bar["link_place"]["kind"] == "annotation"
    with pymupdf.open(pdfs / "paper.pdf") as doc:
        assert bar["link_place"]["boxes"] == _shares(doc[0], [doc[0].search_for("here")[-1]])
    assert quux["link_place"] is None


def test_a_url_broken_across_footnote_lines_is_found_by_its_first_line(tmp_path, pdfs):
    record = make_record("paper.pdf", "FooBench-10", page=1, quote=FOO_QUOTE,
                         link="https://example.org/widgets/foobench-10.zip")
    data = _data(build_report([read_run_dir(_run(tmp_path, pdfs, "s0", [record]))], tmp_path / "r")["index"])
    assert data["rows"][0]["link_place"]["kind"] == "footnote"


def test_image_files_beside_the_page(tmp_path, pdfs):
    built = build_report([read_run_dir(_run(tmp_path, pdfs, "s0", _records()))], tmp_path / "r", embed=False)
    data = _data(built["index"])
    assert not built["embedded"] and built["pages"] == 2
    for source in data["images"].values():
        assert not source.startswith("data:") and (tmp_path / "r" / source).is_file()


def test_the_page_loads_nothing_from_outside(tmp_path, pdfs):
    index = build_report([read_run_dir(_run(tmp_path, pdfs, "s0", _records()))], tmp_path / "r")["index"]
    text = index.read_text(encoding="utf-8")
    page = text.split('<script type="application/json" id="data">')[0] + text.split("</script>", 1)[1]
    assert not re.search(r"<script[^>]*\ssrc=|<link\b|<img[^>]*\ssrc=|@import", page, re.I)
    assert not re.search(r"\burl\(", page)  # CSS url(...)
    assert "default-src 'none'" in text


def test_conditions_side_by_side_and_gold_marks(tmp_path, pdfs):
    s0 = _run(tmp_path, pdfs, "s0", _records()[:2])
    s1a = _run(tmp_path, pdfs, "s1a", [_records()[0], _records()[2]])
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"file": "paper.pdf", "title": "A Tiny Study",
                                                  "datasets": ["FooBench-10", "Widget Photos"],
                                                  "material_mentions": ["QuuxSet"]}])
    built = build_report([read_run_dir(s0), read_run_dir(s1a)], tmp_path / "r", load_gold(gold))
    data = _data(built["index"])
    by = {(row["condition"], row["dataset"]): row for row in data["rows"]}
    assert by[("s0", "FooBench-10")]["found_by"] == ["s0", "s1a"]
    assert by[("s0", "Bar Corpus")]["found_by"] == ["s0"]
    assert [by[key]["mark"] for key in (("s0", "FooBench-10"), ("s0", "Bar Corpus"), ("s1a", "QuuxSet"))] \
        == ["correct", "wrong", "supported"]
    assert sorted((m["condition"], m["dataset"]) for m in data["missed"]) \
        == [("s0", "Widget Photos"), ("s1a", "Widget Photos")]


def test_the_verdict_sheet_columns_are_the_audit_sheets(tmp_path, pdfs):
    data = _data(build_report([read_run_dir(_run(tmp_path, pdfs, "s0", _records()))], tmp_path / "r")["index"])
    assert data["audit_columns"] == INFO_COLUMNS + VERDICT_COLUMNS
    sheet = tmp_path / "audit.csv"  # as the page writes it: one line per record, verdicts as typed
    rows = [",".join(data["audit_columns"])]
    for row in data["rows"]:
        values = {"row": row["id"], "condition": row["condition"], "category": "single", "paper": row["paper"],
                  "dataset": row["dataset"], "norm_name": row["norm_name"], "dataset_link": row["link"],
                  "platform": row["platform"], "mentioned": "yes", "is_dataset": "yes" if row["id"] != 4 else "no"}
        rows.append(",".join(str(values.get(column, "")) for column in data["audit_columns"]))
    sheet.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert score_audit(sheet)["overall"]["precision"] == 0.75


def test_report_command(tmp_path, pdfs):
    run = _run(tmp_path, pdfs, "s0", _records())
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "r"), "--no-log"])
    assert result.exit_code == 0, result.output
    assert "4 records, 2 page images (inside index.html), 1 records without a page image" in result.output
    result = CliRunner().invoke(app, ["report", str(run), "--pdfs", str(tmp_path / "nowhere"), "--no-log"])
    assert result.exit_code != 0 and "PDF folder not found" in result.output


OTHER = make_record("other.pdf", "FooBench 10", title="Another Study", page=3, role="used",
                    quote="FooBench 10 served as the test set.")
QUUX_LINK = "https://huggingface.co/datasets/quux"


def _catalogue(runs: list[tuple[str, list[dict]]]) -> Catalog:
    """The catalogue of `runs` (label, records); QuuxSet is known to a catalogue that gives it a link."""
    rows = [row for label, records in runs
            for row in mention_rows([DatasetRecord.model_validate(record) for record in records], label)]
    return build_catalog(rows, {spelling("QuuxSet").key: KnownDataset("hf:quux", "QuuxSet", QUUX_LINK)})


def _catalogue_report(tmp_path: Path, pdfs: Path, foo_from: str = "s1a") -> Path:
    """A report of s0 (all four records) and s1a (FooBench-10, QuuxSet) with a catalogue that took FooBench-10 of
    paper.pdf from run `foo_from` and also holds other.pdf, a paper none of the report's runs read."""
    s0, s1a = _records(), [_records()[0], _records()[2]]
    catalog = _catalogue([(foo_from, [_records()[0]]), ("s1a", s1a), ("s0", s0), ("s9", [OTHER])])
    runs = [read_run_dir(_run(tmp_path, pdfs, "s0", s0)), read_run_dir(_run(tmp_path, pdfs, "s1a", s1a))]
    return build_report(runs, tmp_path / "r", catalog=catalog)["index"]


def test_the_catalogue_carries_its_entries_and_their_papers(tmp_path, pdfs):
    data = _data(_catalogue_report(tmp_path, pdfs))
    entries = {entry["name"]: entry for entry in data["catalog"]["entries"]}
    assert list(entries) == ["FooBench-10", "Bar Corpus", "GoneSet", "QuuxSet"]  # the catalogue's order
    assert (data["catalog"]["records"], data["catalog"]["papers"]) == (5, 3)
    foo = entries["FooBench-10"]
    assert (foo["papers"], foo["used"], foo["created"], foo["mentioned"], foo["links"]) == (2, 1, 0, 0, 1)
    assert sorted(foo["aliases"]) == ["FooBench 10", "FooBench-10"] and foo["variant_of"] is None
    assert [(p["paper"], p["title"], p["role"], p["name"], p["page"]) for p in foo["paper_records"]] \
        == [("other.pdf", "Another Study", "used", "FooBench 10", 3),
            ("paper.pdf", "A Tiny Study", None, "FooBench-10", 1)]
    assert foo["paper_records"][0]["quote"] == OTHER["evidence"]["quote"]
    assert (foo["link"], foo["link_source"]) == ("https://example.org/widgets/", "paper: paper.pdf")
    quux = entries["QuuxSet"]  # no paper gives QuuxSet a link: the known catalogue's is marked as borrowed
    assert (quux["link"], quux["link_source"]) == (QUUX_LINK, "catalogue: hf:quux")
    assert quux["all_links"] == [{"url": QUUX_LINK, "source": "catalogue: hf:quux"}]


@pytest.mark.parametrize(("foo_from", "condition"), [
    ("s1a", "s1a"),  # the row of the run the catalogue took the record from
    ("s0", "s0"),
    ("s9", "s0"),  # a run the report does not show: the first row of that paper and name
])
def test_an_entrys_paper_points_at_the_row_of_its_record(tmp_path, pdfs, foo_from, condition):
    data = _data(_catalogue_report(tmp_path, pdfs, foo_from))
    rows = {row["id"]: row for row in data["rows"]}
    entries = {entry["name"]: entry for entry in data["catalog"]["entries"]}
    other, paper = entries["FooBench-10"]["paper_records"]
    assert other["row"] is None  # other.pdf is in the catalogue only
    assert (rows[paper["row"]]["condition"], rows[paper["row"]]["paper"], rows[paper["row"]]["dataset"]) \
        == (condition, "paper.pdf", "FooBench-10")
    for entry in entries.values():
        for record in entry["paper_records"]:
            if record["row"] is not None:
                row = rows[record["row"]]
                assert (row["paper"], row["norm_name"]) == (record["paper"], normalize_name(record["name"]))
    assert [record["row"] for record in entries["Bar Corpus"]["paper_records"]] == [2]


def test_without_a_catalogue_the_page_has_no_catalogue(tmp_path, pdfs):
    data = _data(build_report([read_run_dir(_run(tmp_path, pdfs, "s0", _records()))], tmp_path / "r")["index"])
    assert data["catalog"] is None


def test_report_command_with_a_catalogue(tmp_path, pdfs):
    run = _run(tmp_path, pdfs, "s0", _records())
    write_catalog(_catalogue([("s0", _records()), ("s9", [OTHER])]), tmp_path / "catalog")
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "r"), "--no-log",
                                      "--catalog", str(tmp_path / "catalog")])
    assert result.exit_code == 0, result.output
    assert "4 catalogue entries" in result.output
    entries = {entry["name"]: entry for entry in _data(tmp_path / "r" / "index.html")["catalog"]["entries"]}
    assert [(p["paper"], p["page"], p["row"]) for p in entries["FooBench-10"]["paper_records"]] \
        == [("other.pdf", 3, None), ("paper.pdf", 1, 1)]
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "r2"), "--no-log",
                                      "--catalog", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and result.output.strip().splitlines() == [
        f"error: {tmp_path / 'nowhere'} holds no catalogue (build one: dsminer catalog build RUN --out "
        f"{tmp_path / 'nowhere'})"]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package chromium; .ci/run installs it)")
def test_the_table_renders_and_filters_in_chromium(tmp_path, pdfs):
    index = build_report([read_run_dir(_run(tmp_path, pdfs, "s0", _records()))], tmp_path / "r")["index"]

    def dom(fragment: str) -> str:
        command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{index.as_uri()}#{fragment}"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        assert 'data-ready="1"' in done.stdout, done.stderr[-2000:]
        return done.stdout

    everything = dom("")
    assert 'data-ready="1"' in everything and "4 of 4 records" in everything
    assert len(re.findall(r'<tr data-id="\d+"', everything)) == 4
    filtered = dom("q=quuxset")
    assert "1 of 4 records" in filtered and re.findall(r'<tr data-id="(\d+)"', filtered) == ["3"]
    detail = dom("record=1")
    assert "Record 1" in detail and 'class="box "' in detail and "Link (footnote), page 1" in detail
    assert 'id="views"' not in everything and 'data-entry="' not in dom("view=catalogue")  # no catalogue, no view


def test_the_report_is_logged_to_the_runs_mlflow_artifacts(tmp_path, pdfs):
    import mlflow

    uri = f"sqlite:///{tmp_path}/mlflow.db"
    client = mlflow.MlflowClient(uri)
    run_id = client.create_run(client.create_experiment("dsminer")).info.run_id
    directory = _run(tmp_path, pdfs, "s0", _records())
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["mlflow"] = {"tracking_uri": uri, "run_id": run_id}
    (directory / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(app, ["report", str(directory), "--out", str(tmp_path / "r"), "--tracking-uri", uri])
    assert result.exit_code == 0, result.output
    assert [item.path for item in client.list_artifacts(run_id, "report")] == ["report/index.html"]


@contextmanager
def _browser_page(page_file: Path) -> Iterator[Any]:
    """A headless Chromium page (Playwright) on `page_file`, once its script has drawn it."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"])
        try:
            page = browser.new_page(accept_downloads=True)
            page.goto(page_file.as_uri())
            page.wait_for_selector("body[data-ready='1']")
            yield page
        finally:
            browser.close()


def _download_sheet(page: Any, path: Path) -> None:
    with page.expect_download() as download:
        page.click("#download")
    download.value.save_as(path)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package chromium; .ci/run installs it)")
def test_verdicts_typed_in_the_audit_page_download_as_a_sheet_audit_score_reads(tmp_path, pdfs):
    runs = [read_run_dir(_run(tmp_path, pdfs, "s0", _records()))]
    sheet = sample_audit(runs, n=10, seed=0)
    _, page_file = write_audit_sheet(sheet, runs, tmp_path / "audit")
    verdicts = {"FooBench-10": ("yes", "yes"), "Bar Corpus": ("yes", "no")}
    filled = tmp_path / "filled.csv"
    with _browser_page(page_file) as page:
        for row in sheet.itertuples():
            if row.dataset in verdicts:
                page.click(f"tr[data-id='{row.row}']")
                page.select_option("select[name=mentioned]", verdicts[row.dataset][0])
                page.select_option("select[name=is_dataset]", verdicts[row.dataset][1])
        page.reload()  # verdicts are kept in the browser
        page.wait_for_selector("body[data-ready='1']")
        _download_sheet(page, filled)
    scores = score_audit(filled)["overall"]
    assert scores["rows"] == len(sheet) and scores["annotated"] == 2 and scores["precision"] == 0.5


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package chromium; .ci/run installs it)")
def test_the_audit_page_starts_from_carried_verdicts(tmp_path, pdfs):
    runs = [read_run_dir(_run(tmp_path, pdfs, "s0", _records()))]
    earlier, _ = write_audit_sheet(sample_audit(runs, n=10, seed=0), runs, tmp_path / "earlier")
    filled = pd.read_csv(earlier, dtype=str, keep_default_na=False)
    filled.loc[filled["dataset"] == "Bar Corpus", ["mentioned", "is_dataset", "annotator"]] = ["yes", "no", "ann"]
    filled.to_csv(earlier, index=False)
    sheet = sample_audit(runs, n=10, seed=0)
    assert carry_verdicts(sheet, earlier) == 1
    _, page_file = write_audit_sheet(sheet, runs, tmp_path / "audit")
    row = int(sheet.loc[sheet["dataset"] == "Bar Corpus", "row"].iloc[0])
    downloaded = tmp_path / "downloaded.csv"
    with _browser_page(page_file) as page:
        page.click(f"tr[data-id='{row}']")
        assert page.input_value("select[name=is_dataset]") == "no"
        page.fill("input[name=notes]", "read again")  # an edit keeps the carried annotator
        _download_sheet(page, downloaded)
    again = pd.read_csv(downloaded, dtype=str, keep_default_na=False)
    [carried] = again[again["dataset"] == "Bar Corpus"].to_dict("records")
    assert (carried["is_dataset"], carried["annotator"], carried["notes"]) == ("no", "ann", "read again")
    assert score_audit(downloaded)["overall"]["annotated"] == 1


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package chromium; .ci/run installs it)")
def test_the_catalogue_view_sorts_and_opens_an_entry_in_chromium(tmp_path, pdfs):
    index = _catalogue_report(tmp_path, pdfs)
    entries = {entry["name"]: entry for entry in _data(index)["catalog"]["entries"]}
    foo, quux = entries["FooBench-10"], entries["QuuxSet"]
    foo_row = foo["paper_records"][1]["row"]
    with _browser_page(index) as page:
        def names() -> list[str]:
            return page.eval_on_selector_all("#entries tr[data-entry] td:first-child b",
                                             "cells => cells.map(cell => cell.textContent)")

        assert page.is_hidden("#catalogue-view")
        page.click("#views button[data-view=catalogue]")
        assert page.is_visible("#entries") and page.is_hidden("#records-view")
        assert names() == ["FooBench-10", "Bar Corpus", "GoneSet", "QuuxSet"]  # most papers first
        page.click("#entries th[data-key=name]")
        assert names() == ["Bar Corpus", "FooBench-10", "GoneSet", "QuuxSet"]
        page.click("#entries th[data-key=papers]")  # a count sorts from the most, then from the fewest
        assert names() == ["FooBench-10", "Bar Corpus", "GoneSet", "QuuxSet"]
        page.click("#entries th[data-key=papers]")
        assert names() == ["Bar Corpus", "GoneSet", "QuuxSet", "FooBench-10"]
        assert "borrowed from hf:quux" in page.inner_text(f"tr[data-entry='{quux['entry_id']}']")
        assert "given by paper.pdf" in page.inner_text(f"tr[data-entry='{foo['entry_id']}']")
        page.click(f"tr[data-entry='{foo['entry_id']}']")
        detail = page.inner_text(f"tr[data-detail='{foo['entry_id']}']")
        assert "other.pdf" in detail and "page 3" in detail and OTHER["evidence"]["quote"] in detail
        assert "not among this report's records" in detail
        page.click(f"tr[data-detail='{foo['entry_id']}'] li[data-row='{foo_row}']")
        assert f"Record {foo_row}" in page.inner_text("#right") and page.locator("#right .page .box").count() > 0
        page.click(f"li[data-row='{foo_row}'] button")
        assert page.is_visible("#records") and page.is_hidden("#catalogue-view")
        assert page.get_attribute(f"#records tr[data-id='{foo_row}']", "class") == "sel"
