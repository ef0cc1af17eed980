"""SciREX documents (tokenised full text with typed mentions) read as papers with gold datasets.

A document becomes a `ParsedPaper` whose "pages" are runs of sections of about a PDF page's length, so the
same context builder, candidate finder and selection that read a PDF read it; its salient datasets (the
Material entities of its result relations) become its gold, with the names its coreference gives them as
aliases, as in `scirex-pdf/gold.jsonl`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsminer.document.pdf import PageText, ParsedPaper
from dsminer.errors import DsminerError
from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.schema import normalize_name

PAGE_CHARS = 3500  # about one PDF page of text
# SciREX mention types, as the names step's kinds
KINDS = {"Material": "dataset", "Method": "method", "Metric": "metric", "Task": "task"}
_SPACE_BEFORE = re.compile(r" ([.,;:!?%)\]}]|'s\b|n't\b)")
_SPACE_AFTER = re.compile(r"([(\[{]) ")
_JOINED_HYPHEN = re.compile(r"(?<=\w) - (?=\w)")


@dataclass(frozen=True)
class ScirexPaper:
    """One SciREX document: its text as a paper, its gold datasets and the kind of each typed mention."""

    paper: ParsedPaper
    gold: GoldPaper
    mention_kinds: dict[str, str]  # normalised mention -> dataset, method, metric or task

    def kind_of(self, name: str) -> str | None:
        return self.mention_kinds.get(normalize_name(name))


def detokenize(words: Sequence[str]) -> str:
    """Tokens joined as running text: no space before closing punctuation, none inside a hyphenated word."""
    text = " ".join(words)
    text = _JOINED_HYPHEN.sub("-", text)
    return _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", text))


def _section_text(words: Sequence[str], sentences: Sequence[Sequence[int]]) -> str:
    """A section as paragraphs: its "section : Title" sentence as a heading block, the rest as prose."""
    blocks, prose = [], []
    for start, end in sentences:
        tokens = words[start:end]
        if len(tokens) > 2 and tokens[0] == "section" and tokens[1] == ":":
            blocks.append(" ".join(prose))
            blocks.append(detokenize(tokens[2:]))
            prose = []
        else:
            prose.append(detokenize(tokens))
    blocks.append(" ".join(prose))
    return "\n\n".join(block for block in blocks if block)


def _pages(doc: dict[str, Any]) -> list[PageText]:
    words, sentences = doc["words"], doc["sentences"]
    pages: list[str] = [""]
    for start, end in doc["sections"]:
        inside = [s for s in sentences if start <= s[0] < end]
        text = _section_text(words, inside)
        if pages[-1] and len(pages[-1]) + len(text) > PAGE_CHARS:
            pages.append("")
        pages[-1] = f"{pages[-1]}\n\n{text}" if pages[-1] else text
    return [PageText(number, text) for number, text in enumerate(pages, 1) if text]


def _mention(words: Sequence[str], span: Sequence[int]) -> str:
    return detokenize(words[span[0]:span[1]])


def _gold(doc: dict[str, Any], file: str, title: str) -> GoldPaper:
    words = doc["words"]
    salient = dict.fromkeys(relation["Material"] for relation in doc.get("n_ary_relations", []))
    datasets = []
    for entity in salient:
        aliases = dict.fromkeys(_mention(words, span) for span in doc["coref"].get(entity, []))
        name = entity.replace("_", " ")
        datasets.append(GoldDataset(name, tuple(alias for alias in aliases if alias != name)))
    materials = Counter(_mention(words, (start, end)) for start, end, kind in doc["ner"] if kind == "Material")
    return GoldPaper(file, title, datasets, dict(materials))


def _kinds(doc: dict[str, Any]) -> dict[str, str]:
    """Each mention's kind: a dataset if SciREX ever types it Material (its types of one name disagree more
    often for datasets than for others), else the type it gives it most often."""
    votes: dict[str, Counter[str]] = {}
    for start, end, kind in doc["ner"]:
        key = normalize_name(_mention(doc["words"], (start, end)))
        if key and kind in KINDS:
            votes.setdefault(key, Counter())[KINDS[kind]] += 1
    return {key: "dataset" if counter["dataset"] else counter.most_common(1)[0][0] for key, counter in votes.items()}


def read_document(doc: dict[str, Any]) -> ScirexPaper:
    """One SciREX document (a `train_docs/*.json` object or a line of `dev.jsonl`) as a paper with gold."""
    try:
        file = f"{doc['doc_id']}.txt"
        first = doc["sections"][0]
        title = detokenize(doc["words"][first[0]:first[1]])
        paper = ParsedPaper(path=Path(file), pages=_pages(doc), links=[])
        return ScirexPaper(paper, _gold(doc, file, title), _kinds(doc))
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise DsminerError(f"not a SciREX document ({type(exc).__name__}: {exc})") from exc


def iter_documents(path: Path) -> Iterator[dict[str, Any]]:
    """The raw documents of a SciREX folder of `*.json` files, one document's `.json` file or a `.jsonl` file,
    in name / line order."""
    if path.is_file() and path.suffix == ".json":
        yield _load(path.read_text(encoding="utf-8"), path)
    elif path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise DsminerError(f"no SciREX documents (*.json) in {path}")
        for file in files:
            yield _load(file.read_text(encoding="utf-8"), file)
    elif path.is_file():
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield _load(line, f"{path}:{number}")
    else:
        raise DsminerError(f"SciREX documents not found: {path}")


def _load(text: str, where: object) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DsminerError(f"{where}: not JSON ({exc.msg})") from exc
    if not isinstance(doc, dict):
        raise DsminerError(f"{where}: not a SciREX document")
    return doc


def load_scirex(path: Path, limit: int | None = None, excluded: Collection[str] = ()) -> list[ScirexPaper]:
    """The first `limit` documents of `path` (a folder of documents or a JSONL file) whose ids are not in
    `excluded`, as papers with gold."""
    papers = []
    for doc in iter_documents(path):
        if limit is not None and len(papers) >= limit:
            break
        if str(doc.get("doc_id")) not in excluded:
            papers.append(read_document(doc))
    return papers
