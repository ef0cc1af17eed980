"""`dsminer corpus ...`: build a paper corpus: download a NeurIPS year, or fetch the PDFs a manifest names."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dsminer.cli.errors import user_errors
from dsminer.corpus.manifest import fetch_manifest, read_manifest
from dsminer.corpus.neurips import DEFAULT_BASE_URL, DownloadReport, download_neurips
from dsminer.errors import CorpusError

SUPPORTED_CONFERENCES = ("neurips",)

corpus_app = typer.Typer(help="Build paper corpora: download a conference's proceedings with metadata, or fetch the "
                                "PDFs a manifest names.")


@corpus_app.command("download")
def download(
    conference: Annotated[str, typer.Argument(help="Conference to download; supported: neurips.")],
    year: Annotated[int, typer.Option("--year", help="Proceedings year, e.g. 2024.")],
    out: Annotated[Path, typer.Option("--out", file_okay=False, help="Folder for the PDFs and metadata sidecars.")],
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N papers of the listing.")] = None,
    base_url: Annotated[str, typer.Option("--base-url", help="Proceedings site.")] = DEFAULT_BASE_URL,
    delay: Annotated[float, typer.Option("--delay", min=0.0, help="Seconds between requests.")] = 1.0,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds to wait per connect or read.")] = 60.0,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")] = True,
) -> None:
    """Download a conference year's papers (PDF + JSON sidecar each); rerun to resume."""
    with user_errors():
        if conference.strip().lower() not in SUPPORTED_CONFERENCES:
            supported = ", ".join(SUPPORTED_CONFERENCES)
            raise CorpusError(f"unsupported conference {conference!r} (supported: {supported})")
        report = download_neurips(
            year, out, limit=limit, base_url=base_url, delay_s=delay, timeout_s=timeout, progress=progress
        )
    print_report(report, out)
    if report.failed and not (report.downloaded or report.skipped):
        raise typer.Exit(code=1)


@corpus_app.command("manifest")
def manifest(
    gold: Annotated[Path, typer.Argument(dir_okay=False, help="A manifest or gold JSONL file: file, source_repo, "
                                                             "source_commit, source_path, sha256 per line.")],
    out: Annotated[Path, typer.Option("--out", file_okay=False, help="Folder for pdfs/ and the gold file.")],
    clones: Annotated[Path | None, typer.Option(
        "--clones", file_okay=False, help="Folder of local clones (owner/name or owner+name) to read the PDFs "
                                          "from instead of downloading them from GitHub.")] = None,
) -> None:
    """Fetch the PDFs a manifest names into OUT/pdfs, each checked against its SHA-256, and copy the file to
    OUT/gold.jsonl, so OUT is a corpus `dsminer run` and `--gold` read; rerun to resume."""
    with user_errors():
        if not gold.is_file():
            raise CorpusError(f"manifest not found: {gold}")
        entries = read_manifest(gold)
        report = fetch_manifest(entries, out / "pdfs", clones)
        (out / "gold.jsonl").write_text(gold.read_text(encoding="utf-8"), encoding="utf-8")
    typer.echo(f"{out}: {len(report.fetched)} fetched, {len(report.skipped)} already there, "
               f"{len(report.failed)} failed")
    for file, reason in report.failed:
        typer.echo(f"failed: {file}: {reason}", err=True)
    if report.failed:
        raise typer.Exit(code=1)


def print_report(report: DownloadReport, out: Path) -> None:
    """A one-line summary on stdout, then one line per failed paper on stderr."""
    typer.echo(
        f"{out}: {len(report.downloaded)} downloaded, {len(report.skipped)} already complete, "
        f"{len(report.failed)} failed"
    )
    for url, reason in report.failed:
        typer.echo(f"failed: {url}: {reason}", err=True)
