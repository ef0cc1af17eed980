"""`dsminer optimize`: compile the names and detail steps against SciREX gold into a program file."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from dsminer.cli.errors import user_errors
from dsminer.cli.run import backend_flags, configured_backend
from dsminer.config import Settings, load_settings
from dsminer.errors import ConfigError

if TYPE_CHECKING:
    from dsminer.backend.lm import Backend
    from dsminer.evaluation.scirex import ScirexPaper
    from dsminer.evaluation.sentence_gold import SentenceExample
    from dsminer.programs.compiled import CompiledProgram

OPTIMIZER_HELP = ("labeled (the training examples' own answers as demonstrations; no model calls), bootstrap "
                  "(the model's answers that score well), mipro (instructions and demonstrations searched over "
                  "trials) or gepa (instructions evolved from the metric's feedback).")
TRAIN_HELP = ("Training examples: SciREX documents (a folder of *.json, one document's .json or a .jsonl "
              "file), or for names a sentence-level gold file (.json.gz or .json, e.g. heddes2021).")
BUDGET_HELP = "Bound on the work: training examples tried (bootstrap), trials (mipro), metric calls (gepa)."
DEMO_CHARS_HELP = ("Context size of a training example (what a demonstration costs in the prompt); dev examples "
                   "read the run's.")
CATALOG_HELP = "Dataset catalogue folder (*.jsonl): the kinds of the names that training answers label; optional."
EXCLUDE_HELP = ("JSONL whose rows name documents never to use (scirex_doc_id or doc_id), e.g. the scirex-pdf "
                "manifest: papers you test on must not be compiled on.")


DEV_SKIP_HELP = ("Leave out the first N dev documents (those a compile chose its program on), to score on "
                 "documents it never saw.")

# the options both commands take
ExcludeOption = Annotated[Optional[list[Path]], typer.Option("--exclude", help=EXCLUDE_HELP)]
CatalogOption = Annotated[Optional[Path], typer.Option("--catalog", help=CATALOG_HELP)]
ConfigOption = Annotated[Optional[Path], typer.Option("--config", help="TOML settings file, as for run.")]
BackendOption = Annotated[Optional[str], typer.Option("--backend", help="local (embedded model, default) or openai.")]
ApiBaseOption = Annotated[Optional[str], typer.Option("--api-base", help="OpenAI-compatible endpoint (implies --backend "
                                                                       "openai).")]
ModelOption = Annotated[Optional[str], typer.Option("--model", help="Served model name (openai) or alias (local).")]
TrackingOption = Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")]
ExperimentOption = Annotated[Optional[str], typer.Option("--experiment", help="MLflow experiment name (default "
                                                                             "dsminer).")]


def register(app: typer.Typer) -> None:
    app.command("optimize")(optimize)
    app.command("score-program")(score_program)


def optimize(
    train: Annotated[Path, typer.Option("--train", help=TRAIN_HELP)],
    dev: Annotated[Path, typer.Option("--dev", help="SciREX dev documents (.jsonl or folder): the score before and after.")],
    module: Annotated[str, typer.Option("--module", help="Step to compile: names, details, reflect (the agent's model reflection) or all.")] = "names",
    optimizer: Annotated[str, typer.Option("--optimizer", help=OPTIMIZER_HELP)] = "labeled",
    budget: Annotated[int, typer.Option("--budget", min=1, help=BUDGET_HELP)] = 16,
    demos: Annotated[int, typer.Option("--demos", min=0, help="Demonstrations per step, at most.")] = 2,
    demo_chars: Annotated[int, typer.Option("--demo-chars", min=200, help=DEMO_CHARS_HELP)] = 1500,
    exclude: ExcludeOption = None,
    train_limit: Annotated[Optional[int], typer.Option("--train-limit", min=1, help="Use the first N training documents.")] = None,
    dev_limit: Annotated[Optional[int], typer.Option("--dev-limit", min=1, help="Score on the first N dev documents.")] = None,
    catalog: CatalogOption = None,
    out: Annotated[Path, typer.Option("--out", help="Program file to write (JSON).")] = Path("programs/compiled.json"),
    config: ConfigOption = None,
    backend: BackendOption = None,
    api_base: ApiBaseOption = None,
    model: ModelOption = None,
    tracking_uri: TrackingOption = None,
    experiment: ExperimentOption = None,
) -> None:
    """Compile a step for the configured model: score it on the dev documents, compile it on the training
    documents, score it again, and write the program file (`run --program FILE` loads it into any condition).
    The compile is an MLflow run with the optimiser's settings, the dev scores and the file as an artifact."""
    with user_errors():
        settings = load_settings(config, tracking_uri=tracking_uri, experiment=experiment, catalog_dir=catalog,
                                 backend=backend_flags(backend, api_base, model))
        excluded = excluded_documents(exclude or [])
        sentences = sentence_gold(train, train_limit) if is_sentence_gold(train) else []
        train_docs = [] if sentences else documents(train, excluded, train_limit)
        dev_docs = documents(dev, excluded, dev_limit)
        scores = compile_program(settings, module, optimizer, budget, demos, demo_chars, train_docs, dev_docs,
                                 out, {"train": str(train), "dev": str(dev), "excluded_documents": len(excluded),
                                       "train_sentences": len(sentences)}, sentences)
    for step, (before, after) in scores.items():
        typer.echo(f"{step}: dev score {before:.3f} uncompiled, {after:.3f} compiled ({optimizer})")
    typer.echo(f"program: {out} (run --program {out})")


