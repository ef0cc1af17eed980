"""`dsminer corpus manifest`: PDFs named by repository, commit, path and SHA-256, fetched from local clones or
over HTTP, checked, and resumed."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from dsminer.cli import app
from dsminer.corpus.manifest import fetch_manifest, read_manifest
from dsminer.errors import MetadataFileError

PDF = b"%PDF-1.4\n% a tiny stand-in for a paper\n"
runner = CliRunner()


def manifest_line(file: str, commit: str, sha: str) -> str:
    return json.dumps({"file": file, "source_repo": "lab/paper", "source_commit": commit,
                       "source_path": "manuscript/paper v1.pdf", "sha256": sha, "datasets": []}) + "\n"


@pytest.fixture
def clone(tmp_path):
    """A clone `lab+paper` holding the PDF at manuscript/paper v1.pdf; its commit."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "clones" / "lab+paper"
    (repo / "manuscript").mkdir(parents=True)
    (repo / "manuscript" / "paper v1.pdf").write_bytes(PDF)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "paper"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def test_pdfs_come_from_local_clones_checked_and_a_rerun_keeps_them(tmp_path, clone):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(manifest_line("paper.pdf", clone, hashlib.sha256(PDF).hexdigest()), encoding="utf-8")
    first = runner.invoke(app, ["corpus", "manifest", str(gold), "--out", str(tmp_path / "corpus"),
                                "--clones", str(tmp_path / "clones")])
    assert first.exit_code == 0, first.output
    assert "1 fetched, 0 already there, 0 failed" in first.output
    assert (tmp_path / "corpus" / "pdfs" / "paper.pdf").read_bytes() == PDF
    assert (tmp_path / "corpus" / "gold.jsonl").read_text(encoding="utf-8") == gold.read_text(encoding="utf-8")
    again = runner.invoke(app, ["corpus", "manifest", str(gold), "--out", str(tmp_path / "corpus"),
                                "--clones", str(tmp_path / "clones")])
    assert "0 fetched, 1 already there" in again.output


def test_bytes_that_do_not_hash_to_the_manifest_are_not_kept(tmp_path, clone):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(manifest_line("paper.pdf", clone, "0" * 64), encoding="utf-8")
    result = runner.invoke(app, ["corpus", "manifest", str(gold), "--out", str(tmp_path / "corpus"),
                                 "--clones", str(tmp_path / "clones")])
    assert result.exit_code == 1 and "failed: paper.pdf: sha256" in result.output
    assert list((tmp_path / "corpus" / "pdfs").iterdir()) == []


def test_pdfs_download_from_the_raw_file_address(tmp_path):
    served = tmp_path / "site" / "lab" / "paper" / "abc123" / "manuscript"
    served.mkdir(parents=True)
    (served / "paper v1.pdf").write_bytes(PDF)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(tmp_path / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        gold = tmp_path / "gold.jsonl"
        gold.write_text(manifest_line("paper.pdf", "abc123", hashlib.sha256(PDF).hexdigest()), encoding="utf-8")
        base = f"http://127.0.0.1:{server.server_address[1]}/{{repo}}/{{commit}}/{{path}}"
        report = fetch_manifest(read_manifest(gold), tmp_path / "pdfs", base_url=base)
    finally:
        server.shutdown()
    assert report.fetched == ["paper.pdf"] and (tmp_path / "pdfs" / "paper.pdf").read_bytes() == PDF


def test_a_manifest_line_without_its_source_names_the_line(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"file": "a.pdf", "source_repo": "lab/paper"}) + "\n", encoding="utf-8")
    with pytest.raises(MetadataFileError, match="row 1: missing source_commit, source_path, sha256"):
        read_manifest(gold)
