"""Error analysis of a run against gold: why each gold dataset was missed, what each wrong record is,
and how much of the gold the names step was shown (context coverage).

A missed dataset is *not in the parsed text* (a parsing problem), *not shown* (in the text, not in what
the names step read), *shown but not named*, or *named but dropped* (by cleaning, the decided kind, or
the per-paper cap). A wrong record is a *real dataset the gold lacks* (a material mention or a catalogue
dataset), a *model*, *method*, *metric*, *task*, *table header*, or *other*.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dsminer.document.pdf import ParsedPaper
from dsminer.document.text import is_table_row_text
from dsminer.evaluation.gold import GoldDataset, GoldPaper, record_keys, records_by_gold_paper
from dsminer.evaluation.runs import RunData
from dsminer.mentions.names import name_problem
from dsminer.schema import DatasetRecord, normalize_name

MISSED_CLASSES = ("not_in_text", "not_shown", "shown_not_named", "named_but_dropped")
WRONG_CLASSES = ("real_dataset_gold_lacks", "model", "method", "metric", "task", "table_header", "other")
_MODEL_WORDS = re.compile(r"(?:lstm|rnn|cnn|gru|net\b|nets\b|bert|gpt|transformer|attention|reader|parser|"
                          r"tagger|encoder|decoder|\+)", re.I)
_METHOD_WORDS = re.compile(r"\b(?:method|approach|algorithm|baseline|ensemble|layer|pooling|embedding|"
                           r"fine-?tuning|training|model|network|ours)\b", re.I)


def name_tokens(text: str) -> str:
    """Letters and digit runs, case-folded, space-joined with spaces around: the form names are sought in."""
    return " " + " ".join(re.findall(r"[a-z]+|[0-9]+", text.casefold())) + " "


def mentions_any(names: Iterable[str], tokens: str) -> bool:
    """Whether any of `names` occurs in `tokens` (from `name_tokens`) as a whole run of tokens."""
    return any(len(key) > 2 and key in tokens for key in map(name_tokens, names))


@dataclass
class NamesTrace:
    """What a paper's names steps read and proposed, from the run's events."""

    shown: list[str] = field(default_factory=list)
    proposed: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)


def names_traces(events: Iterable[Mapping[str, Any]]) -> dict[str, NamesTrace]:
    """Per paper: every names input shown and every name proposed (of any kind), over all attempts."""
    traces: dict[str, NamesTrace] = {}
    for event in events:
        trace = traces.setdefault(str(event.get("paper")), NamesTrace())
        if event.get("kind") == "names_input":
            trace.shown.append(str(event.get("text") or ""))
        elif event.get("step") == "names" and event.get("kind") in ("result", "names_output"):
            for item in event.get("raw") or []:
                name = str(item.get("name") if isinstance(item, Mapping) else item)
                trace.proposed.append(name)
                if isinstance(item, Mapping):
                    trace.kinds.setdefault(name, str(item.get("kind")))
    return {paper: trace for paper, trace in traces.items() if trace.shown or trace.proposed}


def classify_missed(dataset: GoldDataset, trace: NamesTrace | None, text_tokens: str | None) -> str:
    """Where the pipeline lost a gold dataset."""
    names = (dataset.name, *dataset.aliases)
    if text_tokens is not None and not mentions_any(names, text_tokens):
        return "not_in_text"
    if trace is None or not mentions_any(names, name_tokens("\n".join(trace.shown))):
        return "not_shown"
    keys = {normalize_name(n) for n in names}
    if any(normalize_name(p) in keys or mentions_any(names, name_tokens(p)) for p in trace.proposed):
        return "named_but_dropped"
    return "shown_not_named"


def is_table_header(name: str, paper: ParsedPaper | None) -> bool:
    """Whether the paper writes `name` only in tables: as a cell, or in table text run together."""
    if paper is None:
        return False
    key = name_tokens(name)
    in_cells = any(key in name_tokens(cell) for table in paper.tables for cell in table.cells())
    sentences = [s.text for s, in_refs in paper.indexed_sentences() if not in_refs and key in name_tokens(s.text)]
    prose = [s for s in sentences if not is_table_row_text(s) and len(s.split()) > 6]
    return (in_cells or bool(sentences)) and not prose


def classify_wrong(record: DatasetRecord, gold: GoldPaper, catalog_kinds: Mapping[str, str],
                   paper: ParsedPaper | None) -> str:
    """What a record that matches no gold dataset is."""
    keys = record_keys(record)
    if keys & gold.mention_keys() or any(catalog_kinds.get(k) == "dataset" for k in keys):
        return "real_dataset_gold_lacks"
    kinds = {catalog_kinds.get(k) for k in keys} - {None}
    problem = name_problem(record.name)
    why = problem[1] if problem else ""
    if "metric" in kinds or "metric" in why:
        return "metric"
    if "task" in kinds or "task" in why:
        return "task"
    if "model" in why or _MODEL_WORDS.search(record.name):
        return "model"
    if _METHOD_WORDS.search(record.name):
        return "method"
    if is_table_header(record.name, paper):
        return "table_header"
    return "other"


def error_rows(run: RunData, gold: Sequence[GoldPaper], papers: Mapping[str, ParsedPaper],
               catalog_kinds: Mapping[str, str]) -> list[dict[str, str]]:
    """One row per missed gold dataset and per wrong record of the gold papers the run processed."""
    traces = names_traces(run.events)
    rows: list[dict[str, str]] = []
    for paper, records in records_by_gold_paper(run, list(gold))[0]:
        parsed = papers.get(paper.file)
        text_tokens = name_tokens(parsed.text) if parsed is not None else None
        found = {key for record in records for key in record_keys(record)}
        for dataset in paper.datasets:
            if not dataset.keys() & found:
                kind = classify_missed(dataset, traces.get(paper.file), text_tokens)
                rows.append({"file": paper.file, "error": "missed", "name": dataset.name, "class": kind})
        gold_keys = {key for dataset in paper.datasets for key in dataset.keys()}
        for record in records:
            if not record_keys(record) & gold_keys:
                kind = classify_wrong(record, paper, catalog_kinds, parsed)
                rows.append({"file": paper.file, "error": "wrong", "name": record.name, "class": kind})
    return rows


def context_coverage(run: RunData, gold: Sequence[GoldPaper],
                     papers: Mapping[str, ParsedPaper] | None = None) -> dict[str, float]:
    """`context_coverage`: the share of gold datasets whose name or an alias the names step was shown;
    with the parsed papers, also `context_coverage_in_text`: the same share of those the parsed text
    holds (what a better context could reach). Empty when the run logged no names input."""
    traces = names_traces(run.events)
    pairs = [(paper, traces.get(paper.file)) for paper, _ in records_by_gold_paper(run, list(gold))[0]]
    if not any(trace and trace.shown for _, trace in pairs):
        return {}
    total = shown = in_text = shown_in_text = 0
    for paper, trace in pairs:
        tokens = name_tokens("\n".join(trace.shown)) if trace else " "
        parsed = (papers or {}).get(paper.file)
        text_tokens = name_tokens(parsed.text) if parsed is not None else None
        for dataset in paper.datasets:
            names = (dataset.name, *dataset.aliases)
            seen = mentions_any(names, tokens)
            total, shown = total + 1, shown + seen
            if text_tokens is not None and mentions_any(names, text_tokens):
                in_text, shown_in_text = in_text + 1, shown_in_text + seen
    coverage = {"context_coverage": shown / total if total else 0.0}
    if papers:
        coverage["context_coverage_in_text"] = shown_in_text / in_text if in_text else 0.0
    return coverage


def error_counts(rows: Sequence[Mapping[str, str]]) -> dict[str, int]:
    """Counts per error class, `missed.<class>` and `wrong.<class>`, every class present."""
    counts = Counter(f"{row['error']}.{row['class']}" for row in rows)
    classes = [f"missed.{c}" for c in MISSED_CLASSES] + [f"wrong.{c}" for c in WRONG_CLASSES]
    return {key: counts.get(key, 0) for key in classes}


def errors_markdown(rows: Sequence[Mapping[str, str]], label: str, examples: int = 5) -> str:
    """A short report: the count per class and a few example names of each."""
    lines = [f"# Errors of {label}", "", "| error | class | count | examples |", "|---|---|---|---|"]
    for key, count in error_counts(rows).items():
        error, kind = key.split(".", 1)
        names = [row["name"] for row in rows if row["error"] == error and row["class"] == kind][:examples]
        lines.append(f"| {error} | {kind} | {count} | {', '.join(names)} |")
    return "\n".join(lines) + "\n"
