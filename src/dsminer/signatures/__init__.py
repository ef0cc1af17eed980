"""DSPy contracts: each signature's docstring is the instruction the model reads."""

from dsminer.signatures.extraction import ExtractDatasetDetails, ExtractDatasetNames, ExtractPaperMetadata
from dsminer.signatures.reflection import (
    ExtractDatasetDetailsWithMemory,
    ExtractDatasetNamesWithMemory,
    ExtractPaperMetadataWithMemory,
    ReflectOnStep,
)

__all__ = [
    "ExtractDatasetDetails",
    "ExtractDatasetDetailsWithMemory",
    "ExtractDatasetNames",
    "ExtractDatasetNamesWithMemory",
    "ExtractPaperMetadata",
    "ExtractPaperMetadataWithMemory",
    "ReflectOnStep",
]
