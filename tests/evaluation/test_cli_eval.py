"""The evaluation commands through CliRunner: output, files, MLflow logging and one-line errors."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from dsminer.cli.evaluate import register

runner = CliRunner()
GOLD_LINE = {"file": "a.pdf", "title": "Alpha", "datasets": [{"name": "MNIST", "aliases": ["MNIST digits"]}],
             "material_mentions": {"USPS": 1}}


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Stand-in for the dsminer root command."""

    register(app)
    return app


@pytest.fixture
def run_dirs(write_run, record, paper):
    papers = [paper("a.pdf"), paper("b.pdf")]
    s0 = write_run("s0", [record("a.pdf", "MNIST", title="Alpha"), record("a.pdf", "USPS", title="Alpha")], papers)
    s2 = write_run("s2", [record("a.pdf", "MNIST", title="Alpha", link="https://x.org"), record("b.pdf", "GLUE")],
                   papers)
    return s0, s2


@pytest.fixture
def gold_file(tmp_path) -> Path:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(GOLD_LINE) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tracking(tmp_path_factory):
    """A fresh sqlite tracking store with one experiment whose artifacts stay under the test folder."""
    from mlflow.tracking import MlflowClient

    root = tmp_path_factory.mktemp("mlflow")
    uri = f"sqlite:///{root}/mlflow.db"
    client = MlflowClient(uri)
    experiment_id = client.create_experiment("dsminer-test", artifact_location=str(root / "artifacts"))
    return uri, client, experiment_id


def _log_run(tracking, directory: Path) -> str:
    """Log a run directory's files as the artifacts of a new MLflow run, as the run harness does."""
    uri, client, experiment_id = tracking
    run_id = client.create_run(experiment_id, run_name=directory.name).info.run_id
    for path in sorted(directory.iterdir()):
        client.log_artifact(run_id, str(path))
    client.set_terminated(run_id)
    return run_id


