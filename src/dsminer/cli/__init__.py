"""The `dsminer` command line: the only place that reads the environment, sets log handlers and
configures DSPy."""

from __future__ import annotations

import os

# DSPy refreshes model metadata over the network on first use; runs must not wait on that offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import logging  # noqa: E402
from typing import Annotated  # noqa: E402

import dspy  # noqa: E402,F401  (imported before the log levels are set: DSPy and MLflow set their own on import)
import mlflow  # noqa: E402,F401
import typer  # noqa: E402

from dsminer.cli import eval_module, evaluate, experiment, optimize, run  # noqa: E402
from dsminer.cli.catalog import catalog_app  # noqa: E402
from dsminer.cli.corpus import corpus_app  # noqa: E402

app = typer.Typer(
    help="Extract the datasets scholarly papers use or release, as evidence-backed JSONL records.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details.")] = False) -> None:
    """dsminer: one JSONL record per (paper, dataset), with each run logged to MLflow."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("LiteLLM", "litellm", "httpx", "mlflow", "alembic", "dspy"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.ERROR)


run.register(app)
evaluate.register(app)
experiment.register(app)
eval_module.register(app)
optimize.register(app)
app.add_typer(corpus_app, name="corpus",
              help="Build a corpus: download a conference's papers with metadata, or fetch the PDFs a manifest names.")
app.add_typer(catalog_app, name="catalog", help="The corpus catalogue: one entry per dataset across papers and runs.")
