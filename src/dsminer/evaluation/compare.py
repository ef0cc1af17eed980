"""Side-by-side comparison of runs: a metrics table, pairwise overlap of (paper, dataset) pairs, plots."""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dsminer.evaluation.gold import GoldPaper, GoldScores, score_run, title_key
from dsminer.evaluation.paired import Agreement, agreement, paired_differences, per_paper
from dsminer.evaluation.runs import RunData, assign_labels, paper_file
from dsminer.evaluation.summary import HEADLINE_EVENTS, summarize_run
from dsminer.schema import DatasetRecord, normalize_name

logger = logging.getLogger(__name__)

PairKey = tuple[str, str]
EXAMPLES = 5
PLOTS = {  # file stem: (table column, title, is a share in [0, 1])
    "records": ("record_count", "Records", False),
    "datasets_per_paper": ("datasets_per_paper", "Datasets per paper", False),
    "link_rate": ("link_rate", "Link rate", True),
    "recall": ("recall", "Recall of gold datasets", True),
}


@dataclass
class Overlap:
    """Shared and one-sided (paper, dataset) pairs of two runs, with a few examples of each."""

    a: str
    b: str
    shared: int
    only_a: int
    only_b: int
    examples_shared: list[str] = field(default_factory=list)
    examples_only_a: list[str] = field(default_factory=list)
    examples_only_b: list[str] = field(default_factory=list)

    @property
    def jaccard(self) -> float:
        union = self.shared + self.only_a + self.only_b
        return self.shared / union if union else 0.0


@dataclass
class Comparison:
    """The comparison of several runs: one table row per run, pairwise overlaps, gold scores if any."""

    table: pd.DataFrame
    overlaps: list[Overlap]
    scores: dict[str, GoldScores] = field(default_factory=dict)
    baseline: str = ""
    paired: dict[str, pd.DataFrame] = field(default_factory=dict)
    agreements: dict[str, Agreement] = field(default_factory=dict)


def compare_runs(runs: list[RunData], gold: list[GoldPaper] | None = None) -> Comparison:
    """Build the metrics table (indexed by run label), the pairwise overlaps of the runs, and each run's paired
    differences from the baseline (the `s0` run, else the first) with their intervals."""
    assign_labels(runs)
    scores = {run.label: score_run(run, gold) for run in runs} if gold else {}
    rows = [_table_row(run, scores.get(run.label)) for run in runs]
    table = pd.DataFrame(rows).set_index("label")
    pairs = paper_pairs(runs)
    overlaps = [_overlap(a.label, b.label, pairs[a.label], pairs[b.label]) for a, b in combinations(runs, 2)]
    base = next((run for run in runs if run.condition == "s0"), runs[0])
    frames = {run.label: per_paper(run, gold) for run in runs}
    others = [run for run in runs if run is not base]
    paired = {run.label: paired_differences(frames[base.label], frames[run.label]) for run in others}
    agreements = {run.label: agreement(base, run, gold) for run in others} if gold else {}
    return Comparison(table=table, overlaps=overlaps, scores=scores, baseline=base.label, paired=paired,
                      agreements=agreements)


def _table_row(run: RunData, scores: GoldScores | None) -> dict[str, Any]:
    """One run's summary flattened into table columns, plus its gold metrics when scored."""
    summary = summarize_run(run)
    row: dict[str, Any] = {key: summary[key] for key in (
        "label", "condition", "run_id", "record_count", "papers_processed", "papers_failed", "unique_papers",
        "datasets_per_paper", "link_rate", "platform_rate", "content_rate")}
    row.update({f"nonempty.{key}": value for key, value in summary["field_nonempty_rates"].items()})
    row.update({f"events.{kind}": summary["event_counts"][kind] for kind in HEADLINE_EVENTS})
    row.update({f"usage.{key}": value for key, value in summary["usage"].items()})
    if scores is not None:
        row.update(scores.metrics())
        row.setdefault("link_precision", math.nan)
    return row


