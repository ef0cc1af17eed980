"""Evaluation commands: summarize, compare, evaluate, report, and the audit group (sample, score)."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from dsminer.catalog.tables import read_catalog
from dsminer.cli.errors import user_errors
from dsminer.config import DEFAULT_TRACKING_URI
from dsminer.document.pdf import ParsedPaper, parse_pdf
from dsminer.errors import DsminerError, PdfReadError
from dsminer.evaluation import mlflow_log
from dsminer.evaluation.audit import carry_verdicts, format_audit_scores, sample_audit, score_audit
from dsminer.evaluation.compare import (
    Comparison,
    compare_runs,
    comparison_metrics,
    markdown_table,
    overlap_frame,
    paired_markdown,
    write_comparison,
)
from dsminer.evaluation.errors import context_coverage, error_counts, error_rows, errors_markdown
from dsminer.evaluation.gold import GoldPaper, GoldScores, format_scores, load_gold, score_run
from dsminer.evaluation.report import build_report, write_audit_sheet
from dsminer.evaluation.runs import RunData, assign_labels, load_run, processed_files
from dsminer.evaluation.summary import format_summary, summarize_run
from dsminer.mentions.catalog import load_catalog_kinds

logger = logging.getLogger(__name__)

TrackingUri = Annotated[str | None, typer.Option(
    "--tracking-uri", help=f"MLflow tracking URI for run ids [default: {DEFAULT_TRACKING_URI}]")]
OutDir = Annotated[Path | None, typer.Option("--out", file_okay=False, help="Folder for the files written.")]
GoldFile = Annotated[Path | None, typer.Option("--gold", help="Gold JSONL file (docs/gold-format.md).")]
LogFlag = Annotated[bool, typer.Option("--log/--no-log", help="Log scores and files to MLflow.")]


def summarize(
    run: Annotated[str, typer.Argument(help="Run directory or MLflow run id.")],
    tracking_uri: TrackingUri = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Print the reference summary of one run."""
    with user_errors():
        summary = summarize_run(load_run(run, tracking_uri))
    typer.echo(json.dumps(summary, indent=2) if as_json else format_summary(summary))


def compare(
    runs: Annotated[list[str], typer.Argument(help="Two or more run directories or MLflow run ids.")],
    gold: GoldFile = None,
    out: OutDir = None,
    tracking_uri: TrackingUri = None,
    parent: Annotated[str | None, typer.Option("--parent", help="Log into this MLflow run.")] = None,
    log: LogFlag = True,
) -> None:
    """Compare runs side by side: metrics table, pairwise overlap, plots; log them to MLflow."""
    with user_errors():
        if len(runs) < 2:
            raise DsminerError("compare needs at least two runs")
        loaded = _load_runs(runs, tracking_uri)
        comparison = compare_runs(loaded, load_gold(gold) if gold else None)
        target = out or _timestamped(Path("comparisons"))
        written = write_comparison(comparison, target)
        _print_comparison(comparison, target)
        if log:
            _log_comparison(comparison, loaded, written, tracking_uri, parent)


def _print_comparison(comparison: Comparison, target: Path) -> None:
    typer.echo(markdown_table(comparison.table.drop(columns=["condition", "run_id"]).T, "metric"))
    typer.echo("")
    typer.echo(markdown_table(overlap_frame(comparison).set_index("a"), "a"))
    if comparison.paired:
        typer.echo("\n" + paired_markdown(comparison))
    typer.echo(f"\nwrote {target}")


def _log_comparison(
    comparison: Comparison, runs: list[RunData], files: list[Path], tracking_uri: str | None, parent: str | None
) -> None:
    """Log the table, plots and per-condition metrics into --parent, else a new "compare" run."""
    tracked = [run for run in runs if run.run_id]
    if parent is None and not tracked:
        typer.echo("not logged to MLflow: no run has an MLflow run id", err=True)
        return
    uri = tracking_uri or (tracked[0].tracking_uri if tracked else None) or DEFAULT_TRACKING_URI
    if parent is not None:
        mlflow_log.check_run(parent, uri)
        target = parent
    else:
        params = {"runs": ",".join(run.run_id or str(run.directory) for run in runs),
                  "labels": ",".join(run.label for run in runs)}
        target = mlflow_log.create_compare_run(uri, tracked[0].run_id or "", params)
    mlflow_log.log_metrics(target, comparison_metrics(comparison), uri)
    mlflow_log.log_files(target, files, uri, "comparison")
    if parent is None:
        mlflow_log.end_run(target, uri)
    typer.echo(f"logged to MLflow run {target}")


