"""`dsminer eval-module`: score one step on its own (names, candidates, selection), logged as an MLflow run."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from dsminer.cli.errors import user_errors
from dsminer.cli.optimize import ExcludeOption, documents, excluded_documents
from dsminer.cli.run import backend_flags, configured_backend
from dsminer.config import Settings, load_settings
from dsminer.errors import ConfigError

if TYPE_CHECKING:
    from dsminer.document.pdf import ParsedPaper
    from dsminer.evaluation.gold import GoldPaper
    from dsminer.evidence.ranking import LinearScorer

MODULES = ("names", "candidates", "selection", "resolution")
GOLD_HELP = ("names: sentence-level gold, e.g. ../shared/eval/heddes2021/ner_dataset_recognition_sentences.json.gz; "
             "candidates: SciREX documents (a folder of .json files or a .jsonl file), e.g. "
             "../shared/eval/scirex-text/dev.jsonl; selection: a gold JSONL file with its PDFs in pdfs/ beside it, "
             "optionally with a range of its lines (FILE:1-29), once per corpus, e.g. "
             "../shared/eval/scirex-pdf/gold.jsonl:1-29 and ../shared/eval/fields-dev/gold.jsonl; resolution: "
             "SciREX documents or gold files, once per source, e.g. ../shared/eval/scirex-text/train_docs, "
             "../shared/eval/scirex-text/dev.jsonl, ../shared/eval/scirex-pdf/gold.jsonl:1-29, "
             "../shared/eval/fields-dev/gold.jsonl.")


def register(app: typer.Typer) -> None:
    app.command("eval-module")(eval_module)
    app.command("fit-selection")(fit_selection)
    app.command("fit-ranker")(fit_ranker)
    app.command("fit-candidates")(fit_candidates)


def eval_module(
    module: Annotated[str, typer.Argument(help="The step to score: names (the model's dataset-name step), candidates "
                                               "(the model-free candidate finder and names context) or selection "
                                               "(the model-free selection, given the gold datasets as the names "
                                               "step's answer) or resolution (the catalogue's entity resolution on "
                                               "pairs of mentions labelled same or different dataset).")],
    gold: Annotated[list[str], typer.Option("--gold", help=GOLD_HELP)],
    n: Annotated[int, typer.Option("--n", min=1, help="Sentences to sample (names) or documents to read (candidates).")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed (names).")] = 0,
    exclude: ExcludeOption = None,
    run: Annotated[Optional[str], typer.Option("--run", help="selection: score the names answers this run recorded "
                                                             "(a run directory or MLflow run id) under the current "
                                                             "selection, against each --gold corpus; a name the "
                                                             "run's check step read as something else is left out, "
                                                             "as in the run.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="selection: also write the scores and every dropped "
                                                               "gold dataset with its reason to this JSON file.")] = None,
    program: Annotated[Optional[str], typer.Option("--program", help="selection: the program whose evidence model "
                                                                     "weighs the names, as in a run with it (none: "
                                                                     "no evidence model; default: the program a run "
                                                                     "with this model loads).")] = None,
    config: Annotated[Optional[Path], typer.Option("--config", help="TOML settings file.")] = None,
    api_base: Annotated[Optional[str], typer.Option("--api-base", help="OpenAI-compatible endpoint.")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Served model name.")] = None,
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")] = None,
) -> None:
    """Score one step on its own and log the scores as an MLflow run: the names step's precision, recall and F1
    on sentence-level gold; the share of SciREX documents' salient datasets that the candidate finder offers
    and the names context holds (no model); or the share of the used and created gold datasets a paper writes
    that the selection keeps when the names step answers exactly those, per corpus and per drop reason (no
    model); or the catalogue's pairwise resolution precision and recall per source (no model)."""
    with user_errors():
        if module not in MODULES:
            raise ConfigError(f"unknown module {module!r} (available: {', '.join(MODULES)})")
        if module not in ("selection", "resolution") and len(gold) != 1:
            raise ConfigError(f"eval-module {module} reads one --gold")
        settings = load_settings(config, tracking_uri=tracking_uri, backend=backend_flags(None, api_base, model),
                                 program=program)
        from dsminer.programs.registry import use_rankers

        use_rankers(settings)
        if module == "names":
            scores = run_module_eval(settings, Path(gold[0]), n, seed)
        elif module == "candidates":
            scores = run_candidate_eval(settings, Path(gold[0]), n, excluded_documents(exclude or []))
        elif module == "resolution":
            scores = run_resolution_eval(settings, gold, out)
        else:
            scores = run_selection_eval(settings, gold, out, run)
    typer.echo(" ".join(f"{k}={v}" for k, v in scores.items()))


