"""Manual validation: sample records into an annotation sheet (CSV + HTML page) and score the filled sheet."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from dsminer.errors import AuditSheetError, DsminerError
from dsminer.evaluation.compare import PairKey, canonical_titles, pair_key
from dsminer.evaluation.runs import RunData, assign_labels, paper_file
from dsminer.schema import DatasetRecord, normalize_name

INFO_COLUMNS = ["row", "condition", "run_id", "category", "paper", "title", "dataset", "norm_name",
                "dataset_link", "platform", "content", "page", "quote"]
VERDICT_COLUMNS = ["mentioned", "is_dataset", "link_supported", "link_where", "annotator", "notes"]
LINK_PLACES = ("text", "table", "caption", "reference")
MISSING_FIELDS = ("dataset_link", "page", "quote", "content")
YES = {"y", "yes", "1", "true", "x"}
NO = {"n", "no", "0", "false"}



def sample_audit(runs: list[RunData], n: int, seed: int = 0) -> pd.DataFrame:
    """Sample up to n records, spread evenly over (condition, shared|specific) strata, as a blank sheet."""
    assign_labels(runs)
    strata = _strata(runs)
    rng = random.Random(seed)
    for key in sorted(strata):
        rng.shuffle(strata[key])
    queues = [strata[key] for key in sorted(strata)]
    picked: list[dict[str, Any]] = []
    while len(picked) < n and any(queues):
        for queue in queues:
            if queue and len(picked) < n:
                picked.append(queue.pop())
    picked.sort(key=lambda row: (row["paper"], row["norm_name"], row["condition"]))
    frame = pd.DataFrame(picked, columns=INFO_COLUMNS[1:])
    frame.insert(0, "row", range(1, len(frame) + 1))
    for column in VERDICT_COLUMNS:
        frame[column] = ""
    return frame


def _strata(runs: list[RunData]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Each run's distinct (paper, dataset) records grouped by (label, category)."""
    titles = canonical_titles(runs)
    keys_per_run = {run.label: {pair_key(record, titles) for record in run.records} - {None} for run in runs}
    runs_per_key: dict[PairKey, int] = defaultdict(int)
    for keys in keys_per_run.values():
        for key in keys:
            runs_per_key[key] += 1
    strata: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for run in runs:
        seen: set[PairKey] = set()
        for record in run.records:
            key = pair_key(record, titles)
            if key is None or key in seen:
                continue
            seen.add(key)
            category = "single" if len(runs) == 1 else ("shared" if runs_per_key[key] > 1 else "specific")
            strata[(run.label, category)].append(_sheet_row(run, record, category))
    return strata


def _sheet_row(run: RunData, record: DatasetRecord, category: str) -> dict[str, Any]:
    return {
        "condition": run.label, "run_id": run.run_id or "", "category": category,
        "paper": paper_file(record), "title": record.paper_refs.title or "", "dataset": record.name,
        "norm_name": normalize_name(record.name), "dataset_link": record.dataset_link or "",
        "platform": record.platform, "content": record.dataset_describe.content or "",
        "page": "" if record.evidence.page is None else record.evidence.page, "quote": record.evidence.quote or "",
    }


def carry_verdicts(frame: pd.DataFrame, earlier: Path | str) -> int:
    """Fill `frame`'s verdicts from an earlier filled sheet, so a run sampled again after a change is read only
    where its records are new: a row takes the verdicts of the earlier row of the same paper and dataset (the
    same normalised name), the link verdicts only where the link is the same too. Verdicts are written as yes or
    no, and the notes say which row they came from. Returns how many rows were filled."""
    path = Path(earlier)
    rows = _read_sheet(path)
    judged = {(row["paper"], normalize_name(row["dataset"])): row for row in reversed(rows)
              if row["mentioned"] is not None or row["is_dataset"] is not None}
    carried = 0
    for index, row in frame.iterrows():
        before = judged.get((row["paper"], normalize_name(row["dataset"])))
        if before is None:
            continue
        carried += 1
        values = {column: _yes_no(before[column]) for column in ("mentioned", "is_dataset")}
        if before["dataset_link"].strip() == str(row["dataset_link"]).strip():
            values["link_supported"] = _yes_no(before["link_supported"])
            values["link_where"] = " ".join(before["link_where"])
        note = f"carried from {path.name} row {before['row']}"
        values["annotator"] = before["annotator"]
        values["notes"] = f"{before['notes']} ({note})" if before["notes"] else note
        for column, value in values.items():
            frame.at[index, column] = value
    return carried


def _yes_no(verdict: bool | None) -> str:
    return "" if verdict is None else "yes" if verdict else "no"


