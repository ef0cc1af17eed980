"""DSPy contracts: each signature's docstring is the instruction the model reads."""

from dsminer.signatures.extraction import (
    ClassifyDatasetNames,
    DescribeDataset,
    ExtractPaperMetadata,
    NameDecision,
    NameKind,
    NameRole,
)
from dsminer.signatures.reflection import (
    ClassifyDatasetNamesWithMemory,
    DescribeDatasetWithMemory,
    ExtractPaperMetadataWithMemory,
    ReflectOnStep,
)

__all__ = [
    "ClassifyDatasetNames",
    "ClassifyDatasetNamesWithMemory",
    "DescribeDataset",
    "DescribeDatasetWithMemory",
    "ExtractPaperMetadata",
    "ExtractPaperMetadataWithMemory",
    "NameDecision",
    "NameKind",
    "NameRole",
    "ReflectOnStep",
]