def read_corpus(spec: str) -> tuple[str, list[tuple[ParsedPaper, GoldPaper]]]:
    """A corpus named `FILE` or `FILE:FIRST-LAST` (1-based lines of the gold file, both included): its label
    (the gold file's folder, with the range) and each gold paper with its parsed PDF from `pdfs/` beside it."""
    from dsminer.document.pdf import parse_pdf
    from dsminer.evaluation.gold import load_gold, ranged_label, ranged_path, take_lines

    path, span = ranged_path(spec)
    gold = take_lines(load_gold(path), span, spec)
    label = ranged_label(path, span)
    pdfs = path.parent / "pdfs"
    missing = [paper.file for paper in gold if not (pdfs / paper.file).is_file()]
    if missing:
        raise ConfigError(f"{spec}: {len(missing)} PDFs are not in {pdfs} (first: {missing[0]})")
    return label, [(parse_pdf(pdfs / paper.file), paper) for paper in gold]


def run_selection_eval(settings: Settings, specs: list[str], out: Path | None, run: str | None) -> dict[str, float]:
    from dsminer.errors import GoldMismatchError
    from dsminer.evaluation.gold import check_gold_fits
    from dsminer.evaluation.runs import load_run
    from dsminer.programs.module_eval import recorded_answers, recorded_checks, score_answers, score_selection
    from dsminer.programs.registry import compiled_program

    compiled = compiled_program(settings)
    weigh = compiled.evidence_model if compiled is not None else None
    events = load_run(run, settings.tracking_uri).events if run else []
    answers = recorded_answers(events) if run else None
    checks = recorded_checks(events) or None  # a run with its check step off recorded none
    if answers is not None and not answers:
        raise GoldMismatchError(f"run {run} recorded no names answers (its events.jsonl has no names result)")
    corpora = [read_corpus(spec) for spec in specs]
    if answers is not None:
        check_gold_fits(list(answers), [gold for _, papers in corpora for _, gold in papers], f"run {run}")
    cap = settings.max_records_per_paper
    scores = {label: score_selection(papers, cap, settings.context_sentences, weigh) for label, papers in corpora}
    metrics = {f"{label}.{key}": float(value) for label, score in scores.items() for key, value in score.metrics().items()}
    if answers is not None:
        metrics.update({f"{label}.run.{key}": float(value) for label, papers in corpora
                        for key, value in score_answers(papers, answers, cap, weigh, checks).items()})
    details = {"metrics": metrics, "dropped": {label: score.drops for label, score in scores.items()}}
    params = {"gold": " ".join(specs), "cap": cap, "run": run or "",
              "evidence_model": str(compiled.path) if weigh is not None else "none"}
    _log_scores(settings, "selection", len(corpora), params, details, out)
    return metrics


def run_resolution_eval(settings: Settings, specs: list[str], out: Path | None) -> dict[str, float]:
    """Pairwise resolution scores per source and, with several, over all of them pooled ("all"), with the records'
    aliases and with names only."""
    from dsminer.evaluation.resolution import pair_scores, read_labelled

    metrics: dict[str, float] = {}
    wrong: dict[str, list[dict[str, str]]] = {}
    sources = [read_labelled(spec) for spec in specs]
    if len(sources) > 1:
        sources.append(("all", [mention for _, mentions in sources for mention in mentions]))
    for label, mentions in sources:
        wrong[label] = []
        metrics.update({f"{label}.{key}": value for key, value in pair_scores(mentions, True, wrong[label]).items()})
        metrics.update({f"{label}.names_only.{key}": value
                        for key, value in pair_scores(mentions, False).items() if key in ("precision", "recall")})
    _log_scores(settings, "resolution", len(specs), {"gold": " ".join(specs)},
                {"metrics": metrics, "wrong_pairs": wrong}, out)
    return metrics


def _log_scores(settings: Settings, module: str, sources: int, params: dict, details: dict, out: Path | None) -> None:
    """Log a model-free module evaluation as an MLflow run (parameters, `details["metrics"]`, all of `details` as
    `<module>.json`), and write `details` to `out` when given."""
    import mlflow

    from dsminer import tracking

    experiment_id = tracking.use_experiment(settings.tracking_uri, settings.experiment)
    with mlflow.start_run(run_name=f"eval-module-{module}-{sources}", experiment_id=experiment_id,
                          tags={"kind": "module-eval", "module": module}):
        mlflow.log_params({"module": module, **params})
        mlflow.log_metrics({re.sub(r"[^\w\-. /]", "_", key): value for key, value in details["metrics"].items()})
        mlflow.log_dict(details, f"{module}.json")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(details, indent=1), encoding="utf-8")


