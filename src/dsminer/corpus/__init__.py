"""Corpora of papers: a local folder of PDFs with optional metadata, or a downloaded conference year."""

from dsminer.corpus.local import CorpusPaper, load_corpus
from dsminer.corpus.neurips import DEFAULT_BASE_URL, DownloadReport, download_neurips

__all__ = ["DEFAULT_BASE_URL", "CorpusPaper", "DownloadReport", "download_neurips", "load_corpus"]