def score_program(
    program: Annotated[Path, typer.Argument(help="Program file written by `dsminer optimize`.")],
    dev: Annotated[Path, typer.Option("--dev", help="SciREX dev documents (.jsonl or folder).")],
    exclude: ExcludeOption = None,
    dev_skip: Annotated[int, typer.Option("--dev-skip", min=0, help=DEV_SKIP_HELP)] = 0,
    dev_limit: Annotated[Optional[int], typer.Option("--dev-limit", min=1, help="Score on N dev documents.")] = None,
    catalog: CatalogOption = None,
    config: ConfigOption = None,
    backend: BackendOption = None,
    api_base: ApiBaseOption = None,
    model: ModelOption = None,
    tracking_uri: TrackingOption = None,
    experiment: ExperimentOption = None,
) -> None:
    """Score each step of a program file against the uncompiled step on dev documents, with the optimiser's
    metric: whether a program still helps on documents it was not chosen on, or with another model. The scores
    are an MLflow run (tag kind=score-program) with the program file's hash."""
    with user_errors():
        from dsminer.programs.compiled import load_program

        settings = load_settings(config, tracking_uri=tracking_uri, experiment=experiment, catalog_dir=catalog,
                                 backend=backend_flags(backend, api_base, model))
        compiled = load_program(program)
        dev_docs = documents(dev, excluded_documents(exclude or []), dev_limit, dev_skip)
        scores = score_steps(settings, compiled, dev_docs, {"dev": str(dev), "dev_skip": dev_skip})
    recorded = compiled.meta.get("dev_scores") or {}
    for step, (before, after) in scores.items():
        was = recorded.get(step, {}).get("compiled")
        note = f" (compiled at {was:.3f} on its own dev set)" if isinstance(was, (int, float)) else ""
        typer.echo(f"{step}: dev score {before:.3f} uncompiled, {after:.3f} with {program.name}{note} "
                   f"on {len(dev_docs)} document{'' if len(dev_docs) == 1 else 's'}")