def run_candidate_eval(settings: Settings, path: Path, n: int, excluded: set[str]) -> dict[str, float]:
    import mlflow

    from dsminer import tracking
    from dsminer.programs.module_eval import score_candidates

    docs = documents(path, excluded, n)
    experiment_id = tracking.use_experiment(settings.tracking_uri, settings.experiment)
    with mlflow.start_run(run_name=f"eval-module-candidates-{len(docs)}", experiment_id=experiment_id,
                          tags={"kind": "module-eval", "module": "candidates"}):
        mlflow.log_params({"module": "candidates", "gold": str(path), "n": n, "excluded_documents": len(excluded),
                           "context_sentences": settings.context_sentences})
        scores = score_candidates(docs, settings.context_sentences)
        mlflow.log_metrics({f"candidates.{k}": float(v) for k, v in scores.items()})
    return scores


def run_module_eval(settings: Settings, gold: Path, n: int, seed: int) -> dict[str, float]:
    import mlflow

    from dsminer import tracking
    from dsminer.evaluation.sentence_gold import load_sentence_gold, sample_examples
    from dsminer.programs.module_eval import evaluate_name_step

    examples = sample_examples(load_sentence_gold(gold), n, seed)
    experiment_id = tracking.use_experiment(settings.tracking_uri, settings.experiment)
    with configured_backend(settings) as backend, mlflow.start_run(
            run_name=f"eval-module-names-{n}", experiment_id=experiment_id, tags={"kind": "module-eval", "module": "names"}):
        mlflow.log_params({"module": "names", "gold": str(gold), "n": n, "seed": seed, "backend.model": backend.model,
                           "adapter": settings.adapter})
        scores = evaluate_name_step(examples)
        mlflow.log_metrics({f"names.{k}": float(v) for k, v in scores.items()})
    return scores


def fit_selection(
    runs: Annotated[list[str], typer.Option("--run", help="A run (directory or MLflow run id) whose recorded names "
                                                          "answers to learn from; repeat for several.")],
    gold: Annotated[list[str], typer.Option("--gold", help="The gold of the runs' papers: a gold JSONL file with its "
                                                           "PDFs in pdfs/ beside it, optionally FILE:FIRST-LAST; "
                                                           "repeat for several corpora.")],
    out: Annotated[Path, typer.Option("--out", help="Program file to write: the base program with the fitted "
                                                    "evidence model.")],
    program: Annotated[Optional[Path], typer.Option("--program", help="Base program file whose steps are kept "
                                                                      "(default: the bundled program).")] = None,
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")] = None,
) -> None:
    """Fit the evidence model that weighs the datasets the names step decides (a logistic model over how the paper
    writes each name, the candidate ranker's log-odds of it refitted without its corpus, and what the model said of
    it) on runs' recorded answers and their gold, and store it in a program file with its cross-validated dev
    scores. A --gold corpus that no run answered still trains the refitted rankers. Fit it on runs of the model it
    is for: `run --program FILE` then uses it for that model's answers."""
    with user_errors():
        from dsminer.errors import GoldMismatchError
        from dsminer.evaluation.gold import check_gold_fits
        from dsminer.evaluation.runs import load_run
        from dsminer.mentions.evidence_model import fit_evidence_model
        from dsminer.programs.compiled import bundled_program_path, save_evidence_model
        from dsminer.programs.module_eval import evidence_examples, recorded_answers

        corpora = [read_corpus(spec) for spec in gold]
        models, answered = set(), []
        for ref in runs:
            run = load_run(ref, tracking_uri)
            models.add(str(run.manifest.get("model")))
            answers = recorded_answers(run.events)
            if not answers:
                raise GoldMismatchError(f"run {ref} recorded no names answers (its events.jsonl has no names result)")
            check_gold_fits(list(answers), [paper for _, papers in corpora for _, paper in papers], f"run {ref}")
            answered.append(answers)
        phrase_scores = held_out_scores(dict(corpora))
        examples = [example for answers in answered for _, papers in corpora
                    for example in evidence_examples(papers, answers, phrase_scores)]
        base = program or bundled_program_path()
        if base is None:
            raise ConfigError("no base program: pass --program")
        about = {"runs": runs, "gold": gold, "models": sorted(models)}
        try:
            model = fit_evidence_model(examples, about=about)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        save_evidence_model(base, out, model)
    fitted = model.fitted
    typer.echo(f"wrote {out}: {fitted['examples']} names ({fitted['datasets']} datasets), threshold "
               f"{model.threshold:.3f}; cross-validated precision {fitted['precision_cv']} recall {fitted['recall_cv']} "
               f"F1 {fitted['f1_cv']} (keeping all: precision {fitted['precision_all']})")


