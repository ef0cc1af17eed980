"""Three short synthetic papers, drawn with PyMuPDF, that name invented datasets: a demo and test corpus."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pymupdf

_LEFT, _RIGHT, _TOP, _BOTTOM = 72.0, 540.0, 72.0, 700.0
_FONT, _BOLD = "tiro", "tibo"


@dataclass(frozen=True)
class _SamplePaper:
    """What one synthetic paper says, page by page."""

    file_name: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    first_page: tuple[tuple[str, str], ...]
    footnote: tuple[str, str]
    second_page: tuple[tuple[str, str], ...]
    table: tuple[tuple[str, ...], ...]
    caption: str
    link: tuple[str, str]
    references: tuple[str, ...]


_PAPERS = (
    _SamplePaper(
        file_name="sample_reef_monitoring.pdf",
        title="Self-Supervised Reef Monitoring from Underwater Imagery",
        authors=("Mara Quill (Tidewater Institute of Oceanography)", "Jonas Ebb (University of Northport)"),
        abstract="Abstract. We study reef health estimation from underwater photographs with little "
        "supervision. Our encoder is pre-trained on unlabeled footage and fine-tuned on two small labeled "
        "collections, where it improves accuracy by seven points over supervised baselines.",
        first_page=(
            ("1 Introduction", "Coral cover surveys are slow and costly. Divers label a few hundred frames "
             "per site, so models must learn from unlabeled video and transfer to new reefs."),
            ("2 Datasets", "We evaluate on the CoralScan-5k benchmark1 which contains 5,000 reef images "
             "labeled with eight substrate classes. We also use KelpWatch, a collection of 1,200 drone "
             "photographs of kelp canopies collected along the northern coast. Annotations for KelpWatch can "
             "be downloaded from our project page. Frames were recorded with under-\nwater cameras."),
        ),
        footnote=("1 Images and labels: https://data.example.org/coral-", "scan/v2/images.zip"),
        second_page=(
            ("3 Experiments", "We train on the CoralScan-5k training split and test on both collections. "
             "Table 1 reports accuracy; the self-supervised encoder is best on each test set."),
        ),
        table=(("Method", "CoralScan-5k", "KelpWatch"), ("Supervised CNN", "71.2", "64.0"), ("Ours", "78.9", "69.3")),
        caption="Table 1: Accuracy (%) on the CoralScan-5k and KelpWatch test sets.",
        link=("project page", "https://github.com/example-lab/kelpwatch"),
        references=(
            "[1] R. Marsh. KelpWatch: monitoring kelp forests from drones. J. Coastal Imaging, 2021.",
            "[2] T. Vale and M. Quill. Substrate labels for reef photographs. Proc. ReefVision, 2020.",
        ),
    ),
    _SamplePaper(
        file_name="sample_birdsong_detection.pdf",
        title="Detecting Nocturnal Bird Calls with Lightweight Audio Models",
        authors=("Ines Farrow (Lakeside College of Acoustics)", "Tobias Wren (Northern Wildlife Lab)"),
        abstract="Abstract. Night-time migration is heard rather than seen. We present a small audio model "
        "that detects flight calls on embedded recorders and matches larger models on two corpora.",
        first_page=(
            ("1 Introduction", "Acoustic monitoring records thousands of hours per season, far more than "
             "experts can listen to. Lightweight detectors make on-device filtering possible."),
            ("2 Data", "Our experiments use the Urban Birdsong Corpus, which consists of 38 hours of city "
             "recordings with call annotations, and NightCall-300, a set of 300 annotated night recordings "
             "from rural sites released with this paper2. We also report results on DawnChorus-2k, which "
             "contains 2,000 clips; the clips can be obtained here."),
        ),
        footnote=("2 https://huggingface.co/datasets/example-lab/night-", "call-300"),
        second_page=(
            ("3 Results", "Table 1 compares detectors on the Urban Birdsong Corpus, NightCall-300 and "
             "DawnChorus-2k. Our model is within one point of the largest baseline while running on a "
             "microcontroller."),
        ),
        table=(("Model", "Urban Birdsong", "NightCall-300", "DawnChorus-2k"), ("Large CNN", "0.91", "0.84",
               "0.88"), ("Ours", "0.90", "0.85", "0.87")),
        caption="Table 1: Average precision of call detection on the three test sets.",
        link=("here", "https://zenodo.org/records/0000042"),
        references=(
            "[1] K. Lark. The Urban Birdsong Corpus: city soundscapes with call labels. Bioacoustics, 2019.",
            "[2] P. Owl. Audio event detection on microcontrollers. Proc. EdgeSound, 2022.",
        ),
    ),
    _SamplePaper(
        file_name="sample_table_qa.pdf",
        title="Answering Questions over Scientific Tables",
        authors=("Lena Voss (Institute for Document Intelligence)", "Omar Reyes (Southbay University)"),
        abstract="Abstract. Tables hold most numeric results in papers. We introduce a retrieval step that "
        "selects cells before answering and evaluate it on two question answering benchmarks.",
        first_page=(
            ("1 Introduction", "Readers ask what a table says, not where. Models that read whole tables "
             "waste capacity on irrelevant cells."),
            ("2 Benchmarks", "We evaluate on LexiQA, a benchmark of 9,400 questions about tables from "
             "physics papers, and on ScholarTables-2k, a dataset of 2,000 tables with question-answer pairs "
             "that we release3. The dataset card of ScholarTables-2k is on our dataset page."),
        ),
        footnote=("3 Download: https://www.openml.org/d/", "99999"),
        second_page=(
            ("3 Experiments", "We fine-tune on the LexiQA training set and test on both benchmarks. Table 1 "
             "shows exact-match accuracy."),
        ),
        table=(("System", "LexiQA", "ScholarTables-2k"), ("Full-table reader", "61.5", "55.0"),
               ("Cell retrieval", "66.8", "60.2")),
        caption="Table 1: Exact match (%) on LexiQA and ScholarTables-2k.",
        link=("dataset page", "https://www.kaggle.com/datasets/example-lab/scholartables-2k"),
        references=(
            "[1] A. Birch. LexiQA: questions over physics tables. Proc. TableWorkshop, 2020.",
            "[2] J. Pine. Retrieval before reading. Trans. Document AI, 2023.",
        ),
    ),
)

SAMPLE_GOLD: dict[str, list[str]] = {
    "sample_reef_monitoring.pdf": ["CoralScan-5k", "KelpWatch"],
    "sample_birdsong_detection.pdf": ["Urban Birdsong Corpus", "NightCall-300", "DawnChorus-2k"],
    "sample_table_qa.pdf": ["LexiQA", "ScholarTables-2k"],
}


class _Writer:
    """Writes text blocks down a page from the top margin."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page
        self.y = _TOP

    def block(self, text: str, size: float = 10, font: str = _FONT, align: int = 0, gap: float = 8) -> None:
        """Write `text` wrapped to the text width and move below it."""
        rect = pymupdf.Rect(_LEFT, self.y, _RIGHT, _BOTTOM)
        rest = self.page.insert_textbox(rect, text, fontsize=size, fontname=font, align=align)
        if rest < 0:
            raise ValueError(f"sample text does not fit on the page: {text[:40]!r}")
        self.y += rect.height - rest + gap

    def sections(self, sections: tuple[tuple[str, str], ...]) -> None:
        """Write each (heading, paragraph) pair."""
        for heading, paragraph in sections:
            self.block(heading, size=12, font=_BOLD, gap=4)
            self.block(paragraph)

    def table(self, rows: tuple[tuple[str, ...], ...], caption: str) -> None:
        """Draw a ruled grid with one cell per string, then its caption below."""
        self.block(caption, size=9, gap=4)
        width, height = (_RIGHT - _LEFT) / len(rows[0]), 16.0
        for r, row in enumerate(rows):
            top = self.y + r * height
            for c, cell in enumerate(row):
                left = _LEFT + c * width
                self.page.draw_rect(pymupdf.Rect(left, top, left + width, top + height), width=0.5)
                self.page.insert_text((left + 4, top + 11.5), cell, fontsize=9, fontname=_FONT)
        self.y += len(rows) * height + 12


