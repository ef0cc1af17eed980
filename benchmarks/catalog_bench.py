"""Catalogue build time and memory: a catalogue of N papers from scratch, then M papers added to it.

The papers' records are generated from real ones: each paper draws 1-8 records (as real runs do) from a pool
of real records (the runs given with --runs, else the gold datasets of ../shared/eval's corpora, names and
aliases as papers write them, and the real datasets of ../shared/catalogs), each name written one of the ways papers write names (case, "the X dataset",
"X corpus", hyphens for spaces), with the role, link and year of its source or drawn. Run from the repository
root after `make install`:

    .venv/bin/python benchmarks/catalog_bench.py                 # 5,000 papers, then 50 more
    .venv/bin/python benchmarks/catalog_bench.py --runs RUN ...  # records drawn from runs' records

It prints seconds and peak memory for each step and logs them to MLflow (experiment dsminer-benchmarks).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path

from dsminer.catalog.build import update_catalog
from dsminer.catalog.resolution import spelling
from dsminer.evaluation.runs import load_run
from dsminer.schema import DatasetRecord, make_dataset_id

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
GOLD_FILES = ("eval/scirex-pdf/gold.jsonl", "eval/fields-dev/gold.jsonl")
WRITTEN = ("{}", "{}", "{}", "the {} dataset", "{} corpus", "{} Dataset", "{} data set")


def gold_pool(shared: Path) -> list[dict]:
    """Records' parts from the gold files: a name as papers write it (the gold name or an alias), the other
    names, the role and URL."""
    pool = []
    for relative in GOLD_FILES:
        for line in (shared / relative).read_text(encoding="utf-8").splitlines():
            for dataset in json.loads(line)["datasets"]:
                names = [dataset["name"], *dataset.get("aliases", [])]
                pool.append({"names": names, "role": dataset.get("role") or "used", "link": dataset.get("url")})
    return pool


def catalogue_pool(shared: Path) -> list[dict]:
    """Records' parts from the known-dataset catalogues: display names, ids and homepages of real datasets."""
    pool = []
    for path in sorted((shared / "catalogs").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            names = [name for name in (row.get("pretty_name"), row.get("display"), row.get("hf_id")) if name]
            if names and row.get("scirex_type", "Material") == "Material":
                pool.append({"names": names, "role": "used", "link": row.get("homepage") or None})
    return pool


def run_pool(runs: list[str]) -> list[dict]:
    return [{"names": [record.name, *record.aliases], "role": record.role or "used", "link": record.dataset_link}
            for ref in runs for record in load_run(ref).records]


def papers(pool: list[dict], count: int, first: int, rng: random.Random) -> list[DatasetRecord]:
    """`count` papers' records drawn from `pool`, papers numbered from `first`."""
    records = []
    for number in range(first, first + count):
        paper = f"paper-{number:06d}.pdf"
        year = rng.randint(2015, 2025)
        for source in rng.sample(pool, rng.randint(1, 8)):
            written = rng.choice(source["names"])
            name = rng.choice(WRITTEN).format(written)
            name = name.replace(" ", "-") if rng.random() < 0.05 else name
            aliases = [alias for alias in source["names"] if alias != written and rng.random() < 0.3]
            records.append(DatasetRecord.model_validate({
                "dataset_id": make_dataset_id(paper, name), "name": name, "aliases": aliases, "role": source["role"],
                "paper_refs": {"title": f"Paper {number}", "year": year},
                "dataset_link": source["link"] if rng.random() < 0.4 else None,
                "evidence": {"source": paper, "page": rng.randint(1, 12), "quote": f"We use {name}."},
            }))
    return records


def timed(step, *args) -> tuple[float, object]:
    started = time.perf_counter()
    result = step(*args)
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--add", type=int, default=50)
    parser.add_argument("--runs", nargs="*", default=[])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder of evaluation data")
    parser.add_argument("--tracking-uri", default="sqlite:///mlruns/mlflow.db")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if not args.runs and not all((args.shared / relative).is_file() for relative in GOLD_FILES):
        parser.error(f"no gold files under {args.shared}: give --shared DIR or --runs RUN ...")
    pool = run_pool(args.runs) if args.runs else gold_pool(args.shared) + catalogue_pool(args.shared)
    base, extra = papers(pool, args.papers, 0, rng), papers(pool, args.add, args.papers, rng)
    folder = Path(tempfile.mkdtemp(prefix="catalog-bench-"))
    try:
        build_s, built = timed(update_catalog, folder, [("bench", base)])
        build_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        spelling.cache_clear()  # as a new `dsminer catalog build` process starts
        add_s, added = timed(update_catalog, folder, [("bench-added", extra)])
        add_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    finally:
        shutil.rmtree(folder)
    kept = len(set(built.entries["entry_id"]) - set(added.entries["entry_id"]) - {
        merged for ids in added.entries["merged_ids"] for merged in ids})
    metrics = {"build_seconds": build_s, "build_peak_mb": build_mb, "records": len(base), "entries": len(built.entries),
               "add_seconds": add_s, "add_peak_mb": add_mb, "added_records": len(extra),
               "entries_after": len(added.entries), "ids_lost": kept}
    print(f"pool of {len(pool)} real records; {args.papers} papers, {len(base)} records -> {len(built.entries)} "
          f"entries in {build_s:.2f} s (peak {build_mb:.0f} MB)")
    print(f"+{args.add} papers, {len(extra)} records -> {len(added.entries)} entries in {add_s:.2f} s "
          f"(peak {add_mb:.0f} MB); entry ids lost: {kept}")
    import mlflow

    mlflow.set_tracking_uri(args.tracking_uri)
    mlflow.set_experiment("dsminer-benchmarks")
    with mlflow.start_run(run_name=f"catalog-{args.papers}+{args.add}"):
        mlflow.log_params({"papers": args.papers, "add": args.add, "runs": " ".join(args.runs) or "gold",
                           "seed": args.seed})
        mlflow.log_metrics({key: float(value) for key, value in metrics.items()})


if __name__ == "__main__":
    main()
