"""Names of known datasets from catalogue files, and which of them a paper's text writes.

A catalogue is optional: every caller works with an empty one. Only distinctive names are kept
(an acronym, a token with an inner capital or a digit, or two or more capitalised words), and they
are matched case-sensitively, so a catalogue entry that is also a common phrase does not fire.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from dsminer.document.links import is_paper_page
from dsminer.document.text import collapse_whitespace, name_pattern
from dsminer.errors import ConfigError
from dsminer.schema import normalize_name

log = logging.getLogger(__name__)

# Fields that hold a dataset's display name, and for typed catalogues the type that means "dataset".
_NAME_FIELDS = ("display", "pretty_name")
_DATASET_TYPES = frozenset({"Material"})
_DISTINCT_TOKEN = re.compile(r"^(?:[A-Z]{3,}\S*|\S+[A-Z0-9]\S*)$")
_CAPITALISED = re.compile(r"^[A-Z][\w-]+$")
_PLACEHOLDERS = frozenset({"more information needed"})
_GENERIC_END = re.compile(r"\s+(?:data ?set|corpus|benchmark)s?$", re.I)


def distinctive_name(raw: str) -> str | None:
    """The catalogue name cut to its name part, or None if it could be an ordinary phrase."""
    name = collapse_whitespace(re.split(r"[:(]", raw, maxsplit=1)[0])
    name = _GENERIC_END.sub("", name).strip(" -,.")
    if not name or name.casefold() in _PLACEHOLDERS or len(name) > 60:
        return None
    words = name.split()
    if len(words) == 1:
        return name if _DISTINCT_TOKEN.match(name) and len(name) >= 3 else None
    return name if sum(bool(_CAPITALISED.match(w)) for w in words) >= 2 else None


def _names_in_row(row: dict) -> list[str]:
    if row.get("scirex_type") not in (None, *_DATASET_TYPES):
        return []
    raw = [row.get(field) for field in _NAME_FIELDS] + (row["aliases"] if isinstance(row.get("aliases"), list) else [])
    return [name for name in (distinctive_name(r) for r in raw if isinstance(r, str)) if name]


def catalog_rows(directory: Path | None) -> Iterator[dict]:
    """The JSON objects of every `*.jsonl` in `directory`; a line that is not JSON is skipped with a warning.

    A folder that does not exist, holds no `*.jsonl`, or a file none of whose lines is a JSON object is not a
    catalogue: a ConfigError says so in one line."""
    if directory is None:
        return
    directory = Path(directory)
    if not directory.is_dir():
        raise ConfigError(f"catalogue {directory} is not a folder")
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        raise ConfigError(f"catalogue {directory} holds no *.jsonl file")
    for path in files:
        rows = 0
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                row = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                log.warning("%s line %d: not JSON, skipped", path.name, number)
                continue
            if isinstance(row, dict):
                rows += 1
                yield row
        if not rows:
            raise ConfigError(f"{path} is not a catalogue: no line is a JSON object")


def load_catalog_names(directory: Path | None) -> frozenset[str]:
    """Distinctive dataset names from every `*.jsonl` in `directory`; empty when there is none."""
    names: set[str] = set()
    for row in catalog_rows(directory):
        names.update(_names_in_row(row))
    log.debug("catalogue: %d distinctive names from %s", len(names), directory)
    return frozenset(names)


def catalog_names_in(text: str, names: Iterable[str], limit: int = 12) -> list[str]:
    """Catalogue names the text writes, with the case the catalogue gives, in order of first mention."""
    folded = text.casefold()
    found: list[tuple[int, str]] = []
    for name in names:
        if name.split()[0].casefold() not in folded:
            continue
        loose = name_pattern(name)
        match = re.search(loose.pattern, text) if loose is not None else None
        if match:
            found.append((match.start(), name))
    return [name for _, name in sorted(found)][:limit]



_KINDS = {"Material": "dataset", "Metric": "metric", "Task": "task"}


def load_catalog_kinds(directory: Path | None) -> dict[str, str]:
    """Normalised catalogue names with their kind (dataset, metric or task), for classifying names;
    empty when there is no catalogue."""
    kinds: dict[str, str] = {}
    for row in catalog_rows(directory):
        kind = _KINDS.get(row.get("scirex_type") or "Material")
        for key in ("display", "pretty_name", "pwc_name"):
            name = row.get(key)
            if kind and isinstance(name, str) and normalize_name(name):
                kinds.setdefault(normalize_name(name.replace("_", " ")), kind)
    return kinds


# A web address: a card's homepage field also holds placeholders ("[More Information Needed]", "[]()", "N/A").
_WEB_ADDRESS = re.compile(r"https?://[\w-]+(?:\.[\w-]+)+(?:[/?#][^\s\[\]]*)?", re.I)


def catalog_url(row: dict) -> str | None:
    """A catalogue row's link for its dataset: its homepage unless that is a paper's page, else its page on the hub
    that lists it (Hugging Face, TensorFlow Datasets), whichever is a web address first; None when none is."""
    for key in ("homepage", "hf_url", "tfds_url"):
        url = row[key].strip() if isinstance(row.get(key), str) else ""
        if _WEB_ADDRESS.fullmatch(url) and not (key == "homepage" and is_paper_page(url)):
            return url
    return None


def catalog_source(row: dict) -> str:
    """Which catalogue a row comes from: "hf", "tfds", "pwc", or "other"."""
    return next((source for source, key in (("hf", "hf_id"), ("tfds", "tfds_id"), ("pwc", "pwc_name"))
                 if isinstance(row.get(key), str)), "other")


def row_names(row: dict) -> list[str]:
    """The names a catalogue row gives its dataset: display names, aliases, and the ids that carry a digit
    ("cifar10", not "radon")."""
    names = [row.get(key) for key in ("pretty_name", "display", "pwc_name", "hf_id")]
    names += row.get("aliases") if isinstance(row.get("aliases"), list) else []
    tfds_id = row.get("tfds_id")
    names += [tfds_id] if isinstance(tfds_id, str) and re.search(r"\d", tfds_id) else []
    return [name for name in names if isinstance(name, str)]


def load_catalog_urls(directory: Path | None) -> dict[str, str]:
    """Normalised catalogue names with the dataset's URL (see `catalog_url`); empty when the catalogue has none.
    A name that two entries of one catalogue give different URLs is left out there, the first catalogue read that
    gives it one URL wins, and a name with a "+" ("X++") is left out, since its key would fold into another
    dataset's ("X")."""
    found: dict[str, dict[str, set[str]]] = {}
    for row in catalog_rows(directory):
        url, source = catalog_url(row), catalog_source(row)
        for name in row_names(row) if url else ():
            key = normalize_name(name.replace("_", " "))
            if key and "+" not in name:
                found.setdefault(key, {}).setdefault(source, set()).add(url)
    urls: dict[str, str] = {}
    for key, sources in found.items():
        single = next((given for given in sources.values() if len(given) == 1), None)
        if single is not None:
            urls[key] = next(iter(single))
    return urls