def evaluate(
    run: Annotated[str, typer.Argument(help="Run directory or MLflow run id.")],
    gold: Annotated[Path, typer.Option("--gold", help="Gold JSONL file (docs/gold-format.md).")],
    out: OutDir = None,
    tracking_uri: TrackingUri = None,
    pdfs: Annotated[Path | None, typer.Option(
        "--pdfs", file_okay=False, help="Folder of the run's PDFs, to tell parsing losses from the rest "
                                        "[default: the folder the run read, when it still exists].")] = None,
    catalog: Annotated[Path | None, typer.Option(
        "--catalog", file_okay=False, help="Folder of catalogue JSONL files naming known datasets, metrics "
                                           "and tasks, to classify wrong records.")] = None,
    log: LogFlag = True,
) -> None:
    """Score a run against gold datasets: precision, recall, F1, link precision, context coverage, per
    paper; and classify every miss and every wrong record (errors.csv, errors.md)."""
    with user_errors():
        gold_papers = load_gold(gold)
        loaded = load_run(run, tracking_uri)
        scores = score_run(loaded, gold_papers)
        papers = parse_run_papers(loaded, gold_papers, pdfs)
        rows = error_rows(loaded, gold_papers, papers, load_catalog_kinds(catalog))
        metrics = {**scores.metrics(), **context_coverage(loaded, gold_papers, papers),
                   **{f"errors.{key}": float(value) for key, value in error_counts(rows).items()}}
        target = out or _default_out(loaded, "evaluation")
        files = _write_scores(scores, metrics, rows, target)
        typer.echo(format_scores(scores))
        for key in ("context_coverage", "context_coverage_in_text"):
            if key in metrics:
                typer.echo(f"  {key:<18} {metrics[key]:.3f}")
        per_paper = pd.DataFrame(scores.per_paper).set_index("file")
        typer.echo(markdown_table(per_paper[["gold", "records", "correct", "supported", "wrong", "recall"]], "paper"))
        typer.echo("\n" + errors_markdown(rows, scores.label))
        typer.echo(f"wrote {target}")
        if log and loaded.run_id:
            uri = tracking_uri or loaded.tracking_uri or DEFAULT_TRACKING_URI
            mlflow_log.log_metrics(loaded.run_id, metrics, uri, prefix="gold.")
            mlflow_log.log_files(loaded.run_id, files, uri, "evaluation")
            mlflow_log.log_table(loaded.run_id, rows, uri, "evaluation/errors_table.json")
            typer.echo(f"logged gold.* metrics and the error table to MLflow run {loaded.run_id}")
        elif log:
            typer.echo("not logged to MLflow: the run has no MLflow run id", err=True)


def parse_run_papers(run: RunData, gold: list[GoldPaper], pdf_dir: Path | None) -> dict[str, ParsedPaper]:
    """The gold papers the run read, parsed again from `pdf_dir` (or the run's own folder); a paper that
    is no longer there, or no longer parses, is left out."""
    folder = pdf_dir or (Path(run.manifest["corpus_dir"]) if run.manifest.get("corpus_dir") else None)
    if folder is None or not folder.is_dir():
        if pdf_dir is not None:
            raise DsminerError(f"PDF folder not found: {pdf_dir}")
        return {}
    wanted = {paper.file for paper in gold} & set(processed_files(run))
    parsed = {}
    for name in sorted(wanted):
        try:
            parsed[name] = parse_pdf(folder / name)
        except PdfReadError as exc:
            logger.warning("%s", exc)
    return parsed


