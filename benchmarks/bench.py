"""Throughput and overhead of dsminer's harness, against a fake OpenAI-compatible server with a set latency
and concurrency limit, and parse speed on the scirex PDFs. Not part of the test run:

    .venv/bin/python benchmarks/bench.py [--papers 16] [--latency 1.0] [--concurrency 4] [--workers 1,2,4,8]
                                         [--ray-workers 2]

It prints a markdown table (and writes it with `--write`, into benchmarks/README.md between the markers).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake OpenAI-compatible server the tests use

from tests.fake_openai import FakeOpenAI, chat_reply  # noqa: E402

SHARED_PDFS = ROOT.parent / "shared" / "eval" / "scirex-pdf" / "pdfs"
DSMINER = Path(sys.executable).with_name("dsminer")
MARKERS = ("<!-- bench:start -->", "<!-- bench:end -->")


def slow_reply(latency_s: float, concurrency: int) -> Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]:
    """A fake server's reply to every step, by the fields its prompt asks for, after `latency_s` seconds, at
    most `concurrency` at a time (the rest wait, as on a saturated vLLM)."""
    slots = threading.Semaphore(concurrency)

    def reply(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with slots:
            time.sleep(latency_s)
            return 200, chat_reply(answer(json.dumps(body.get("messages", []))), 1000, 100)
    return reply


def answer(prompt: str) -> str:
    """A plausible answer for the step the prompt is for: names the paper's first data-noun names."""
    if "NameDecision" in prompt:
        names = re.findall(r"([A-Z][A-Za-z0-9\-]{2,}) (?:dataset|corpus|benchmark)", prompt)[:3] or ["Data"]
        return json.dumps({"names": [{"name": n, "kind": "dataset", "role": "used"} for n in dict.fromkeys(names)]})
    if "data_fields" in prompt:
        return json.dumps({"content": "text", "data_type": "text", "domain": "nlp", "data_fields": ["label"]})
    if "search_terms" in prompt:
        return json.dumps({"score": 0.9, "risks": [], "suggestions": [], "search_terms": []})
    return json.dumps({"title": "A paper", "authors": ["A. Author"], "institutions": [], "venue": "", "year": 2020})


def throughput(pdfs: list[Path], condition: str, workers: int, latency_s: float, concurrency: int,
               work: Path, executor: str = "local") -> dict[str, float]:
    """One run: papers per minute from the first paper's start to the last paper's commit, the start-up before
    and the end after it, model calls, and the harness's own time per paper beside the time its model calls
    waited."""
    corpus = work / "corpus"
    if not corpus.exists():
        corpus.mkdir()
        for pdf in pdfs:
            (corpus / pdf.name).symlink_to(pdf)
    out = work / f"{condition}-{executor}-w{workers}"
    started = time.monotonic()
    with FakeOpenAI(default=slow_reply(latency_s, concurrency)) as server:
        result = subprocess.run(
            [str(DSMINER), "run", str(corpus), "--condition", condition, "--api-base", server.api_base,
             "--model", "fake-model", "--workers", str(workers), "--executor", executor, "--out", str(out),
             "--no-progress",
             "--tracking-uri", f"sqlite:///{work}/mlflow.db"],
            capture_output=True, text=True, check=False)
        calls = len(server.requests)
    wall = time.monotonic() - started
    if result.returncode not in (0, 2):
        raise SystemExit(f"{condition} workers {workers} failed: {result.stderr.strip()[-400:]}")
    papers = [json.loads(line) for line in (out / "papers.jsonl").read_text().splitlines()]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    stamps = [datetime.fromisoformat(e["ts"]).timestamp() for e in events
              if e["kind"] == "paper_done" or (e["kind"] == "observation" and e.get("step") == "parse")]
    window = max(stamps) - min(stamps)
    started_at: dict[str, float] = {}
    for event in events:
        if event.get("paper"):
            started_at.setdefault(event["paper"], datetime.fromisoformat(event["ts"]).timestamp())
    later = sorted(papers, key=lambda p: started_at.get(Path(p["file"]).name, 0.0))[workers:]
    return {"papers": len(papers), "wall_s": wall, "papers_per_min": 60 * len(papers) / window,
            "fixed_s": wall - window, "calls_per_paper": calls / max(len(papers), 1),
            "overhead": _overhead(papers), "overhead_later": _overhead(later)}


