"""The record written per (paper, dataset), and the paper-level metadata that feeds it."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["created", "used", "mentioned"]
Platform = Literal["GitHub", "HuggingFace", "OpenML", "Zenodo", "Kaggle", "other", "unspecified"]
PLATFORMS: tuple[str, ...] = Platform.__args__  # type: ignore[attr-defined]


class DatasetDescribe(BaseModel):
    """What a dataset holds, as the paper describes it."""

    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    type: str | None = None
    domain: str | None = None
    fields: list[str] = Field(default_factory=list)


class PaperRefs(BaseModel):
    """The paper a record comes from. `is_fellow` is only ever set from supplied metadata."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    institutions: list[str] = Field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    url: str | None = None
    is_fellow: bool | None = None


class Evidence(BaseModel):
    """Where in the PDF the dataset is named: file name, 1-based page, verbatim sentence."""

    model_config = ConfigDict(extra="forbid")

    source: str
    page: int | None = None
    quote: str | None = None


class BorrowedLink(BaseModel):
    """A link for a dataset that its paper does not give: from an earlier paper of the corpus or a catalogue."""

    model_config = ConfigDict(extra="forbid")

    url: str
    source: str  # the paper that gives it, or "catalogue <name>"


class DatasetRecord(BaseModel):
    """One JSONL line: a dataset a paper uses or releases.

    `aliases` are the other names the paper uses for the dataset (an abbreviation, a longer form);
    `role` is what the paper does with it: `created` (builds or releases it), `used` (trains or
    evaluates on it) or `mentioned` (only cites or discusses it). `dataset_link` is the link the paper gives;
    `borrowed_link`, set only by the optimised agent for a dataset left without one, is a link from an earlier
    paper of the corpus or a catalogue, with its source."""

    model_config = ConfigDict(extra="forbid")

    dataset_id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    role: Role | None = None
    dataset_describe: DatasetDescribe = Field(default_factory=DatasetDescribe)
    paper_refs: PaperRefs = Field(default_factory=PaperRefs)
    dataset_link: str | None = None
    platform: Platform = "unspecified"
    evidence: Evidence
    borrowed_link: BorrowedLink | None = None


_LEADING_THE = re.compile(r"^the\s+")
_TRAILING_DATA_NOUN = re.compile(r"\s+(data ?set|corpus|benchmark)s?$")
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")
_NOT_NAME_CHARACTER = re.compile(r"[^0-9a-z\u00c0-\u1fff\u2070-\uffff]+")


def normalize_name(name: str) -> str:
    """Fold a dataset name for matching: NFKC, lower case, no punctuation (typographic included) or spacing
    differences."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = _LEADING_THE.sub("", folded.strip())
    folded = _TRAILING_DATA_NOUN.sub("", folded)
    folded = _POSSESSIVE.sub("", folded)  # a possessive: "AG's News" is "AG News"
    return _NOT_NAME_CHARACTER.sub("", folded)  # typographic quotes and dashes go too


def make_dataset_id(paper_key: str, name: str) -> str:
    """A stable id from the paper (its PDF file name) and the normalised dataset name."""
    digest = hashlib.sha1(f"{paper_key}\x00{normalize_name(name)}".encode()).hexdigest()
    return f"ds-{digest[:16]}"
