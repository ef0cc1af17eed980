"""The `catalog` commands: build the corpus catalogue from runs, show one entry, list the top entries."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from dsminer.catalog.build import update_catalog
from dsminer.catalog.known import load_known
from dsminer.catalog.lookup import find_entry, top_entries
from dsminer.catalog.tables import TABLES, is_catalog, read_catalog
from dsminer.catalog.tfds import import_tfds
from dsminer.catalog.tracking import catalog_metrics, log_catalog
from dsminer.cli.errors import user_errors
from dsminer.config import DEFAULT_TRACKING_URI
from dsminer.evaluation.runs import assign_labels, load_run

catalog_app = typer.Typer(no_args_is_help=True, help="The corpus catalogue: one entry per dataset across papers "
                          "and runs, as Parquet tables and a DuckDB database.")

CatalogDir = Annotated[Path | None, typer.Option(
    "--catalog", file_okay=False, help="Catalogue folder [default: the current folder if it is one, else ./catalog].")]
SORT_KEYS = ("papers", "used", "created", "mentioned", "links", "mentions")


def _catalog_dir(given: Path | None) -> Path:
    if given is not None:
        return given
    return Path(".") if is_catalog(Path(".")) else Path("catalog")


@catalog_app.command()
def build(
    runs: Annotated[list[str], typer.Argument(help="Run directories or MLflow run ids whose records to catalogue.")],
    out: Annotated[Path, typer.Option("--out", file_okay=False,
                                      help="Catalogue folder; one already there takes the runs in place.")]
    = Path("catalog"),
    known: Annotated[Path | None, typer.Option(
        "--known", file_okay=False, help="Folder of known-dataset catalogues (*.jsonl: Hugging Face cards, "
                                         "TensorFlow Datasets builders (catalog import-tfds), Papers-with-Code "
                                         "names) for ids and links; optional.")] = None,
    tracking_uri: Annotated[str | None, typer.Option(
        "--tracking-uri", help=f"MLflow tracking URI [default: {DEFAULT_TRACKING_URI}]")] = None,
    log: Annotated[bool, typer.Option("--log/--no-log", help="Log the catalogue to MLflow as a run of its own.")]
    = True,
) -> None:
    """Resolve the runs' records into one entry per dataset (aliases, papers with role and evidence, links with
    their source, platforms, description, counts by role and year) and write them to OUT as Parquet tables and
    catalog.duckdb. Building into an existing catalogue adds the runs; entry ids stay."""
    with user_errors():
        started = time.perf_counter()
        loaded = [load_run(ref, tracking_uri) for ref in runs]
        assign_labels(loaded)
        catalog = update_catalog(out, [(run.label, run.records) for run in loaded], load_known(known))
        seconds = time.perf_counter() - started
        counts = catalog_metrics(catalog)
        typer.echo(f"{counts['entries']:.0f} entries from {counts['records']:.0f} records of {counts['papers']:.0f} "
                   f"papers; {counts.get('entries_with_link', 0):.0f} with a link; {seconds:.1f} s")
        typer.echo(f"wrote {', '.join(f'{table}.parquet' for table in TABLES)} and catalog.duckdb to {out}")
        if log:
            run_id = log_catalog(catalog, out, tracking_uri or DEFAULT_TRACKING_URI,
                                 {"runs": ",".join(runs), "known": str(known or ""), "seconds": f"{seconds:.2f}"})
            typer.echo(f"logged to MLflow run {run_id} (experiment dsminer-catalog)")


@catalog_app.command()
def show(
    name: Annotated[str, typer.Argument(help="A dataset name, any alias or spelling of it, or an entry id.")],
    catalog: CatalogDir = None,
) -> None:
    """Print one entry: its aliases, links with their source, and every paper with its role and evidence."""
    with user_errors():
        typer.echo(find_entry(read_catalog(_catalog_dir(catalog)), name))


@catalog_app.command()
def top(
    by: Annotated[str, typer.Option("--by", help=f"Sort key: {', '.join(SORT_KEYS)}.")] = "papers",
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many entries.")] = 20,
    catalog: CatalogDir = None,
) -> None:
    """List the entries with the most papers (or uses, creations, mentions, links)."""
    with user_errors():
        if by not in SORT_KEYS:
            raise typer.BadParameter(f"--by must be one of {', '.join(SORT_KEYS)}")
        typer.echo(top_entries(read_catalog(_catalog_dir(catalog)), by, limit))


@catalog_app.command("import-tfds")
def import_tfds_command(
    out: Annotated[Path, typer.Option("--out", file_okay=False, help="Known-dataset catalogue folder to write "
                                      "tfds.jsonl into (give it as --known or the catalog_dir setting).")]
    = Path("known"),
    wheel: Annotated[Path | None, typer.Option(
        "--wheel", help="A downloaded tensorflow-datasets wheel or unpacked package folder [default: download the "
                        "wheel, without its dependencies, from the package index].")] = None,
    version: Annotated[str | None, typer.Option("--version", help="The tensorflow-datasets version to download.")]
    = None,
) -> None:
    """Write a known-dataset catalogue of the datasets TensorFlow Datasets describes: each builder's id, the name
    its description gives, its homepage and its catalogue page, read from the builders' source without running
    them."""
    with user_errors():
        path, rows = import_tfds(out, wheel, version)
        named = sum(row["pretty_name"] is not None for row in rows)
        typer.echo(f"wrote {len(rows)} datasets ({named} with a name besides the builder id) to {path} "
                   f"from {rows[0]['source']}")
