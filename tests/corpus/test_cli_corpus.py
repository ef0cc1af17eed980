"""`corpus download` through typer's CliRunner, against the fake proceedings site."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from neurips_site import PAPERS, FakeSite, publish
from typer.testing import CliRunner

from dsminer.cli.corpus import corpus_app
from dsminer.corpus.neurips import paper_stem

runner = CliRunner()


def make_app() -> typer.Typer:
    """The app as the main CLI mounts it: `dsminer corpus ...`."""
    app = typer.Typer()
    app.add_typer(corpus_app, name="corpus")
    return app


def download(site: FakeSite, out: Path, *extra: str, conference: str = "neurips"):  # noqa: ANN201
    arguments = ["corpus", "download", conference, "--year", "2024", "--out", str(out), "--base-url", site.base_url]
    return runner.invoke(make_app(), [*arguments, "--delay", "0", "--timeout", "2", "--no-progress", *extra])


def test_download_writes_the_corpus_and_a_summary(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, 2024, PAPERS)

    result = download(fake_site, tmp_path / "corpus", "--limit", "3")

    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"{tmp_path / 'corpus'}: 3 downloaded, 0 already complete, 0 failed"
    for paper in PAPERS[:3]:
        assert (tmp_path / "corpus" / f"{paper_stem(2024, paper.paper_hash)}.pdf").is_file()
    assert not (tmp_path / "corpus" / f"{paper_stem(2024, PAPERS[3].paper_hash)}.pdf").exists()


def test_rerun_reports_complete_papers_and_failures(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, 2024, PAPERS[:2])
    download(fake_site, tmp_path, "--limit", "1")
    del fake_site.routes[PAPERS[1].pdf_path(2024)]

    result = download(fake_site, tmp_path)

    assert result.exit_code == 0, result.output
    assert "0 downloaded, 1 already complete, 1 failed" in result.stdout
    assert result.stderr.strip() == f"failed: {fake_site.base_url}{PAPERS[1].page_path(2024)}: PDF: HTTP 404"


def test_everything_failing_exits_non_zero(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, 2024, PAPERS[:1])
    del fake_site.routes[PAPERS[0].pdf_path(2024)]

    result = download(fake_site, tmp_path)

    assert result.exit_code == 1
    assert "0 downloaded, 0 already complete, 1 failed" in result.stdout


@pytest.mark.parametrize(
    ("conference", "message"),
    [("icml", "error: unsupported conference 'icml' (supported: neurips)"), ("NeurIPS", None)],
)
def test_conference_argument(fake_site: FakeSite, tmp_path: Path, conference: str, message: str | None) -> None:
    publish(fake_site, 2024, PAPERS[:1])

    result = download(fake_site, tmp_path, conference=conference)

    if message is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1
        assert result.stderr.strip() == message
        assert fake_site.requests == []


def test_corpus_error_is_one_line_without_traceback(fake_site: FakeSite, tmp_path: Path) -> None:
    result = download(fake_site, tmp_path)  # nothing published: the listing is a 404

    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"error: cannot read the NeurIPS 2024 listing at {fake_site.base_url}/paper_files/paper/2024: HTTP 404"
    )
    assert "Traceback" not in result.output


def test_limit_must_be_positive(fake_site: FakeSite, tmp_path: Path) -> None:
    result = download(fake_site, tmp_path, "--limit", "0")

    assert result.exit_code == 2
    assert fake_site.requests == []
