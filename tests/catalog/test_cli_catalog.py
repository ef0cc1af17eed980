"""`dsminer catalog build / show / top` through the command line, on hand-written runs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from dsminer.cli import app
from tests.catalog.test_entries import record

runner = CliRunner()


def write_run(directory: Path, records) -> Path:
    directory.mkdir(parents=True)
    (directory / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    papers = sorted({r.evidence.source for r in records})
    (directory / "papers.jsonl").write_text("".join(json.dumps({"file": p, "status": "ok"}) + "\n" for p in papers),
                                            encoding="utf-8")
    (directory / "manifest.json").write_text(json.dumps({"condition": directory.name}), encoding="utf-8")
    return directory


def test_build_then_show_and_top_from_the_current_folder(tmp_path, monkeypatch):
    s0 = write_run(tmp_path / "s0", [record("a.pdf", "Marsupial Sound Dataset", aliases=["MSD"], role="created",
                                            link="https://example.org/msd"),
                                     record("b.pdf", "Numbat")])
    s1 = write_run(tmp_path / "s1a", [record("c.pdf", "MSD"), record("c.pdf", "Numbat-1k")])
    monkeypatch.chdir(tmp_path)
    built = runner.invoke(app, ["catalog", "build", str(s0), str(s1), "--no-log"])
    assert built.exit_code == 0, built.output
    assert "3 entries from 4 records of 3 papers; 1 with a link" in built.output
    shown = runner.invoke(app, ["catalog", "show", "msd"])
    assert shown.exit_code == 0, shown.output
    assert "Marsupial Sound Dataset" in shown.output and "papers 2: used 1, created 1" in shown.output
    assert "https://example.org/msd  (paper: a.pdf)" in shown.output
    assert "c.pdf  used  as 'MSD', p. 3" in shown.output
    numbat = runner.invoke(app, ["catalog", "show", "Numbat"]).output
    assert "versions and subsets: Numbat-1k" in numbat
    top = runner.invoke(app, ["catalog", "top", "--by", "papers", "--limit", "1", "--catalog", "catalog"])
    assert top.exit_code == 0 and "Marsupial Sound Dataset" in top.output and "Numbat" not in top.output


def test_unknown_names_and_folders_get_one_line(tmp_path):
    run = write_run(tmp_path / "s0", [record("a.pdf", "Quokka Reads")])
    assert runner.invoke(app, ["catalog", "build", str(run), "--out", str(tmp_path / "cat"), "--no-log"]).exit_code == 0
    missing = runner.invoke(app, ["catalog", "show", "Quokka Rides", "--catalog", str(tmp_path / "cat")])
    assert missing.exit_code == 1
    assert missing.output.strip() == "error: no entry named 'Quokka Rides' in the catalogue (closest: Quokka Reads)"
    empty = runner.invoke(app, ["catalog", "top", "--catalog", str(tmp_path)])
    assert empty.exit_code == 1 and len(empty.output.strip().splitlines()) == 1 and "holds no catalogue" in empty.output
    bad = runner.invoke(app, ["catalog", "top", "--by", "stars", "--catalog", str(tmp_path / "cat")])
    assert bad.exit_code != 0 and "--by must be one of" in bad.output


def test_build_logs_the_catalogue_as_an_mlflow_run(tmp_path):
    from mlflow.tracking import MlflowClient

    run = write_run(tmp_path / "s0", [record("a.pdf", "Quokka Reads", link="https://example.org/qr"),
                                      record("b.pdf", "Quokka Reads")])
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = runner.invoke(app, ["catalog", "build", str(run), "--out", str(tmp_path / "cat"), "--tracking-uri", uri])
    assert result.exit_code == 0, result.output
    client = MlflowClient(uri)
    logged = client.search_runs([client.get_experiment_by_name("dsminer-catalog").experiment_id])[0]
    assert logged.data.metrics["entries"] == 1 and logged.data.metrics["entries_with_borrowed_link"] == 1
    artifacts = {item.path for item in client.list_artifacts(logged.info.run_id, "catalog")}
    assert {"catalog/entries.parquet", "catalog/catalog.duckdb", "catalog/entries_table.json"} <= artifacts
