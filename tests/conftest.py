import os
from collections.abc import Sequence
from pathlib import Path

import pymupdf
import pytest

from tests.helpers import FOOTNOTE, LINK, PAGE_ONE, PAGE_TWO, PdfMaker, build_pdf

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


@pytest.fixture
def make_pdf(tmp_path: Path) -> PdfMaker:
    """A factory writing small PDFs into tmp_path: make_pdf(name, pages, links=..., footnote=...)."""

    def make(name: str, pages: Sequence[str], **options: object) -> Path:
        return build_pdf(tmp_path / name, pages, **options)

    return make


@pytest.fixture
def paper_pdf(make_pdf: PdfMaker) -> Path:
    """A two-page paper: datasets, a broken footnote URL, a link under "here", a table, references."""
    return make_pdf("paper.pdf", [PAGE_ONE, PAGE_TWO], links=[(0, *LINK)], footnote=FOOTNOTE)


@pytest.fixture
def encrypted_pdf(make_pdf: PdfMaker) -> Path:
    """A PDF that needs a password to open."""
    return make_pdf(
        "locked.pdf", [PAGE_ONE], encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y"
    )


@pytest.fixture
def corrupt_pdf(tmp_path: Path) -> Path:
    """A file with a PDF header and nothing readable after it."""
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.7\n\x00\x01 this is not a PDF body \xff\xfe")
    return path


@pytest.fixture
def not_pdf(tmp_path: Path) -> Path:
    """A text file named like a PDF."""
    path = tmp_path / "notes.pdf"
    path.write_text("just some notes, not a PDF\n", encoding="utf-8")
    return path


@pytest.fixture
def zero_page_pdf(tmp_path: Path) -> Path:
    """A syntactically valid PDF whose page tree is empty."""
    path = tmp_path / "empty.pdf"
    path.write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
        b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    )
    return path


@pytest.fixture
def image_only_pdf(tmp_path: Path) -> Path:
    """Two pages with a picture and shapes but no text layer, like a scan."""
    doc = pymupdf.open()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), 0)
    pixmap.clear_with(200)
    for _ in range(2):
        page = doc.new_page()
        page.insert_image(pymupdf.Rect(72, 72, 500, 700), pixmap=pixmap)
        page.draw_rect(pymupdf.Rect(100, 100, 200, 200), color=(0, 0, 0))
    path = tmp_path / "scan.pdf"
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def cue_ranker():
    """A sentence ranker of dataset cues alone, for tests whose subject is what an agent reads after the first
    context: the first context then holds the cued sentences, in document order, and nothing else ranks above them."""
    from dsminer.evidence.ranking import SentenceRanker, activate

    ranker = SentenceRanker({"strong": 2.0, "medium": 1.0, "size": 1.0, "url": 1.0, "data_section": 1.0}, 0.0)
    previous = activate(ranker)
    yield ranker
    activate(previous)
