"""DSPy contracts: each signature's docstring is the instruction the model reads."""

from dsminer.signatures.extraction import (
    CHECK_EXAMPLES,
    CheckDatasetName,
    CheckedKind,
    ClassifyDatasetNames,
    DescribeDataset,
    ExtractPaperMetadata,
    NameDecision,
    NameKind,
    NameRole,
)
from dsminer.signatures.planning import ChooseNextTool, choose_among
from dsminer.signatures.reflection import (
    ClassifyDatasetNamesWithMemory,
    DescribeDatasetWithMemory,
    ExtractPaperMetadataWithMemory,
    ReflectOnStep,
)

__all__ = [
    "CHECK_EXAMPLES",
    "CheckDatasetName",
    "CheckedKind",
    "ChooseNextTool",
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
    "choose_among",
]
