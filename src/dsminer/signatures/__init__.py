"""DSPy contracts: each signature's docstring is the instruction the model reads."""

from dsminer.signatures.extraction import ExtractDatasetDetails, ExtractDatasetNames, ExtractPaperMetadata

__all__ = ["ExtractDatasetDetails", "ExtractDatasetNames", "ExtractPaperMetadata"]
