"""`dsminer experiment`: several conditions as child runs of one parent run."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Optional

import typer

from dsminer.cli.errors import user_errors
from dsminer.cli.run import (
    EXECUTOR_HELP,
    PROGRAM_HELP,
    RAY_ADDRESS_HELP,
    backend_flags,
    configured_backend,
    model_info,
    progress_bar,
)
from dsminer.config import VARIANTS, Settings, load_settings, variant_overrides
from dsminer.errors import ConfigError


def register(app: typer.Typer) -> None:
    app.command("experiment")(experiment)


def experiment(
    pdf_dir: Annotated[Path, typer.Argument(help="Folder of paper PDFs.")],
    conditions: Annotated[str, typer.Option("--conditions", help=f"Comma-separated conditions or named variants ({', '.join(VARIANTS)}), run in order on the same corpus and config.")] = "s0,s1a,s1b",
    gold: Annotated[Optional[Path], typer.Option("--gold", help="Gold JSONL: each run is evaluated and recall is compared.")] = None,
    config: Annotated[Optional[Path], typer.Option("--config", help="TOML settings file.")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", help="Process at most N papers.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Experiment folder (default runs/<time>-experiment); one subfolder per condition.")] = None,
    api_base: Annotated[Optional[str], typer.Option("--api-base", help="OpenAI-compatible endpoint (implies the openai backend).")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Served model name.")] = None,
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", help="Papers processed at once in each condition (default 1).")] = None,
    executor: Annotated[Optional[str], typer.Option("--executor", help=EXECUTOR_HELP)] = None,
    ray_address: Annotated[Optional[str], typer.Option("--ray-address", help=RAY_ADDRESS_HELP)] = None,
    program: Annotated[Optional[str], typer.Option("--program", help=PROGRAM_HELP)] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar over papers.")] = True,
) -> None:
    """Run several conditions on one corpus as child runs of one MLflow parent run, then evaluate and compare."""
    with user_errors():
        backend = backend_flags(None, api_base, model)
        settings = [load_settings(config, **variant_overrides(c), limit=limit, tracking_uri=tracking_uri,
                                  backend=backend, workers=workers, executor=executor, ray_address=ray_address,
                                  program=program)
                    for c in conditions.split(",") if c.strip()]
        folder = out or Path("runs") / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-experiment"
        summary = run_experiment(settings, pdf_dir, folder, gold, progress)
    typer.echo(summary)


def run_experiment(settings: list[Settings], pdf_dir: Path, folder: Path, gold: Path | None, progress: bool) -> str:
    """The conditions as nested runs under one parent, then the comparison logged to the parent."""
    import mlflow

    from dsminer import tracking
    from dsminer.corpus.local import load_corpus
    from dsminer.programs.registry import build_program
    from dsminer.run.harness import run_condition

    if not settings:
        raise ConfigError("--conditions names no condition")
    settings = [_in_experiment(s, folder) for s in settings]
    base = settings[0]
    corpus = load_corpus(pdf_dir, base.metadata_file)[: base.limit]
    if gold is not None:  # before any model call: a gold that fits none of the papers is a mistake
        from dsminer.evaluation.gold import check_gold_fits, load_gold

        check_gold_fits([paper.path.name for paper in corpus], load_gold(gold), f"the corpus {pdf_dir}")
    programs = [build_program(s) for s in settings]
    experiment_id = tracking.use_experiment(base.tracking_uri, base.experiment)
    with configured_backend(base) as backend, mlflow.start_run(
            run_name=folder.name, experiment_id=experiment_id, tags={"kind": "experiment"}) as parent:
        mlflow.log_params({"conditions": ",".join(s.label for s in settings), "corpus": str(pdf_dir),
                           "papers": len(corpus), "backend.model": backend.model})
        for each, program in zip(settings, programs):
            typer.echo(f"condition {each.label}")
            run_condition(each, corpus, program, backend.lm, model_info(backend),
                          progress_bar if progress else None, nested=True)
        return compare_experiment(folder, [s.label for s in settings], gold, parent.info.run_id)


def _in_experiment(settings: Settings, folder: Path) -> Settings:
    """A condition's settings inside the experiment folder; each agent condition keeps its own memory
    unless one memory file is configured, so one condition's lessons do not leak into another's run."""
    memory_path = settings.agent.memory_path or folder / f"memory-{settings.label}.jsonl"
    agent = settings.agent.model_copy(update={"memory_path": memory_path})
    return settings.model_copy(update={"out_dir": folder / settings.label, "agent": agent})


def compare_experiment(folder: Path, conditions: list[str], gold: Path | None, parent_id: str) -> str:
    """Evaluate each run against the gold (logged on the run), compare them, write the conditions' HTML report
    side by side; log the files to the parent."""
    import mlflow

    from dsminer.evaluation import mlflow_log
    from dsminer.evaluation.compare import (
        compare_runs,
        comparison_metrics,
        markdown_table,
        paired_markdown,
        write_comparison,
    )
    from dsminer.evaluation.gold import load_gold, score_run
    from dsminer.evaluation.report import build_report
    from dsminer.evaluation.runs import assign_labels, read_run_dir

    runs = [read_run_dir(folder / c, run_id=_run_id(folder / c)) for c in conditions]
    assign_labels(runs)
    gold_papers = load_gold(gold) if gold else None
    uri = mlflow.get_tracking_uri()
    if gold_papers:
        for run in runs:
            mlflow_log.log_metrics(run.run_id, score_run(run, gold_papers).metrics(), uri, prefix="gold.")
    comparison = compare_runs(runs, gold_papers)
    written = write_comparison(comparison, folder / "comparison")
    mlflow.log_metrics(comparison_metrics(comparison))
    for path in written:
        mlflow.log_artifact(str(path), artifact_path="comparison")
    report = build_report(runs, folder / "report", gold_papers)["index"]
    mlflow.log_artifacts(str(report.parent), artifact_path="report")
    table = markdown_table(comparison.table.drop(columns=["condition", "run_id"]).T, "metric")
    table += "\n\n" + paired_markdown(comparison) if comparison.paired else ""
    return (f"{table}\n\nwrote {folder / 'comparison'} and the report {report} "
            f"(MLflow parent run {parent_id})")


def _run_id(run_dir: Path) -> str | None:
    from dsminer.store import read_manifest

    return ((read_manifest(run_dir / "manifest.json") or {}).get("mlflow") or {}).get("run_id")