def _add_link(page: pymupdf.Page, anchor: str, uri: str) -> None:
    """Put a URI link annotation over the last place `anchor` is written on `page`."""
    hits = page.search_for(anchor)
    if not hits:
        raise ValueError(f"link anchor {anchor!r} is not on the page")
    page.insert_link({"kind": pymupdf.LINK_URI, "from": hits[-1], "uri": uri})


def _add_footnote(page: pymupdf.Page, lines: tuple[str, str]) -> None:
    """A rule and a two-line footnote at the foot of `page` (the URL breaks after the first line)."""
    page.draw_line((_LEFT, 712), (_LEFT + 150, 712), width=0.5)
    for i, line in enumerate(lines):
        page.insert_text((_LEFT, 724 + 10 * i), line, fontsize=8, fontname=_FONT)


def _draw_paper(spec: _SamplePaper) -> pymupdf.Document:
    """The two-page PDF for `spec`."""
    doc = pymupdf.open()
    first = _Writer(doc.new_page(width=612, height=792))
    first.block(spec.title, size=16, font=_BOLD, align=pymupdf.TEXT_ALIGN_CENTER, gap=10)
    first.block("\n".join(spec.authors), size=10, align=pymupdf.TEXT_ALIGN_CENTER, gap=14)
    first.block(spec.abstract, size=9, gap=12)
    first.sections(spec.first_page)
    _add_link(first.page, *spec.link)
    _add_footnote(first.page, spec.footnote)
    second = _Writer(doc.new_page(width=612, height=792))
    second.sections(spec.second_page)
    second.table(spec.table, spec.caption)
    second.block("4 Conclusion", size=12, font=_BOLD, gap=4)
    second.block("Small labeled sets suffice when the model is pre-trained on related unlabeled data.")
    second.block("References", size=12, font=_BOLD, gap=4)
    for reference in spec.references:
        second.block(reference, size=9, gap=4)
    doc.set_metadata({"title": spec.title, "author": "; ".join(spec.authors), "producer": "dsminer sample"})
    return doc


def write_sample_papers(out_dir: Path) -> list[Path]:
    """Write the three sample papers into `out_dir` (overwriting) and return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for spec in _PAPERS:
        path = out_dir / spec.file_name
        with _draw_paper(spec) as doc:
            doc.save(path, garbage=3, deflate=True, no_new_id=True)
        paths.append(path)
    return paths


def write_sample_gold(path: Path) -> Path:
    """Write the sample papers' datasets (`SAMPLE_GOLD`) as a gold file (docs/gold-format.md) and return it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (json.dumps({"file": file, "datasets": names}) for file, names in SAMPLE_GOLD.items())
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path
