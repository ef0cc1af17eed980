"""Paired comparison of each run with a baseline, paper by paper: whether a difference is real or noise.

Both runs read the same papers, so each measure is compared on the papers both processed: counts per paper
(records, records with a link, model calls, prompt tokens) as the mean per-paper difference, and ratios over the
corpus (recall, recall of used and created datasets, precision) as the difference of the two runs' ratios. Each
difference gets a 95% percentile bootstrap interval over papers (the papers resampled with replacement, both
runs' values kept together). With gold, the gold datasets each run found are also compared one by one: how many
only the run found, how many only the baseline found, and McNemar's exact test of whether those two differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from dsminer.evaluation.gold import GoldPaper, judge, records_by_gold_paper
from dsminer.evaluation.runs import RunData, paper_file
from dsminer.schema import DatasetRecord, normalize_name
from dsminer.store import DONE

RESAMPLES = 2000
COUNTS = ("records", "links", "llm_calls", "prompt_tokens")
RATIOS = {  # measure: (numerator columns, denominator columns)
    "recall": (("recalled",), ("gold",)),
    "recall_used": (("used_recalled",), ("used_gold",)),
    "precision_strict": (("correct",), ("scored",)),
    "precision_lenient": (("correct", "supported"), ("scored",)),
}


@dataclass(frozen=True)
class Agreement:
    """Gold datasets found by the run and not the baseline (`gained`), by the baseline and not the run (`lost`),
    and McNemar's exact two-sided p-value."""

    gained: int
    lost: int
    both: int
    neither: int
    p_value: float


def per_paper(run: RunData, gold: list[GoldPaper] | None = None) -> pd.DataFrame:
    """One row per paper the run processed: its counts, and with gold its counts against the gold."""
    files = [str(row["file"]) for row in run.papers if row.get("status") in DONE]
    frame = pd.DataFrame(index=pd.Index(files, name="file"), columns=list(COUNTS), data=0.0)
    for record in run.records:
        if paper_file(record) in frame.index:
            frame.loc[paper_file(record), "records"] += 1
            frame.loc[paper_file(record), "links"] += record.dataset_link is not None
    for row in run.papers:
        if str(row["file"]) in frame.index:
            frame.loc[str(row["file"]), ["llm_calls", "prompt_tokens"]] = [row.get("llm_calls") or 0,
                                                                            row.get("prompt_tokens") or 0]
    if gold is not None:
        frame = frame.join(_gold_columns(run, gold), how="inner")
    return frame


def _gold_columns(run: RunData, gold: list[GoldPaper]) -> pd.DataFrame:
    rows = {}
    for paper, records in records_by_gold_paper(run, gold)[0]:
        found = found_gold(paper, records)
        marks = [judge(record, paper)[0] for record in {normalize_name(r.name): r for r in records}.values()]
        used = [dataset.name for dataset in paper.datasets if dataset.is_used]
        rows[paper.file] = {"gold": len(paper.datasets), "recalled": len(found), "used_gold": len(used),
                            "used_recalled": len(found & set(used)), "scored": len(marks),
                            "correct": marks.count("correct"), "supported": marks.count("supported")}
    return pd.DataFrame.from_dict(rows, orient="index")


def found_gold(paper: GoldPaper, records: list[DatasetRecord]) -> set[str]:
    """The names of the paper's gold datasets some record matches."""
    return {dataset.name for record in records for mark, hits in [judge(record, paper)] if mark == "correct"
            for dataset in hits}


def paired_differences(base: pd.DataFrame, other: pd.DataFrame, seed: int = 0,
                       resamples: int = RESAMPLES) -> pd.DataFrame:
    """Each measure on the papers both frames hold: the baseline's and the run's value, their difference and its
    95% bootstrap interval."""
    shared = base.index.intersection(other.index)
    a, b = base.loc[shared], other.loc[shared]
    samples = np.random.default_rng(seed).integers(0, len(shared), size=(resamples, len(shared)))
    rows = []
    for measure in [*COUNTS, *(name for name in RATIOS if "gold" in a.columns)]:
        whole = (_values(a, measure, None), _values(b, measure, None)) if len(shared) else (np.nan, np.nan)
        low, high = np.nan, np.nan
        if len(shared):
            spread = _values(b, measure, samples) - _values(a, measure, samples)
            low, high = np.nanpercentile(spread, [2.5, 97.5]) if not np.isnan(spread).all() else (np.nan, np.nan)
        rows.append({"measure": measure, "baseline": whole[0], "run": whole[1], "difference": whole[1] - whole[0],
                     "low": low, "high": high, "papers": len(shared)})
    return pd.DataFrame(rows).set_index("measure")


def _values(frame: pd.DataFrame, measure: str, samples: np.ndarray | None) -> np.ndarray | float:
    """The measure over all papers (`samples` None) or over each resample of papers (one value per row)."""
    if measure in COUNTS:
        column = frame[measure].to_numpy(dtype=float)
        return column[samples].mean(axis=1) if samples is not None else float(column.mean())
    numerator, denominator = (frame[list(columns)].to_numpy(dtype=float).sum(axis=1) for columns in RATIOS[measure])
    if samples is None:
        return float(numerator.sum() / denominator.sum()) if denominator.sum() else np.nan
    totals = denominator[samples].sum(axis=1)
    return np.divide(numerator[samples].sum(axis=1), totals, out=np.full(len(totals), np.nan), where=totals > 0)


def agreement(base: RunData, other: RunData, gold: list[GoldPaper]) -> Agreement:
    """Found-or-missed agreement over the gold datasets of the papers both runs processed."""
    found_base = {paper.file: found_gold(paper, records) for paper, records in records_by_gold_paper(base, gold)[0]}
    found_other = {paper.file: found_gold(paper, records) for paper, records in records_by_gold_paper(other, gold)[0]}
    counts = {"gained": 0, "lost": 0, "both": 0, "neither": 0}
    for paper in gold:
        if paper.file in found_base and paper.file in found_other:
            for dataset in paper.datasets:
                here, there = dataset.name in found_other[paper.file], dataset.name in found_base[paper.file]
                counts["both" if here and there else "gained" if here else "lost" if there else "neither"] += 1
    discordant = counts["gained"] + counts["lost"]
    p_value = binomtest(counts["gained"], discordant, 0.5).pvalue if discordant else 1.0
    return Agreement(p_value=float(p_value), **counts)