def paper_pairs(runs: list[RunData]) -> dict[str, dict[PairKey, str]]:
    """Each run's (paper title, normalised name) keys with a display string, titles shared across runs."""
    titles = canonical_titles(runs)
    result: dict[str, dict[PairKey, str]] = {}
    for run in runs:
        pairs: dict[PairKey, str] = {}
        for record in run.records:
            key = pair_key(record, titles)
            if key is not None:
                pairs.setdefault(key, f"{titles.get(paper_file(record)) or paper_file(record)} | {record.name}")
        result[run.label] = pairs
    return result


def pair_key(record: DatasetRecord, titles: dict[str, str]) -> PairKey | None:
    """A record's (folded paper title, normalised dataset name); the file name stands in for a missing title."""
    name = normalize_name(record.name)
    file = paper_file(record)
    return (title_key(titles.get(file, "")) or file, name) if name else None


def canonical_titles(runs: list[RunData]) -> dict[str, str]:
    """The most common non-empty title per PDF over all runs, so every run keys a paper the same way."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for run in runs:
        for record in run.records:
            if record.paper_refs.title and record.paper_refs.title.strip():
                seen[paper_file(record)][record.paper_refs.title.strip()] += 1
    return {file: counts.most_common(1)[0][0] for file, counts in seen.items()}


def _overlap(a: str, b: str, pairs_a: dict[PairKey, str], pairs_b: dict[PairKey, str]) -> Overlap:
    keys_a, keys_b = pairs_a.keys(), pairs_b.keys()
    shared, only_a, only_b = keys_a & keys_b, keys_a - keys_b, keys_b - keys_a
    return Overlap(
        a=a, b=b, shared=len(shared), only_a=len(only_a), only_b=len(only_b),
        examples_shared=sorted(pairs_a[key] for key in shared)[:EXAMPLES],
        examples_only_a=sorted(pairs_a[key] for key in only_a)[:EXAMPLES],
        examples_only_b=sorted(pairs_b[key] for key in only_b)[:EXAMPLES],
    )


def overlap_frame(comparison: Comparison) -> pd.DataFrame:
    """The overlap counts as a table, one row per pair of runs."""
    columns = ["a", "b", "shared", "only_a", "only_b", "jaccard"]
    rows = [{"a": o.a, "b": o.b, "shared": o.shared, "only_a": o.only_a, "only_b": o.only_b, "jaccard": o.jaccard}
            for o in comparison.overlaps]
    return pd.DataFrame(rows, columns=columns)


def comparison_metrics(comparison: Comparison) -> dict[str, float]:
    """Numeric table cells as ``label.metric`` MLflow metrics, NaN cells left out."""
    metrics: dict[str, float] = {}
    numeric = comparison.table.select_dtypes("number")
    for label, row in numeric.iterrows():
        metrics.update({f"{label}.{key}": float(value) for key, value in row.items() if not pd.isna(value)})
    for label, frame in comparison.paired.items():
        for measure, row in frame.iterrows():
            metrics.update({f"paired.{label}.{measure}.{key}": float(row[key]) for key in ("difference", "low", "high")
                            if not pd.isna(row[key])})
    for label, found in comparison.agreements.items():
        metrics.update({f"mcnemar.{label}.{key}": float(value) for key, value in vars(found).items()})
    return metrics


def paired_markdown(comparison: Comparison) -> str:
    """Each run against the baseline: the measures with their difference and 95% interval, then the gold
    datasets only one of the two found, with McNemar's p-value."""
    parts = []
    for label, frame in comparison.paired.items():
        shown = frame.assign(interval=[f"[{low:+.3f}, {high:+.3f}]" for low, high in zip(frame["low"], frame["high"])])
        parts.append(f"### {label} against {comparison.baseline} ({int(frame['papers'].max())} papers both read)\n\n"
                     + markdown_table(shown[["baseline", "run", "difference", "interval"]], "measure"))
        if label in comparison.agreements:
            found = comparison.agreements[label]
            parts.append(f"gold datasets found only by {label}: {found.gained}, only by {comparison.baseline}: "
                         f"{found.lost}, by both: {found.both}, by neither: {found.neither}; McNemar exact p = "
                         f"{found.p_value:.3f}")
    return "\n\n".join(parts)