def held_out_scores(corpora: dict[str, list[tuple[ParsedPaper, GoldPaper]]]) -> dict[str, dict[str, float]]:
    """Each gold paper's phrase log-odds under the candidate ranker in use refitted (at its strength) without the
    paper's corpus; none without a ranker."""
    from dsminer.evidence.candidate_ranker import active_candidate_ranker
    from dsminer.programs.candidate_fit import held_out_phrase_scores

    ranker = active_candidate_ranker()
    if ranker is None:
        return {}
    try:
        return held_out_phrase_scores(corpora, float(ranker.about.get("strength") or 0.03))
    except ValueError as exc:
        raise ConfigError(f"too few examples to refit the candidate ranker without each corpus ({exc})") from None


FIT_GOLD_HELP = ("Papers whose datasets are known: a gold JSONL file with its PDFs in pdfs/ beside it, optionally "
                 "FILE:FIRST-LAST; repeat for several corpora (each is held out in turn).")


def fit_ranker(
    gold: Annotated[list[str], typer.Option("--gold", help=FIT_GOLD_HELP)],
    out: Annotated[Path, typer.Option("--out", help="Sentence ranker file to write; a run reads it with "
                                                    "sentence_ranker = FILE in its settings.")],
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")] = None,
) -> None:
    """Fit the sentence ranker that chooses what the names step reads (a logistic model over a sentence's dataset
    cues, section, place and lower-case words; never names) on papers with gold datasets. Each corpus is held out
    in turn to choose the regularisation and to report the share of its used and created gold datasets that the
    names context holds, beside the share under the ranker in use. Logged as an MLflow run."""
    from dsminer.programs.ranker_fit import fit_ranker as fit

    ranker = _fit_and_log("ranker", fit, gold, out, tracking_uri)
    shares = ", ".join(f"{label} {scores['context_share']} (before {scores['context_share_before']})"
                       for label, scores in ranker.about["held_out"].items())
    typer.echo(f"wrote {out}: {ranker.about['sentences']} sentences, {len(ranker.weights)} weights, strength "
               f"{ranker.about['strength']}; held out, the names context holds: {shares}")


def fit_candidates(
    gold: Annotated[list[str], typer.Option("--gold", help=FIT_GOLD_HELP)],
    out: Annotated[Path, typer.Option("--out", help="Candidate ranker file to write; a run reads it with "
                                                    "candidate_ranker = FILE in its settings.")],
    tracking_uri: Annotated[Optional[str], typer.Option("--tracking-uri", help="MLflow tracking URI.")] = None,
) -> None:
    """Fit the candidate ranker that chooses which names the names step is offered (a logistic model over how a
    name-shaped phrase is written, how the paper writes about it and the lower-case words around it; never names)
    on papers with gold datasets. Each corpus is held out in turn to choose the regularisation and to report the
    share of its used and created gold datasets offered, beside the share under the finder as it runs. Logged as an
    MLflow run."""
    from dsminer.programs.candidate_fit import fit_candidate_ranker

    ranker = _fit_and_log("candidate-ranker", fit_candidate_ranker, gold, out, tracking_uri)
    shares = ", ".join(f"{label} {scores['candidate_share']} (before {scores['candidate_share_before']})"
                       for label, scores in ranker.about["held_out"].items())
    typer.echo(f"wrote {out}: {ranker.about['phrases']} phrases, {len(ranker.weights)} weights, strength "
               f"{ranker.about['strength']}; held out, the finder offers: {shares}")


def _fit_and_log(module: str, fit: Callable[[dict], LinearScorer], gold: list[str], out: Path,
                 tracking_uri: str | None) -> LinearScorer:
    """Fit a ranker on the gold corpora, write it to `out` and log its held-out figures as an MLflow run."""
    with user_errors():
        settings = load_settings(None, tracking_uri=tracking_uri)
        corpora = dict(read_corpus(spec) for spec in gold)
        try:
            ranker = fit(corpora)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        out.parent.mkdir(parents=True, exist_ok=True)
        ranker.save(out)
        metrics = {f"{label}.{key}": value for label, scores in ranker.about["held_out"].items()
                   for key, value in scores.items() if value is not None}
        _log_scores(settings, module, len(gold), {"gold": " ".join(gold), "strength": ranker.about["strength"]},
                    {"metrics": metrics, "about": dict(ranker.about)}, None)
    return ranker
