"""dsminer: extract the datasets scholarly papers use or release, as evidence-backed JSONL records."""

__version__ = "0.1.0"
