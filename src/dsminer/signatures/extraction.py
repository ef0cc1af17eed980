"""Signatures of the three extraction steps shared by every condition.

The long paper context comes first and the varying input last, so a serving engine with prefix
caching reuses the context across the per-dataset calls.
"""

from __future__ import annotations

import dspy


class ExtractPaperMetadata(dspy.Signature):
    """Read the first page of a scholarly paper and give its bibliographic metadata.
    Use only what the text states; leave a field empty when the text does not give it."""

    first_page: str = dspy.InputField(desc="text from the start of the paper")
    title: str = dspy.OutputField()
    authors: list[str] = dspy.OutputField(desc="author names in order")
    institutions: list[str] = dspy.OutputField(desc="affiliations of the authors")
    venue: str = dspy.OutputField(desc="conference or journal, empty if not stated")
    year: int | None = dspy.OutputField(desc="publication year, null if not stated")


class ExtractDatasetNames(dspy.Signature):
    """List the datasets that this paper uses for training or evaluation, or releases.
    Give each dataset's name as the paper writes it. Do not list models, methods, metrics, tasks,
    software or languages."""

    context: str = dspy.InputField(desc="sentences of the paper that mention data, with page tags")
    dataset_names: list[str] = dspy.OutputField()


class ExtractDatasetDetails(dspy.Signature):
    """Describe one dataset named in the paper, from the paper's sentences and links only.
    Leave a field empty when the paper does not say it; choose a link only from the paper's URLs."""

    context: str = dspy.InputField(desc="sentences of the paper that mention data, with page tags, and its URLs")
    dataset_name: str = dspy.InputField()
    content: str = dspy.OutputField(desc="what the dataset contains, one sentence")
    data_type: str = dspy.OutputField(desc="kind of data, e.g. text, images, audio, tabular, graph")
    domain: str = dspy.OutputField(desc="subject area of the data")
    data_fields: list[str] = dspy.OutputField(desc="annotations, labels or columns the data has")
    link: str = dspy.OutputField(desc="the paper's URL for this dataset, or empty")