def _one_line_error(result) -> str:
    """The command exited 1 through typer.Exit (not an uncaught error) with one line on stderr."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: ")
    return line


def test_summarize_directory(app, run_dirs):
    result = runner.invoke(app, ["summarize", str(run_dirs[0])])
    assert result.exit_code == 0, result.output
    assert "record_count           2" in result.stdout and "papers_processed       2" in result.stdout


def test_summarize_json(app, run_dirs):
    result = runner.invoke(app, ["summarize", str(run_dirs[1]), "--json"])
    assert json.loads(result.stdout)["link_rate"] == 0.5


def test_unknown_run_id_is_one_line_error(app, tracking):
    uri = tracking[0]
    result = runner.invoke(app, ["summarize", "0123456789abcdef0123456789abcdef", "--tracking-uri", uri])
    assert _one_line_error(result) == (
        f"error: no run directory '0123456789abcdef0123456789abcdef' and no MLflow run with that id at {uri}")


def test_absent_tracking_database_is_not_created(app, tmp_path):
    db = tmp_path / "none.db"
    result = runner.invoke(app, ["summarize", "deadbeef", "--tracking-uri", f"sqlite:///{db}"])
    assert "no MLflow tracking database" in _one_line_error(result)
    assert not db.exists()


def test_missing_run_directory(app, tmp_path):
    result = runner.invoke(app, ["summarize", str(tmp_path / "runs" / "nope")])
    assert _one_line_error(result).startswith("error: not a run directory")


def test_malformed_gold_line_is_named(app, run_dirs, tmp_path):
    gold = tmp_path / "bad.jsonl"
    gold.write_text(json.dumps(GOLD_LINE) + "\n" + '{"file": "b.pdf", "datasets": [}\n', encoding="utf-8")
    result = runner.invoke(app, ["evaluate", str(run_dirs[0]), "--gold", str(gold), "--no-log"])
    assert _one_line_error(result).startswith("error: bad.jsonl, line 2: not valid JSON")


def test_a_gold_that_holds_no_paper_of_the_run_is_one_line(app, run_dirs, tmp_path):
    gold = tmp_path / "other.jsonl"
    gold.write_text(json.dumps({"file": "z.pdf", "title": "Zeta", "datasets": ["MNIST"]}) + "\n", encoding="utf-8")
    for command in (["evaluate", str(run_dirs[0])], ["compare", str(run_dirs[0]), str(run_dirs[1])]):
        result = runner.invoke(app, [*command, "--gold", str(gold), "--no-log"])
        assert _one_line_error(result) == (
            "error: no paper of run s0 is in the gold: run s0 has 2 (e.g. a.pdf), the gold 1 (e.g. z.pdf)")


def test_evaluate_directory_writes_scores(app, run_dirs, gold_file, tmp_path):
    out = tmp_path / "eval"
    result = runner.invoke(app, ["evaluate", str(run_dirs[0]), "--gold", str(gold_file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "precision_strict   0.500" in result.stdout and "precision_lenient  1.000" in result.stdout
    assert "not logged to MLflow" in result.stderr
    assert json.loads((out / "scores.json").read_text())["recall"] == 1.0
    assert (out / "per_paper.csv").read_text().startswith("file,title,status")


def test_compare_needs_two_runs(app, run_dirs):
    result = runner.invoke(app, ["compare", str(run_dirs[0])])
    assert "at least two runs" in _one_line_error(result)


def test_compare_directories(app, run_dirs, gold_file, tmp_path):
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", *map(str, run_dirs), "--gold", str(gold_file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "| record_count | 2 | 2 |" in result.stdout
    assert "| s0 | s2 | 1 | 1 | 1 | 0.333 |" in result.stdout
    assert {path.name for path in out.iterdir()} >= {"comparison.md", "comparison.csv", "overlap.md", "recall.png"}


def test_audit_sample_and_score(app, run_dirs, tmp_path):
    out = tmp_path / "audit"
    result = runner.invoke(app, ["audit", "sample", *map(str, run_dirs), "--n", "3", "--seed", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 rows:" in result.stdout
    scored = runner.invoke(app, ["audit", "score", str(out / "audit.csv"), "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["overall"]["rows"] == 3
    missing = runner.invoke(app, ["audit", "score", str(tmp_path / "none.csv")])
    assert _one_line_error(missing).startswith("error: audit sheet not found")
    sheet = pd.read_csv(out / "audit.csv", dtype=str, keep_default_na=False)
    sheet.loc[0, ["mentioned", "is_dataset"]] = ["yes", "no"]
    sheet.to_csv(out / "audit.csv", index=False)
    again = runner.invoke(app, ["audit", "sample", *map(str, run_dirs), "--n", "3", "--seed", "2",
                                "--out", str(tmp_path / "again"), "--carry", str(out / "audit.csv")])
    assert again.exit_code == 0, again.output
    assert f"verdicts carried from {out / 'audit.csv'}: 2 of 3 rows; 1 left to read" in again.stdout  # both runs
    bad = runner.invoke(app, ["audit", "sample", *map(str, run_dirs), "--out", str(tmp_path / "bad"),
                              "--carry", str(tmp_path / "none.csv")])
    assert _one_line_error(bad).startswith("error: audit sheet not found")


def test_mlflow_runs_summarize_evaluate_compare(app, run_dirs, gold_file, tracking, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # downloaded artifacts stay in tmp_path
    (tmp_path / "tmp").mkdir()
    uri, client, experiment_id = tracking
    ids = [_log_run(tracking, directory) for directory in run_dirs]
    summary = runner.invoke(app, ["summarize", ids[1], "--tracking-uri", uri])
    assert summary.exit_code == 0, summary.output
    assert f"run s2 (condition s2, run id {ids[1]})" in summary.stdout

    evaluated = runner.invoke(app, ["evaluate", ids[0], "--gold", str(gold_file), "--tracking-uri", uri])
    assert evaluated.exit_code == 0, evaluated.output
    metrics = client.get_run(ids[0]).data.metrics
    assert metrics["gold.recall"] == 1.0 and metrics["gold.precision_strict"] == 0.5
    assert {a.path for a in client.list_artifacts(ids[0], "evaluation")} == {
        "evaluation/scores.json", "evaluation/per_paper.csv", "evaluation/errors.csv", "evaluation/errors.md",
        "evaluation/errors_table.json"}
    assert "gold.errors.missed.not_shown" in metrics and "gold.errors.wrong.other" in metrics

    compared = runner.invoke(app, ["compare", *ids, "--tracking-uri", uri])
    assert compared.exit_code == 0, compared.output
    [compare_run] = client.search_runs([experiment_id], "attributes.run_name = 'compare'")
    assert compare_run.data.metrics["s2.link_rate"] == 0.5
    assert compare_run.info.status == "FINISHED"
    assert "comparison/comparison.md" in {a.path for a in client.list_artifacts(compare_run.info.run_id, "comparison")}
    assert list((tmp_path / "comparisons").iterdir())
    assert (tmp_path / "tmp" / "dsminer-runs" / ids[1] / "results.jsonl").is_file()


def test_compare_into_parent_run(app, run_dirs, tracking, tmp_path):
    uri, client, experiment_id = tracking
    parent = client.create_run(experiment_id, run_name="parent").info.run_id
    result = runner.invoke(app, ["compare", *map(str, run_dirs), "--parent", parent, "--tracking-uri", uri,
                                 "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    assert client.get_run(parent).data.metrics["s0.record_count"] == 2.0
    bad = runner.invoke(app, ["compare", *map(str, run_dirs), "--parent", "f" * 32, "--tracking-uri", uri,
                              "--out", str(tmp_path / "cmp2")])
    assert _one_line_error(bad).startswith(f"error: no MLflow run {'f' * 32}")