def write_comparison(comparison: Comparison, out_dir: Path) -> list[Path]:
    """Write comparison.md, comparison.csv, overlap.md and the PNG plots; return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    side_by_side = comparison.table.drop(columns=["condition", "run_id"]).T
    md = out_dir / "comparison.md"
    md.write_text("# Run comparison\n\n" + markdown_table(side_by_side, "metric") + "\n\n## Overlap\n\n"
                  + markdown_table(overlap_frame(comparison).set_index("a"), "a") + "\n\n## Paired differences\n\n"
                  + paired_markdown(comparison) + "\n", encoding="utf-8")
    csv = out_dir / "comparison.csv"
    comparison.table.to_csv(csv)
    overlap_md = out_dir / "overlap.md"
    overlap_md.write_text(_overlap_markdown(comparison), encoding="utf-8")
    written = [md, csv, overlap_md]
    for name, (column, title, is_share) in PLOTS.items():
        if column in comparison.table.columns:
            written.append(_bar_plot(comparison.table[column], title, out_dir / f"{name}.png", is_share))
    if comparison.paired:
        written.append(_interval_plot(comparison, out_dir / "paired.png"))
    logger.info("wrote %d comparison files to %s", len(written), out_dir)
    return written


def _overlap_markdown(comparison: Comparison) -> str:
    counts = markdown_table(overlap_frame(comparison).set_index("a"), "a")
    parts = ["# Pairwise overlap of (paper, dataset) pairs\n", counts]
    for o in comparison.overlaps:
        parts.append(f"\n## {o.a} vs {o.b}\n")
        for heading, examples in (("shared", o.examples_shared), (f"only {o.a}", o.examples_only_a),
                                  (f"only {o.b}", o.examples_only_b)):
            parts.append(f"{heading}:\n" + ("\n".join(f"- {example}" for example in examples) or "- (none)") + "\n")
    return "\n".join(parts)


def markdown_table(frame: pd.DataFrame, index_name: str) -> str:
    """A GitHub-flavoured Markdown table of a frame, its index as the first column."""
    header = [index_name, *map(str, frame.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for index, row in frame.iterrows():
        cells = [str(index), *(_cell(value) for value in row)]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return str(int(value)) if value.is_integer() else f"{value:.3f}"
    return "-" if value is None else str(value)


def _bar_plot(values: pd.Series, title: str, path: Path, is_share: bool) -> Path:
    """A bar per run; drawn on a bare Figure so no global pyplot backend is touched."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(max(4.0, 1.2 * len(values) + 2), 3.5), layout="constrained")
    axes = figure.subplots()
    axes.bar([str(label) for label in values.index], values.fillna(0).astype(float))
    axes.set_title(title)
    axes.set_xlabel("condition")
    if is_share:
        axes.set_ylim(0, 1)
    figure.savefig(path, dpi=100)
    return path


def _interval_plot(comparison: Comparison, path: Path) -> Path:
    """Each run's difference from the baseline with its 95% interval, one panel per measure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measures = list(next(iter(comparison.paired.values())).index)
    figure, axes = plt.subplots(1, len(measures), figsize=(2.6 * len(measures), 0.6 + 0.5 * len(comparison.paired)))
    for axis, measure in zip(np.atleast_1d(axes), measures):
        labels = list(comparison.paired)
        rows = [comparison.paired[label].loc[measure] for label in labels]
        centre = [row["difference"] for row in rows]
        errors = [[c - row["low"] for c, row in zip(centre, rows)], [row["high"] - c for c, row in zip(centre, rows)]]
        axis.errorbar(centre, range(len(labels)), xerr=np.nan_to_num(errors), fmt="o", capsize=3)
        axis.axvline(0, color="grey", linewidth=0.8)
        axis.set_yticks(range(len(labels)), labels if axis is np.atleast_1d(axes)[0] else [""] * len(labels))
        axis.set_title(measure, fontsize=9)
    figure.suptitle(f"difference from {comparison.baseline} (95% bootstrap interval)", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
