"""`dsminer run`, `dsminer demo` and `dsminer runs`: extraction runs and their listing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from dsminer.cli.errors import user_errors
from dsminer.config import CONDITIONS, Settings, load_settings

if TYPE_CHECKING:
    from dsminer.backend.lm import Backend
    from dsminer.run.harness import RunOutcome


EXECUTOR_HELP = ("local (threads in this process, default) or ray (each paper a Ray task, on a local Ray or the "
                 "cluster at --ray-address; needs pip install 'dsminer\\[ray]').")  # escaped: rich reads [ray] as markup
PROGRAM_HELP = ("Compiled program (dsminer optimize --out FILE) to load into the condition's steps; none runs "
                "uncompiled; default: the program bundled for the default local model, if any.")
RAY_ADDRESS_HELP = "Ray cluster to run on (e.g. auto, or ray://head:10001); default: a local Ray with --workers CPUs."


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("demo")(demo)
    app.command("runs")(runs)


def backend_flags(backend: str | None, api_base: str | None, model: str | None) -> dict[str, str | None]:
    """Backend overrides from flags: an --api-base alone selects the openai backend."""
    return {"kind": backend or ("openai" if api_base else None), "api_base": api_base, "model": model}


def run(
    pdf_dir: Annotated[Path, typer.Argument(help="Folder of paper PDFs (optionally with metadata.jsonl/.csv or <name>.json sidecars).")],
    condition: Annotated[Optional[str], typer.Option("--condition", "-c", help=f"Execution strategy: {', '.join(CONDITIONS)} (default s0).")] = None,
    config: Annotated[Optional[Path], typer.Option("--config", help="TOML settings file; DSMINER_* variables and flags override it.")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", help="Process at most N papers.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Run directory (default runs/<time>-<condition>); an existing one is resumed.")] = None,
    backend: Annotated[Optional[str], typer.Option("--backend", help="local (embedded model, default) or openai (vLLM or any OpenAI-compatible server).")] = None,
    api_base: Annotated[Optional[str], typer.Option("--api-base", help="OpenAI-compatible endpoint, e.g. http://host:8000/v1 (implies --backend openai).")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Served model name (openai) or alias (local).")] = None,
    max_records: Annotated[Optional[int], typer.Option("--max-records", help="Per-paper record cap (default 5).")] = None,
    check_names: Annotated[Optional[bool], typer.Option("--check-names/--no-check-names", help="One short call per kept name (every condition); a name the model reads in its sentence as software, a method, an organisation, ... gives its place to the next (default on).")] = None,
    check_examples: Annotated[Optional[bool], typer.Option("--check-examples/--no-check-examples", help="Show the check step six worked examples (invented names) before each name: more names that are not data are read so, for about 480 prompt tokens more a check with the default model (default off).")] = None,
    metadata: Annotated[Optional[Path], typer.Option("--metadata", help="Paper metadata file (CSV or JSONL keyed by file name).")] = None,
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI (default sqlite:///mlruns/mlflow.db).")] = None,
    experiment: Annotated[Optional[str], typer.Option("--experiment", help="MLflow experiment name (default dsminer).")] = None,
    retry_budget: Annotated[Optional[int], typer.Option("--retry-budget", help="Agent: retries per step (default 2).")] = None,
    quality_threshold: Annotated[Optional[float], typer.Option("--quality-threshold", help="Agent: retry a step scored under this (default 0.6).")] = None,
    memory: Annotated[Optional[bool], typer.Option("--memory/--no-memory", help="Agent: inject proven lessons from memory into retries' prompts (default on).")] = None,
    reflection: Annotated[Optional[str], typer.Option("--reflection", help="Agent: rule, llm or selective (default: the condition's own).")] = None,
    planner: Annotated[Optional[str], typer.Option("--planner", help="S2: llm (the model picks each next tool) or deterministic (a fixed fallback order); default llm.")] = None,
    step_budget: Annotated[Optional[int], typer.Option("--step-budget", help="S2: tool calls per paper (default 40).")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", help="Papers processed at once (default 1); the local model gets as many slots.")] = None,
    executor: Annotated[Optional[str], typer.Option("--executor", help=EXECUTOR_HELP)] = None,
    ray_address: Annotated[Optional[str], typer.Option("--ray-address", help=RAY_ADDRESS_HELP)] = None,
    program: Annotated[Optional[str], typer.Option("--program", help=PROGRAM_HELP)] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar over papers.")] = True,
) -> None:
    """Extract dataset records from every PDF in PDF_DIR under one condition, logged as one MLflow run.

    Exit code 0 when every paper is ok or partial, 2 when some failed (run again with the same --out to
    retry them), 1 on a user error or when the run stopped (the endpoint down)."""
    with user_errors():
        settings = load_settings(
            config, condition=condition, limit=limit, out_dir=out, max_records_per_paper=max_records,
            check_names=check_names, check_examples=check_examples, workers=workers, executor=executor,
            ray_address=ray_address, program=program,
            metadata_file=metadata, tracking_uri=tracking_uri, experiment=experiment,
            backend=backend_flags(backend, api_base, model),
            agent={"retry_budget": retry_budget, "quality_threshold": quality_threshold, "memory": memory,
                   "reflection": reflection, "planner": planner, "step_budget": step_budget},
        )
        outcome = execute(settings, pdf_dir, progress)
    report(outcome)


@contextmanager
def configured_backend(settings: Settings) -> Iterator[Backend]:
    """Open the backend and make it DSPy's LM and adapter for the session: the one `dspy.configure`."""
    import dspy

    from dsminer.backend.adapter import build_adapter
    from dsminer.backend.lm import open_backend

    with open_backend(settings.backend, slots=settings.workers) as backend:
        dspy.configure(lm=backend.lm, adapter=build_adapter(settings))
        yield backend