def score_audit(path: Path | str) -> dict[str, Any]:
    """Sampled precision, link-grounding precision, missing-field rates and disagreements of a filled sheet."""
    rows = _read_sheet(Path(path))
    by_condition: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_condition[row["condition"]].append(row)
        by_category[row["category"]].append(row)
    return {
        "sheet": str(path),
        "overall": _group_scores(rows),
        "by_condition": {key: _group_scores(group) for key, group in sorted(by_condition.items())},
        "by_category": {key: _group_scores(group) for key, group in sorted(by_category.items())},
        "disagreements": _disagreements(rows),
    }


def _read_sheet(path: Path) -> list[dict[str, Any]]:
    """The sheet's rows with verdicts parsed to True / False / None (blank)."""
    if not path.is_file():
        raise DsminerError(f"audit sheet not found: {path}")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise AuditSheetError(path, None, f"not a readable CSV sheet: {exc}") from exc
    missing = [column for column in INFO_COLUMNS + VERDICT_COLUMNS if column not in frame.columns]
    if missing:
        raise AuditSheetError(path, None, f"missing columns: {', '.join(missing)}")
    rows = []
    for record in frame.to_dict("records"):
        row_id = int(record["row"]) if record["row"].strip().isdigit() else None
        for column in ("mentioned", "is_dataset", "link_supported"):
            record[column] = _verdict(record[column], path, row_id, column)
        record["link_where"] = _places(record["link_where"], path, row_id)
        rows.append(record)
    return rows


def _verdict(value: str, path: Path, row: int | None, column: str) -> bool | None:
    folded = value.strip().casefold()
    if not folded:
        return None
    if folded in YES or folded in NO:
        return folded in YES
    raise AuditSheetError(path, row, f"{column} must be yes, no or blank, not {value!r}")


def _places(value: str, path: Path, row: int | None) -> list[str]:
    places = [re.sub(r"s$", "", part) for part in re.split(r"[\s,;/|+]+", value.strip().casefold()) if part]
    unknown = [place for place in places if place not in LINK_PLACES]
    if unknown:
        raise AuditSheetError(path, row, f"link_where must name {', '.join(LINK_PLACES)}, not {unknown[0]!r}")
    return places


def _group_scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision and rates of one group of sheet rows (None where nothing was annotated)."""
    judged = [row for row in rows if row["mentioned"] is not None and row["is_dataset"] is not None]
    linked = [row for row in rows if row["dataset_link"].strip() and row["link_supported"] is not None]
    places: dict[str, int] = {place: 0 for place in LINK_PLACES}
    for row in linked:
        for place in set(row["link_where"]):
            places[place] += 1
    return {
        "rows": len(rows),
        "annotated": len(judged),
        "precision": _ratio(sum(row["mentioned"] and row["is_dataset"] for row in judged), len(judged)),
        "mentioned_rate": _ratio(sum(row["mentioned"] is True for row in judged), len(judged)),
        "dataset_rate": _ratio(sum(row["is_dataset"] is True for row in judged), len(judged)),
        "links_annotated": len(linked),
        "link_grounding_precision": _ratio(sum(row["link_supported"] is True for row in linked), len(linked)),
        "link_where": places,
        "missing_rates": {name: _ratio(sum(not row[name].strip() for row in rows), len(rows))
                          for name in MISSING_FIELDS},
    }


def _disagreements(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pairs (paper, normalised name) whose rows disagree on mentioned or is_dataset."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["paper"], row["norm_name"])].append(row)
    found = []
    for (paper, name), group in sorted(groups.items()):
        for column in ("mentioned", "is_dataset"):
            values = {row[column] for row in group if row[column] is not None}
            if len(values) > 1:
                found.append({"paper": paper, "dataset": name, "field": column,
                              "rows": [row["row"] for row in group], "conditions": [row["condition"] for row in group]})
    return found


def format_audit_scores(result: dict[str, Any]) -> str:
    """Render score_audit's result as plain text."""
    lines = [f"audit sheet {result['sheet']}"]
    groups = {"overall": result["overall"], **{f"condition {k}": v for k, v in result["by_condition"].items()},
              **{f"category {k}": v for k, v in result["by_category"].items()}}
    for name, scores in groups.items():
        missing = ", ".join(f"{key} {value:.2f}" for key, value in scores["missing_rates"].items())
        lines.append(f"{name}: {scores['annotated']}/{scores['rows']} annotated, "
                     f"precision {_fmt(scores['precision'])}, "
                     f"link grounding {_fmt(scores['link_grounding_precision'])} "
                     f"over {scores['links_annotated']} links; missing {missing}")
    lines.append(f"disagreements: {len(result['disagreements'])}")
    lines += [f"  {d['paper']} | {d['dataset']}: {d['field']} differs across rows {d['rows']}"
              for d in result["disagreements"]]
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None
