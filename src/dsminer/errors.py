"""The project's exceptions: one base class, subclasses that carry the fields a message needs."""

from __future__ import annotations

from pathlib import Path


class DsminerError(Exception):
    """Base class of every error dsminer raises on purpose; its message is one line for the user."""


class PdfReadError(DsminerError):
    """A PDF that cannot be turned into text: corrupt, encrypted, empty or without a text layer."""

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path.name}: {reason}")


class ConfigError(DsminerError):
    """A configuration value that is missing, malformed or out of range."""


class BackendError(DsminerError):
    """The language-model backend cannot be started or reached."""

    def __init__(self, message: str, api_base: str | None = None) -> None:
        self.api_base = api_base
        super().__init__(message)


class CorpusError(DsminerError):
    """A corpus folder, metadata file or download that cannot be used."""


class MetadataFileError(CorpusError):
    """A bad row in a paper metadata file (CSV or JSONL)."""

    def __init__(self, path: Path | str, row: int, reason: str) -> None:
        self.path = Path(path)
        self.row = row
        self.reason = reason
        super().__init__(f"{self.path.name}, row {row}: {reason}")


class GoldFileError(DsminerError):
    """A malformed line in a gold-standard JSONL file."""

    def __init__(self, path: Path | str, line: int, reason: str) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path.name}, line {line}: {reason}")


class RunNotFoundError(DsminerError):
    """A run id or run directory that names no run."""
