"""The real local model, end to end, on one synthetic paper, then its HTML report (slow: about a minute on 2 cores)."""

import json

import mlflow
import pytest
from typer.testing import CliRunner

from dsminer.cli import app
from dsminer.demo import SAMPLE_GOLD, write_sample_gold, write_sample_papers
from dsminer.schema import DatasetRecord

pytest.importorskip("xllamacpp")
pytestmark = pytest.mark.local_model


def test_s0_on_the_local_model_writes_records_and_an_mlflow_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    papers = write_sample_papers(tmp_path / "papers")
    for extra in papers[1:]:
        extra.unlink()
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    result = CliRunner().invoke(app, ["run", str(tmp_path / "papers"), "--out", "run", "--tracking-uri", uri,
                                      "--max-records", "2", "--no-progress"])
    assert result.exit_code == 0, result.output
    records = [DatasetRecord.model_validate_json(line) for line in (tmp_path / "run/results.jsonl").read_text().splitlines()]
    assert records, "the local model found no dataset in the sample paper"
    gold = {name.casefold() for name in SAMPLE_GOLD[papers[0].name]}
    assert any(record.name.casefold() in gold for record in records)

    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    run = mlflow.MlflowClient(uri).get_run(manifest["mlflow"]["run_id"])
    assert run.data.params["condition"] == "s0"
    assert run.data.metrics["records"] == len(records)
    assert run.data.metrics["llm_calls"] >= 3
    artifacts = {item.path for item in mlflow.MlflowClient(uri).list_artifacts(run.info.run_id)}
    assert {"results.jsonl", "manifest.json", "events.jsonl", "papers.jsonl"} <= artifacts

    built = CliRunner().invoke(app, ["catalog", "build", "run", "--out", "catalog", "--tracking-uri", uri])
    assert built.exit_code == 0, built.output
    top = CliRunner().invoke(app, ["catalog", "top"])
    assert top.exit_code == 0 and records[0].name in top.output

    gold = write_sample_gold(tmp_path / "gold.jsonl")
    result = CliRunner().invoke(app, ["report", "run", "--gold", str(gold), "--catalog", "catalog",
                                      "--tracking-uri", uri])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "run/report/index.html").read_text()
    assert '"mark": "correct"' in page and "data:image/jpeg;base64," in page
    assert f'"paper_records": [{{"paper": "{papers[0].name}"' in page
    logged = mlflow.MlflowClient(uri).list_artifacts(run.info.run_id, "report")
    assert [item.path for item in logged] == ["report/index.html"]