def score_steps(settings: Settings, compiled: CompiledProgram, dev: list[ScirexPaper],
                sources: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Dev scores of each step of `compiled`, uncompiled and with the program, under an MLflow run."""
    import mlflow

    from dsminer.mentions.catalog import load_catalog_kinds
    from dsminer.programs.compiled import apply_step, program_params
    from dsminer.programs.compiling import dev_score, step_tasks

    tasks = step_tasks(tuple(compiled.steps), [], dev, settings.max_records_per_paper, 0,
                       load_catalog_kinds(settings.catalog_dir))
    params = {**program_params(compiled), **sources, "dev_documents": len(dev), "catalog": str(settings.catalog_dir),
              "program_model": compiled.meta.get("model", "unknown")}
    scores = {}
    with backend_run(settings, f"score-{compiled.path.stem}", "score-program", params):
        for task in tasks:
            before = dev_score(task.student(), task, display_progress=True)
            loaded = task.student()
            apply_step(loaded, task.step, compiled.steps[task.step])
            after = dev_score(loaded, task, display_progress=True)
            scores[task.step] = (before, after)
            mlflow.log_metrics({f"{task.step}.dev_uncompiled": before, f"{task.step}.dev_compiled": after})
    return scores


def excluded_documents(files: list[Path]) -> set[str]:
    """Document ids listed in the `--exclude` files."""
    ids: set[str] = set()
    for path in files:
        if not path.is_file():
            raise ConfigError(f"--exclude file not found: {path}")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise ConfigError(f"{path}:{number}: not JSON") from None
            doc_id = row.get("scirex_doc_id") or row.get("doc_id") if isinstance(row, dict) else None
            if doc_id:
                ids.add(str(doc_id))
    return ids


def is_sentence_gold(path: Path) -> bool:
    """Whether `--train` is a sentence-level gold file (Heddes et al.: `.json.gz`, or a `.json` whose object
    holds `documents`), not SciREX documents (a folder, a `.jsonl`, or one document's `.json`)."""
    if not path.is_file() or not path.name.endswith((".json.gz", ".json")):
        return False
    if path.name.endswith(".gz"):
        return True
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False  # the SciREX reader says what is wrong with it
    return isinstance(data, dict) and "documents" in data


def sentence_gold(path: Path, limit: int | None) -> list[SentenceExample]:
    """The annotated sentences of a sentence-level gold file that name a dataset, a sample of `limit`."""
    from dsminer.evaluation.sentence_gold import load_sentence_gold, sample_examples

    sentences = [sentence for sentence in load_sentence_gold(path) if sentence.names]
    return sample_examples(sentences, limit) if limit else sentences


def documents(path: Path, excluded: set[str], limit: int | None, skip: int = 0) -> list[ScirexPaper]:
    """The SciREX documents at `path` outside `excluded`, `limit` of them after the first `skip`; at least one."""
    from dsminer.evaluation.scirex import load_scirex

    docs = load_scirex(path, None if limit is None else skip + limit, excluded)[skip:]
    if not docs:
        raise ConfigError(f"no SciREX documents to use in {path}")
    return docs


def compile_program(settings: Settings, module: str, optimizer: str, budget: int, demos: int, demo_chars: int,
                    train: list[ScirexPaper], dev: list[ScirexPaper], out: Path, sources: dict[str, Any],
                    sentences: list[SentenceExample] | None = None) -> dict[str, tuple[float, float]]:
    """Compile each step of `module` under an MLflow run and write the program file; dev scores per step."""
    from importlib.metadata import version

    import mlflow

    from dsminer.mentions.catalog import load_catalog_kinds
    from dsminer.programs.compiled import save_program
    from dsminer.programs.compiling import check_optimizer, compile_step, dev_score, step_tasks
    from dsminer.run.usage import all_calls_meter

    tasks = step_tasks(module, train, dev, settings.max_records_per_paper, demo_chars,
                       load_catalog_kinds(settings.catalog_dir), sentences or ())
    check_optimizer(optimizer, tasks)
    params = {"module": module, "optimizer": optimizer, "budget": budget, "demos": demos, "demo_chars": demo_chars,
              "train_documents": len(train), "dev_documents": len(dev),
              "catalog": str(settings.catalog_dir), **sources}
    with backend_run(settings, f"optimize-{module}-{optimizer}", "optimize", params) as backend:
        compiled, scores = {}, {}
        for task in tasks:
            before = dev_score(task.student(), task, display_progress=True)
            meter, started = all_calls_meter(), time.monotonic()
            compiled[task.step] = compile_step(task, optimizer, demos, budget, backend.lm)
            cost, seconds = meter.take(), time.monotonic() - started
            after = dev_score(compiled[task.step], task, display_progress=True)
            scores[task.step] = (before, after)
            mlflow.log_metrics({f"{task.step}.dev_uncompiled": before, f"{task.step}.dev_compiled": after,
                                f"{task.step}.demos": len(compiled[task.step].demos),
                                f"{task.step}.compile_lm_calls": cost.calls,
                                f"{task.step}.compile_prompt_tokens": cost.prompt_tokens,
                                f"{task.step}.compile_s": round(seconds, 1)})
            log_trials(task.step, compiled[task.step])
            calls = f"{cost.calls} model call{'' if cost.calls == 1 else 's'}"
            typer.echo(f"{task.step}: compiled with {calls} ({cost.prompt_tokens:,} prompt tokens) in {seconds:.0f} s, "
                       "besides the two dev passes")
        meta = {**params, "model": backend.model, "backend": backend.kind, "dsminer": version("dsminer"),
                "dev_scores": {step: {"uncompiled": b, "compiled": a} for step, (b, a) in scores.items()}}
        digest = save_program(out, compiled, meta)
        mlflow.log_param("program_sha256", digest)
        mlflow.log_artifact(str(out))
    return scores


@contextmanager
def backend_run(settings: Settings, name: str, kind: str, params: dict[str, Any]) -> Iterator[Backend]:
    """The configured backend, open, inside an MLflow run tagged `kind` that holds `params` and the model's."""
    import mlflow

    from dsminer import tracking

    experiment_id = tracking.use_experiment(settings.tracking_uri, settings.experiment)
    with configured_backend(settings) as backend, mlflow.start_run(
            run_name=name, experiment_id=experiment_id, tags={"kind": kind}):
        mlflow.log_params({**params, "backend.model": backend.model, "backend.kind": backend.kind})
        yield backend


def log_trials(step: str, program: Any) -> None:
    """The optimiser's per-trial dev scores, where it keeps them: MIPROv2's trial logs (`dspy.Evaluate`'s
    percentages, of the whole dev set or of a minibatch of it) and GEPA's candidates (from 0 to 1)."""
    import mlflow

    trials = getattr(program, "trial_logs", None) or {}
    for number, trial in sorted(trials.items()):
        for key, metric in (("full_eval_score", "trial_dev_score"), ("mb_score", "trial_minibatch_score")):
            score = trial.get(key) if isinstance(trial, dict) else None
            if score is not None:
                mlflow.log_metric(f"{step}.{metric}", round(float(score) / 100, 4), step=number)
    results = getattr(program, "detailed_results", None)
    for number, score in enumerate(getattr(results, "val_aggregate_scores", None) or []):
        mlflow.log_metric(f"{step}.trial_dev_score", float(score), step=number)
