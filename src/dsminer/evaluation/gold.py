"""Gold datasets per paper (the format of docs/gold-format.md) and scoring a run against them."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsminer.errors import ConfigError, DsminerError, GoldFileError, GoldMismatchError
from dsminer.evaluation.measures import f1, precision, recall
from dsminer.evaluation.runs import RunData, paper_file, processed_files
from dsminer.jsonl import iter_json_objects
from dsminer.mentions.lexicon import NAME_END_NOUN
from dsminer.schema import DatasetRecord, normalize_name

logger = logging.getLogger(__name__)
ROLES = ("used", "created", "mentioned")
_PARENTHESISED = re.compile(r"\(([A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])\)")


@dataclass(frozen=True)
class GoldDataset:
    """One gold dataset of a paper: its canonical name, the names the paper uses for it, its URLs, and what the
    paper does with it (`role`: used, created or mentioned; None when the gold does not say)."""

    name: str
    aliases: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    role: str | None = None

    @property
    def is_used(self) -> bool:
        """Whether the paper uses or creates the dataset (a gold without roles: every dataset)."""
        return self.role != "mentioned"

    def keys(self) -> set[str]:
        """The normalised names a record may carry to match this dataset: its name, its aliases and the
        abbreviation its name defines ("Change Healthcare (CHNG) claims data" goes by "CHNG" too)."""
        return name_keys(self.name, (*self.aliases, *defined_abbreviations(self.name)))


@dataclass
class GoldPaper:
    """The gold annotation of one PDF."""

    file: str
    title: str | None
    datasets: list[GoldDataset]
    material_mentions: dict[str, int] = field(default_factory=dict)

    def used_recalled(self, found: set[str]) -> tuple[int, int]:
        """Of the datasets the paper uses or creates, how many there are and how many of them `found` (gold names)
        holds."""
        used = [dataset for dataset in self.datasets if dataset.is_used]
        return len(used), sum(dataset.name in found for dataset in used)

    def mention_keys(self) -> set[str]:
        """Normalised material mentions: names that count as supported rather than wrong."""
        return {key for key in map(normalize_name, self.material_mentions) if key}


def defined_abbreviations(name: str) -> list[str]:
    """The abbreviations a gold name defines in parentheses: one token of letters, digits and hyphens with at
    least two capitals or a capital and a digit ("(MA-DPH)", "(M14)", "(ScPCA)"; not "(Ensembl 104)")."""
    tokens = _PARENTHESISED.findall(name)
    return [token for token in tokens if sum(c.isupper() for c in token) >= 2
            or (any(c.isupper() for c in token) and any(c.isdigit() for c in token))]


_RANGED = re.compile(r"^(?P<path>.+?)(?::(?P<first>\d+)-(?P<last>\d+))?$")


def ranged_path(spec: str) -> tuple[Path, tuple[int, int] | None]:
    """A corpus named `PATH` or `PATH:FIRST-LAST`: the path, and the 1-based lines to take (both included)."""
    match = _RANGED.match(spec.strip())
    if match is None or not match["first"]:
        return Path(match["path"] if match else spec), None
    return Path(match["path"]), (int(match["first"]), int(match["last"]))


def ranged_label(path: Path, span: tuple[int, int] | None) -> str:
    """A corpus's label: its file's folder (or the file's name), with the lines taken."""
    return (path.parent.name or path.stem) + (f":{span[0]}-{span[1]}" if span else "")


def take_lines(items: list, span: tuple[int, int] | None, spec: str) -> list:
    """The items of lines `span` (all when None); a ConfigError when the span is not within them."""
    if span is None:
        return items
    first, last = span
    if not 1 <= first <= last <= len(items):
        raise ConfigError(f"{spec}: lines {first}-{last} are not within the file's {len(items)} papers")
    return items[first - 1:last]


def load_gold(path: Path | str) -> list[GoldPaper]:
    """Read a gold JSONL file; GoldFileError names the first bad line."""
    path = Path(path)
    if not path.is_file():
        raise DsminerError(f"gold file not found: {path}")
    papers: dict[str, GoldPaper] = {}
    for number, row in iter_json_objects(path, GoldFileError):
        paper = _parse_paper(row, path, number)
        if paper.file in papers:
            raise GoldFileError(path, number, f"paper {paper.file!r} appears twice")
        papers[paper.file] = paper
    if not papers:
        raise GoldFileError(path, 1, "the file holds no gold papers")
    return list(papers.values())


def _parse_paper(row: Any, path: Path, line: int) -> GoldPaper:
    if not isinstance(row, dict):
        raise GoldFileError(path, line, "not a JSON object")
    file = row.get("file")
    if not isinstance(file, str) or not file.strip():
        raise GoldFileError(path, line, "missing 'file' (the PDF file name)")
    title = row.get("title")
    if title is not None and not isinstance(title, str):
        raise GoldFileError(path, line, "'title' must be a string")
    datasets = row.get("datasets")
    if not isinstance(datasets, list):
        raise GoldFileError(path, line, "'datasets' must be a list")
    parsed = [_parse_dataset(item, path, line) for item in datasets]
    mentions = _parse_mentions(row.get("material_mentions", {}), path, line)
    return GoldPaper(file=Path(file).name, title=title, datasets=parsed, material_mentions=mentions)


def _parse_dataset(item: Any, path: Path, line: int) -> GoldDataset:
    """A dataset entry: a bare name, or {"name", "aliases"?, "urls"? or "url"?, "role"?}; other keys are ignored."""
    if isinstance(item, str) and item.strip():
        return GoldDataset(name=item)
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
        raise GoldFileError(path, line, "each dataset needs a non-empty 'name'")
    aliases = item.get("aliases") or []
    urls = item.get("urls") or ([item["url"]] if item.get("url") else [])
    for key, values in (("aliases", aliases), ("urls", urls)):
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            raise GoldFileError(path, line, f"dataset {item['name']!r}: '{key}' must be a list of strings")
    role = item.get("role")
    if role is not None and role not in ROLES:
        raise GoldFileError(path, line, f"dataset {item['name']!r}: 'role' must be one of {', '.join(ROLES)}")
    return GoldDataset(name=item["name"], aliases=tuple(aliases), urls=tuple(urls), role=role)


def _parse_mentions(value: Any, path: Path, line: int) -> dict[str, int]:
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return {name: 1 for name in value}
    if isinstance(value, dict) and all(isinstance(count, int) for count in value.values()):
        return {str(name): count for name, count in value.items()}
    raise GoldFileError(path, line, "'material_mentions' must map strings to counts (or list strings)")


@dataclass
class GoldScores:
    """Scores of one run against the gold, at the (paper, normalised dataset name) level."""

    label: str
    papers: int
    gold_datasets: int
    recalled: int
    records: int
    correct: int
    supported: int
    repeats: int
    link_checked: int
    link_correct: int
    used_gold: int
    used_recalled: int
    role_checked: int
    role_correct: int
    gold_papers_not_run: int
    records_outside_gold: int
    per_paper: list[dict[str, Any]]

    @property
    def precision_strict(self) -> float:
        return precision(self.correct, self.records, self.gold_datasets)

    @property
    def precision_lenient(self) -> float:
        return precision(self.correct + self.supported, self.records, self.gold_datasets)

    @property
    def recall(self) -> float:
        return recall(self.recalled, self.gold_datasets)

    @property
    def recall_used(self) -> float:
        """Recall of the gold datasets the paper uses or creates (of all of them when the gold has no roles)."""
        return recall(self.used_recalled, self.used_gold)

    @property
    def role_accuracy(self) -> float | None:
        """The share of correct records whose role is the gold's, over those whose gold dataset has a role."""
        return self.role_correct / self.role_checked if self.role_checked else None

    @property
    def link_precision(self) -> float | None:
        return self.link_correct / self.link_checked if self.link_checked else None

    def metrics(self) -> dict[str, float]:
        """The headline numbers, as MLflow metrics (link precision only when some link was checked)."""
        values = {
            "precision_strict": self.precision_strict,
            "precision_lenient": self.precision_lenient,
            "recall": self.recall,
            "recall_used": self.recall_used,
            "f1_strict": f1(self.precision_strict, self.recall),
            "f1_lenient": f1(self.precision_lenient, self.recall),
            "gold_papers": float(self.papers),
            "gold_datasets": float(self.gold_datasets),
            "scored_records": float(self.records),
            "repeated_records": float(self.repeats),
        }
        if self.link_precision is not None:
            values["link_precision"] = self.link_precision
        if self.role_accuracy is not None:
            values["role_accuracy"] = self.role_accuracy
        return values


# GoldScores' counts, each the sum of one column of the per-paper rows.
_COUNTED = {"gold_datasets": "gold", "recalled": "recalled", "records": "records", "correct": "correct",
            "supported": "supported", "repeats": "repeats", "link_checked": "link_checked",
            "link_correct": "link_correct", "used_gold": "used_gold", "used_recalled": "used_recalled",
            "role_checked": "role_checked", "role_correct": "role_correct"}


def check_gold_fits(files: Sequence[str], gold: Sequence[GoldPaper], what: str) -> None:
    """Raise `GoldMismatchError` when the gold holds none of `files` (the PDF file names of `what`)."""
    names = {Path(name).name for name in files if name}
    if names and not names & {paper.file for paper in gold}:
        raise GoldMismatchError(f"no paper of {what} is in the gold: {what} has {len(names)} (e.g. "
                                f"{min(names)}), the gold {len(gold)} (e.g. {min(p.file for p in gold)})")


def score_run(run: RunData, gold: list[GoldPaper]) -> GoldScores:
    """Score a run on the gold papers it processed: strict and lenient precision, recall, link precision."""
    by_paper, outside = records_by_gold_paper(run, gold)
    if not by_paper and (run.papers or run.records):  # by file or by title
        check_gold_fits(processed_files(run), gold, f"run {run.label}")
    status = {Path(str(row.get("file"))).name: str(row.get("status", "-")) for row in run.papers}
    rows = [_score_paper(paper, records, status.get(paper.file, "ok")) for paper, records in by_paper]
    counts = {field: sum(row[key] for row in rows) for field, key in _COUNTED.items()}
    return GoldScores(label=run.label, papers=len(rows), gold_papers_not_run=len(gold) - len(rows),
                      records_outside_gold=outside, per_paper=rows, **counts)


def records_by_gold_paper(
    run: RunData, gold: list[GoldPaper]
) -> tuple[list[tuple[GoldPaper, list[DatasetRecord]]], int]:
    """Pair each gold paper the run processed with its records (by file, else title); count the rest."""
    by_file = {paper.file: paper for paper in gold}
    by_title = {title_key(paper.title): paper for paper in gold if paper.title and title_key(paper.title)}
    assigned: dict[str, list[DatasetRecord]] = {paper.file: [] for paper in gold}
    processed = {by_file[name].file for name in processed_files(run) if name in by_file}
    outside = 0
    for record in run.records:
        paper = by_file.get(paper_file(record)) or by_title.get(title_key(record.paper_refs.title or ""))
        if paper is None:
            outside += 1
            continue
        assigned[paper.file].append(record)
        processed.add(paper.file)
    return [(paper, assigned[paper.file]) for paper in gold if paper.file in processed], outside


def _score_paper(paper: GoldPaper, records: list[DatasetRecord], status: str) -> dict[str, Any]:
    """One per-paper row: counts of correct, supported and wrong names, of links and roles checked. A correct
    record that matches only gold datasets an earlier record of the paper matched is also counted as a repeat: the
    precisions count it as correct, though it names a dataset the paper already has a record for. A correct
    record's role is right when a gold dataset it matches has that role."""
    names: dict[str, DatasetRecord] = {}
    for record in records:
        names.setdefault(normalize_name(record.name), record)
    names.pop("", None)
    found: set[str] = set()
    correct, supported, repeats, wrong, link_checked, link_correct = 0, 0, 0, [], 0, 0
    role_checked, role_correct = 0, 0
    for key, record in names.items():
        mark, hits = judge(record, paper)
        if mark == "correct":
            correct += 1
            checked, right = role_verdict(record.role, hits)
            role_checked, role_correct = role_checked + checked, role_correct + right
            repeats += all(dataset.name in found for dataset in hits)
            found.update(dataset.name for dataset in hits)
            urls = [url for dataset in hits for url in dataset.urls]
            if urls and record.dataset_link:
                link_checked += 1
                link_correct += link_matches(record.dataset_link, urls)
        elif mark == "supported":
            supported += 1
        else:
            wrong.append(record.name)
    missed = [dataset.name for dataset in paper.datasets if dataset.name not in found]
    used_gold, used_recalled = paper.used_recalled(found)
    return {
        "file": paper.file, "title": paper.title or "", "status": status,
        "gold": len(paper.datasets), "records": len(names), "correct": correct, "supported": supported,
        "repeats": repeats, "wrong": len(wrong), "recalled": len(paper.datasets) - len(missed),
        "recall": recall(len(paper.datasets) - len(missed), len(paper.datasets)),
        "precision_strict": precision(correct, len(names), len(paper.datasets)),
        "precision_lenient": precision(correct + supported, len(names), len(paper.datasets)),
        "used_gold": used_gold, "used_recalled": used_recalled,
        "role_checked": role_checked, "role_correct": role_correct,
        "link_checked": link_checked, "link_correct": link_correct,
        "missed": "; ".join(missed), "wrong_names": "; ".join(sorted(wrong)),
    }


def role_verdict(role: str | None, hits: Sequence[GoldDataset]) -> tuple[bool, bool]:
    """Whether a correct prediction's role can be checked (a gold dataset it matches has a role) and is right (one of
    them has `role`)."""
    roles = {dataset.role for dataset in hits if dataset.role}
    return bool(roles), bool(roles) and role in roles


def judge(record: DatasetRecord, paper: GoldPaper) -> tuple[str, list[GoldDataset]]:
    """The record's mark against the paper's gold, with the gold datasets it matches: "correct" (by its name
    or an alias), "supported" (only a material mention), else "wrong"."""
    return judge_keys(record_keys(record), paper)


def judge_keys(keys: set[str], paper: GoldPaper) -> tuple[str, list[GoldDataset]]:
    """The mark of a dataset that goes by the normalised names `keys`, as `judge` gives it."""
    hits = [dataset for dataset in paper.datasets if keys & dataset.keys()]
    if hits:
        return "correct", hits
    return ("supported" if keys & paper.mention_keys() else "wrong"), []


def record_keys(record: DatasetRecord) -> set[str]:
    """The normalised names a record goes by: its name and its aliases."""
    return name_keys(record.name, record.aliases)


def name_keys(name: str, aliases: Sequence[str] = ()) -> set[str]:
    """A name and its aliases, normalised for matching, each also without a data noun ending it ("the X cohort
    study", "X data": "X"), the empty ones left out."""
    names = (name, *aliases)
    return {key for key in map(normalize_name, (*names, *(NAME_END_NOUN.sub("", n.strip()) for n in names))) if key}


def link_matches(link: str, gold_urls: list[str]) -> bool:
    """True when the link is one of the gold URLs or lies under one (scheme, www and trailing / ignored)."""
    key = url_key(link)
    return any(key == gold or key.startswith(gold + "/") for gold in map(url_key, gold_urls) if gold)


def url_key(url: str) -> str:
    """A URL folded for comparison: no scheme, no www., lower-case host, no trailing slash or .git."""
    text = re.sub(r"^[a-z]+://", "", url.strip(), flags=re.IGNORECASE)
    host, _, rest = text.partition("/")
    host = host.lower().removeprefix("www.")
    path = re.sub(r"(\.git)?/*$", "", rest)
    return f"{host}/{path}" if path else host


def title_key(title: str) -> str:
    """A paper title folded for matching: NFKC, case-folded, letters and digits only."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", title).casefold())


def format_scores(scores: GoldScores) -> str:
    """Render the headline scores as plain text."""
    metrics = scores.metrics()
    lines = [f"run {scores.label}: {scores.papers} gold papers scored, {scores.gold_papers_not_run} not in the run, "
             f"{scores.records_outside_gold} records on papers outside the gold"]
    lines.append(f"  records {scores.records}: correct {scores.correct}, supported {scores.supported}, "
                 f"wrong {scores.records - scores.correct - scores.supported}; repeats {scores.repeats} (correct, "
                 f"but for a gold dataset an earlier record of the paper matched)")
    lines.append(f"  gold datasets {scores.gold_datasets}: recalled {scores.recalled}")
    for key in ("precision_strict", "precision_lenient", "recall", "recall_used", "f1_strict", "f1_lenient"):
        lines.append(f"  {key:<18} {metrics[key]:.3f}")
    if scores.role_accuracy is not None:
        lines.append(f"  role_accuracy      {scores.role_accuracy:.3f} ({scores.role_correct}/{scores.role_checked})")
    link = "n/a (no gold URL met a record link)" if scores.link_precision is None else f"{scores.link_precision:.3f}"
    lines.append(f"  link_precision     {link} ({scores.link_correct}/{scores.link_checked})")
    return "\n".join(lines)