def _write_scores(scores: GoldScores, metrics: dict[str, float], rows: list[dict[str, str]],
                  out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = out_dir / "scores.json"
    summary.write_text(json.dumps({"label": scores.label, **metrics}, indent=2), encoding="utf-8")
    per_paper = out_dir / "per_paper.csv"
    pd.DataFrame(scores.per_paper).to_csv(per_paper, index=False)
    errors_csv = out_dir / "errors.csv"
    pd.DataFrame(rows, columns=["file", "error", "name", "class"]).to_csv(errors_csv, index=False)
    errors_md = out_dir / "errors.md"
    errors_md.write_text(errors_markdown(rows, scores.label), encoding="utf-8")
    return [summary, per_paper, errors_csv, errors_md]


def report(
    runs: Annotated[list[str], typer.Argument(help="One or more run directories or MLflow run ids.")],
    out: OutDir = None,
    gold: GoldFile = None,
    pdfs: Annotated[Path | None, typer.Option(
        "--pdfs", file_okay=False, help="Folder of the runs' PDFs (default: the folder each run read).")] = None,
    embed: Annotated[bool | None, typer.Option(
        "--embed-images/--image-files", help="Page images inside index.html (one file, shown in the MLflow UI) "
                                             "or beside it in pages/ (default: inside up to 300 pages).")] = None,
    catalog: Annotated[Path | None, typer.Option(
        "--catalog", file_okay=False, help="A catalogue folder (`dsminer catalog build`): adds a Catalogue view, "
                                           "its entries each with the papers that name it and their evidence.")]
    = None,
    tracking_uri: TrackingUri = None,
    log: LogFlag = True,
) -> None:
    """Write a static HTML report (index.html, opens from disk): every record with its evidence page and the
    quote highlighted, the link and where the PDF holds it, which conditions found each dataset, and with
    --gold each record marked correct, supported or wrong and the missed gold datasets; with --catalog, a
    Catalogue view of the corpus catalogue's entries and their papers. Verdicts typed in the page download as a
    sheet for `dsminer audit score`."""
    with user_errors():
        loaded = _load_runs(runs, tracking_uri)
        gold_papers = load_gold(gold) if gold is not None else None
        if pdfs is not None and not pdfs.is_dir():
            raise DsminerError(f"PDF folder not found: {pdfs}")
        catalogue = read_catalog(catalog) if catalog is not None else None
        target = out or (_default_out(loaded[0], "report") if len(loaded) == 1 else _timestamped(Path("reports")))
        built = build_report(loaded, target, gold_papers, pdfs, embed, catalog=catalogue)
        typer.echo(f"{built['records']} records, {built['pages']} page images "
                   f"({'inside index.html' if built['embedded'] else 'in pages/'}), "
                   f"{built['without_image']} records without a page image"
                   + (f", {built['missed']} missed gold datasets" if gold_papers is not None else "")
                   + (f", {len(catalogue.entries)} catalogue entries" if catalogue is not None else ""))
        typer.echo(f"wrote {built['index']}")
        for run in loaded:
            if log and run.run_id:
                uri = tracking_uri or run.tracking_uri or DEFAULT_TRACKING_URI
                mlflow_log.log_dir(run.run_id, target, uri, "report")
                typer.echo(f"logged the report to MLflow run {run.run_id} (artifacts: report/index.html)")


def audit_sample(
    runs: Annotated[list[str], typer.Argument(help="One or more run directories or MLflow run ids.")],
    n: Annotated[int, typer.Option("--n", min=1, help="Rows to sample.")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed.")] = 0,
    out: OutDir = None,
    pdfs: Annotated[Path | None, typer.Option(
        "--pdfs", file_okay=False, help="Folder of the runs' PDFs (default: the folder each run read).")] = None,
    carry: Annotated[Path | None, typer.Option(
        "--carry", dir_okay=False, help="An earlier filled audit.csv: rows of the same paper and dataset take its "
        "verdicts (link verdicts only for the same link), so only new records are left to read.")] = None,
    tracking_uri: TrackingUri = None,
) -> None:
    """Write an annotation sheet of sampled shared and condition-specific records: audit.csv, and audit.html
    with each record beside its highlighted evidence page and a verdict form that downloads the filled sheet."""
    with user_errors():
        loaded = _load_runs(runs, tracking_uri)
        sheet = sample_audit(loaded, n, seed)
        carried = carry_verdicts(sheet, carry) if carry is not None else None
        target = out or (_default_out(loaded[0], "audit") if len(loaded) == 1 else _timestamped(Path("audits")))
        for path in write_audit_sheet(sheet, loaded, target, pdfs):
            typer.echo(f"wrote {path}")
        counts = sheet.groupby(["condition", "category"]).size() if len(sheet) else pd.Series(dtype=int)
        typer.echo(f"{len(sheet)} rows: " + ", ".join(f"{c}/{k} {v}" for (c, k), v in counts.items()))
        if carried is not None:
            left = len(sheet) - carried
            typer.echo(f"verdicts carried from {carry}: {carried} of {len(sheet)} rows; {left} left to read")


def audit_score(
    sheet: Annotated[Path, typer.Argument(help="A filled audit.csv.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as JSON.")] = False,
) -> None:
    """Score a filled audit sheet: precision, link grounding, missing fields, disagreements."""
    with user_errors():
        result = score_audit(sheet)
    typer.echo(json.dumps(result, indent=2) if as_json else format_audit_scores(result))


def _load_runs(refs: list[str], tracking_uri: str | None) -> list[RunData]:
    runs = [load_run(ref, tracking_uri) for ref in refs]
    assign_labels(runs)
    return runs


def _default_out(run: RunData, name: str) -> Path:
    """A folder under the run directory, or a timestamped one in the working directory for MLflow runs."""
    if run.source == "directory":
        return run.directory / name
    return _timestamped(Path(f"{name}s")) / run.label


def _timestamped(base: Path) -> Path:
    return base / datetime.now().strftime("%Y%m%d-%H%M%S")


def register(app: typer.Typer) -> None:
    """Add summarize, compare, evaluate and the audit group to the dsminer app."""
    app.command("summarize")(summarize)
    app.command("compare")(compare)
    app.command("evaluate")(evaluate)
    app.command("report")(report)
    audit_app = typer.Typer(help="Manual validation: sample records, score filled sheets.", no_args_is_help=True)
    audit_app.command("sample")(audit_sample)
    audit_app.command("score")(audit_score)
    app.add_typer(audit_app, name="audit")
