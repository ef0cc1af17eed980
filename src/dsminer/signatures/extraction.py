"""Signatures of the three extraction steps shared by every condition.

The long input comes first and the short varying input last, so a serving engine with prefix
caching reuses what the calls share.
"""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import BaseModel

# At most this many items in a list output (sent as `maxItems`): a list that long fits the step's
# output budget, so a long answer ends as valid JSON.
OUTPUT_ITEM_LIMITS = {"names": 12}
NameKind = Literal["dataset", "model", "method", "metric", "task", "other"]
NameRole = Literal["used", "created", "mentioned"]
# What the check step may read a name as: one word, "dataset" first.
CheckedKind = Literal["dataset", "method", "model", "software", "metric", "task", "organisation", "measurement",
                      "setting", "other"]


class ExtractPaperMetadata(dspy.Signature):
    """Read the first page of a scholarly paper and give its bibliographic metadata.
    Use only what the text states; leave a field empty when the text does not give it."""

    # The lists come last: a paper with many authors fills the step's output budget, and an answer cut inside a
    # list still parses (the JSON is mended) with every other field in it.
    first_page: str = dspy.InputField(desc="text from the start of the paper")
    title: str = dspy.OutputField()
    venue: str = dspy.OutputField(desc="conference or journal, empty if not stated")
    year: int | None = dspy.OutputField(desc="publication year, null if not stated")
    authors: list[str] = dspy.OutputField(desc="author names in order")
    institutions: list[str] = dspy.OutputField(desc="affiliations of the authors")


class NameDecision(BaseModel):
    """One name the paper writes: what kind of thing it is and what the paper does with it."""

    name: str
    kind: NameKind
    role: NameRole


class ClassifyDatasetNames(dspy.Signature):
    """Find the datasets this paper uses (trains or evaluates on, analyses, or draws data from) and any dataset it
    creates or releases: named bodies of data such as a corpus, benchmark, database, cohort, survey, catalogue or
    archive. Decide for each candidate, and for each other data collection the sentences name, what kind of thing
    it is (a dataset, or a model, method, metric, task or other thing: an instrument, software, organisation or
    place) and its role in the paper. Copy each name as the paper writes it."""

    context: str = dspy.InputField(desc="tables and sentences of the paper about data and experiments, with page tags")
    candidates: list[str] = dspy.InputField(desc="name-shaped phrases found near data cues and in tables; "
                                                 "some are not datasets")
    names: list[NameDecision] = dspy.OutputField(
        desc="role: created (the paper builds or releases it), used (trains, evaluates, analyses or draws data "
             "from it), mentioned (only cited or discussed)")


class DescribeDataset(dspy.Signature):
    """Describe one dataset from what the paper says about it. Leave a field empty when the paper does
    not say it."""

    dataset_name: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="the paper's sentences and table lines that mention the dataset")
    content: str = dspy.OutputField(desc="what the dataset contains, one sentence")
    data_type: str = dspy.OutputField(desc="kind of data, e.g. text, images, audio, tabular, graph")
    domain: str = dspy.OutputField(desc="subject area of the data")
    data_fields: list[str] = dspy.OutputField(desc="annotations, labels or columns the data has")


class CheckDatasetName(dspy.Signature):
    """Which kind of thing is "{name}" in this text?"""

    # One name in one sentence, one word back: asked about a list of names, a small model answers the list; asked
    # about one name in its sentence, it tells software, methods and organisations from data. Asked what the name
    # is, it may answer the name back; asked which kind of thing it is, it answers a kind. The adapter
    # (`OneWordAdapter`) writes the name into the question and lists the kinds.
    text: str = dspy.InputField(desc="Text from a research paper")
    name: str = dspy.InputField()
    kind: CheckedKind = dspy.OutputField()


# Worked examples the check step may be shown first (`check_examples`), invented, each what papers of many fields
# write: data named as a survey or a catalogue, a place that holds data, an ontology that labels it, a disease the data
# count, a file format.
CHECK_EXAMPLES: list[dict[str, str]] = [dict(zip(("text", "name", "kind"), example)) for example in (
    ("We analysed 4,210 dives recorded in the ReefWatch survey between 2001 and 2019.", "ReefWatch", "dataset"),
    ("Sequencing reads were deposited at the Kestrel Data Archive (KDA) under accession KDA-0042.",
     "KDA (Kestrel Data Archive)", "organisation"),
    ("Stellar spectra were taken from the Aster Spectroscopic Catalogue (ASC), which lists 88,000 stars.",
     "ASC (Aster Spectroscopic Catalogue)", "dataset"),
    ("Each sample's tissue was labelled with a term from the Tern Anatomy Ontology.", "Tern Anatomy Ontology", "other"),
    ("Weekly influenza case counts for each county came from the Harlow state registry.", "influenza", "other"),
    ("Recordings were stored in the Quill waveform format before filtering.", "Quill", "software"),
)]