def _overhead(papers: list[dict[str, Any]]) -> float:
    """The papers' time beyond the time their model calls waited, as a share of that model time."""
    paper_s = sum(p["seconds"] for p in papers)
    model_s = sum(p["model_seconds"] for p in papers)
    return (paper_s - model_s) / model_s if model_s else 0.0


def parse_speed(pdfs: list[Path]) -> dict[str, float]:
    """Pages per second: dsminer's parse (text, links, tables, sections) and PyMuPDF's plain text."""
    import pymupdf

    from dsminer.document.pdf import parse_pdf

    pages = 0
    started = time.monotonic()
    for pdf in pdfs:
        with pymupdf.open(pdf) as document:
            pages += document.page_count
            for page in document:
                page.get_text()
    plain = time.monotonic() - started
    started = time.monotonic()
    for pdf in pdfs:
        parse_pdf(pdf)
    ours = time.monotonic() - started
    return {"pdfs": len(pdfs), "pages": pages, "dsminer_pages_per_s": pages / ours, "pymupdf_pages_per_s": pages / plain}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=0, help="papers per run (default: all 58 scirex PDFs)")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=4, help="requests the server handles at once")
    parser.add_argument("--workers", default="1,2,4,8")
    parser.add_argument("--conditions", default="s0,s1a")
    parser.add_argument("--ray-workers", default="2", help="workers of the ray executor's rows ('' for none)")
    parser.add_argument("--write", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args()
    if not SHARED_PDFS.is_dir():
        raise SystemExit(f"the scirex PDFs are not at {SHARED_PDFS}")
    pdfs = sorted(SHARED_PDFS.glob("*.pdf"))
    args.papers = args.papers or len(pdfs)
    lines = [f"Fake server: {args.latency:g} s per call, {args.concurrency} calls at once; {args.papers} scirex "
             "papers per run. Papers/min from the first paper's start to the last paper's commit; start-up and "
             "end = the rest of the command's time (imports, MLflow, the run's end). Overhead = a paper's time "
             "minus the time its model calls waited (waiting on a parse, context, selection, files, traces), as "
             "a share of that model time; after the first `workers` papers, the same without the papers that start "
             "while the parse processes start and parse their first PDFs.", "",
             "Of the server's bound: papers/min as a share of what the server allows that many workers "
             "(latency, calls per paper, and the lesser of the workers and the calls it serves at once).", "",
             "| condition | executor | workers | papers/min | speed-up | of the server's bound | calls/paper | "
             "overhead | overhead after the first `workers` papers | start-up and end |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    runs = [(condition, "local", workers) for condition in args.conditions.split(",")
            for workers in map(int, args.workers.split(","))]
    runs += [(condition, "ray", workers) for condition in args.conditions.split(",")
             for workers in map(int, filter(None, args.ray_workers.split(",")))]
    base: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="dsminer-bench-") as tmp:
        for condition, executor, workers in runs:
            row = throughput(pdfs[: args.papers], condition, workers, args.latency, args.concurrency, Path(tmp),
                             executor)
            base.setdefault(condition, row["papers_per_min"])  # speed-up over the condition's first row
            bound = 60 * min(workers, args.concurrency) / (args.latency * row["calls_per_paper"])
            lines.append(f"| {condition} | {executor} | {workers} | {row['papers_per_min']:.1f} | "
                         f"{row['papers_per_min'] / base[condition]:.2f} | "
                         f"{100 * row['papers_per_min'] / bound:.0f}% | "
                         f"{row['calls_per_paper']:.1f} | {100 * row['overhead']:.1f}% | "
                         f"{100 * row['overhead_later']:.1f}% | {row['fixed_s']:.1f} s |")
            print(lines[-1], flush=True)
    speed = parse_speed(pdfs)
    lines += ["", f"Parse speed over the {speed['pdfs']} scirex PDFs ({speed['pages']} pages): dsminer "
              f"{speed['dsminer_pages_per_s']:.1f} pages/s (text, links, tables, sections), plain PyMuPDF text "
              f"{speed['pymupdf_pages_per_s']:.1f} pages/s."]
    table = "\n".join(lines)
    print(table)
    if args.write:
        readme = ROOT / "benchmarks" / "README.md"
        text = readme.read_text()
        start, end = text.index(MARKERS[0]) + len(MARKERS[0]), text.index(MARKERS[1])
        readme.write_text(text[:start] + "\n" + table + "\n" + text[end:])


if __name__ == "__main__":
    main()
