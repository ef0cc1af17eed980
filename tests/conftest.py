import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True)
def no_dspy_cache():
    """Scripted LMs must be asked every time: no disk or memory cache between tests."""
    import dspy

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    yield
    dspy.configure(lm=None, adapter=None)  # a CLI test configures DSPy globally; later tests start clean


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Two one-page papers that use the ReefCount-3k dataset, and a file that is not a PDF."""
    from tests.helpers import fish_corpus

    folder = fish_corpus(tmp_path / "papers", ["a.pdf", "b.pdf"])
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    return folder


@pytest.fixture
def run_in(tmp_path, monkeypatch):
    """`dsminer run CORPUS` against a fake server, into tmp/out, with no wait between fault retries."""
    from tests.helpers import invoke

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DSMINER_BACKEND__FAULT_BACKOFF_S", "0")

    def run(corpus: Path, fake, *extra: str):
        return invoke("run", str(corpus), "--api-base", fake.api_base, "--model", "fake-model", "--out", "out",
                      "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db", "--no-progress", *extra)
    return run