def model_info(backend: Backend) -> dict[str, str]:
    return {"model": backend.model, "kind": backend.kind, "api_base": backend.api_base}


def execute(settings: Settings, pdf_dir: Path, progress: bool = True) -> RunOutcome:
    """Load the corpus, open the backend and run the condition."""
    from dsminer.corpus.local import load_corpus
    from dsminer.programs.registry import build_program
    from dsminer.run.harness import run_condition

    corpus = load_corpus(pdf_dir, settings.metadata_file)[: settings.limit]
    program = build_program(settings)
    with configured_backend(settings) as backend:
        try:
            return run_condition(settings, corpus, program, backend.lm, model_info(backend),
                                 progress_bar if progress else None)
        except KeyboardInterrupt:
            typer.echo("interrupted: records of finished papers are kept; run again with the same --out to resume", err=True)
            raise typer.Exit(code=130) from None


def progress_bar(papers: Sequence):
    from rich.progress import track

    return track(papers, description="papers", transient=False)


def report(outcome: RunOutcome) -> None:
    """The run's summary lines; exit code 2 when papers failed (a resume processes them again)."""
    m = outcome.metrics
    done = int(m.get("papers_ok", 0)) + int(m.get("papers_partial", 0))
    typer.echo(f"{int(m.get('records', 0))} records from {done} papers "
               f"({int(m.get('papers_partial', 0))} partial, {int(m.get('papers_failed', 0))} failed), "
               f"{m.get('llm_calls_per_paper', 0)} LLM calls and {m.get('seconds_per_paper', 0)} s per paper")
    for failed in outcome.failed:
        typer.echo(f"  {failed['status']}: {failed['file']}: {failed['reason']}")
    typer.echo(f"results: {outcome.out_dir / 'results.jsonl'}")
    typer.echo(f"mlflow run: {outcome.run_id}")
    if m.get("papers_failed"):
        typer.echo(f"{int(m['papers_failed'])} papers failed; run again with --out {outcome.out_dir} to retry them",
                   err=True)
        raise typer.Exit(code=2)


def demo(
    out: Annotated[Path, typer.Option("--out", help="Folder for the sample papers and the demo runs.")] = Path("runs/demo"),
    config: Annotated[Optional[Path], typer.Option("--config", help="TOML settings file.")] = None,
) -> None:
    """Run S0 with the local model on three bundled synthetic papers (a fresh run each time), then write the
    run's corpus catalogue and its HTML report (records and catalogue views) with the sample papers' datasets as
    gold."""
    from dsminer.catalog.build import update_catalog
    from dsminer.catalog.known import load_known
    from dsminer.catalog.tracking import log_catalog
    from dsminer.config import DEFAULT_TRACKING_URI
    from dsminer.demo import write_sample_gold, write_sample_papers
    from dsminer.evaluation import mlflow_log
    from dsminer.evaluation.gold import load_gold
    from dsminer.evaluation.report import build_report
    from dsminer.evaluation.runs import read_run_dir
    from dsminer.run.harness import default_out_dir

    sample_dir = out / "sample-papers"
    with user_errors():
        write_sample_papers(sample_dir)
        run_dir = default_out_dir("s0", parent=out)
        settings = load_settings(config, condition="s0", out_dir=run_dir, backend={"kind": "local"})
        outcome = execute(settings, sample_dir)
        gold = load_gold(write_sample_gold(out / "sample-gold.jsonl"))
        run = read_run_dir(outcome.out_dir, outcome.run_id)
        catalog_dir = outcome.out_dir / "catalog"
        catalog = update_catalog(catalog_dir, [(run.label, run.records)], load_known(settings.catalog_dir))
        built = build_report([run], outcome.out_dir / "report", gold, catalog=catalog)
        uri = settings.tracking_uri or DEFAULT_TRACKING_URI
        if outcome.run_id:
            mlflow_log.log_dir(outcome.run_id, outcome.out_dir / "report", uri, "report")
            log_catalog(catalog, catalog_dir, uri, {"runs": str(outcome.out_dir)})
    typer.echo(f"catalogue: {catalog_dir} ({len(catalog.entries)} entries; dsminer catalog top --catalog {catalog_dir})")
    typer.echo(f"report: {built['index']} (open it in a browser; also in the MLflow run's artifacts)")
    report(outcome)
    typer.echo("see the run in the MLflow UI: make mlflow-ui, then open http://127.0.0.1:5000")


def runs(
    experiment: Annotated[str, typer.Option("--experiment", help="MLflow experiment name.")] = "dsminer",
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")] = None,
    n: Annotated[int, typer.Option("--n", help="How many recent runs.")] = 10,
) -> None:
    """List recent runs with their key metrics."""
    from dsminer.evaluation.listing import recent_runs

    with user_errors():
        table = recent_runs(tracking_uri, experiment, n)
    typer.echo(table)
