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


class FileLineError(DsminerError):
    """A bad line or row of an input file; the message names the file and the line."""

    unit = "line"

    def __init__(self, path: Path | str, line: int, reason: str) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path.name}, {self.unit} {line}: {reason}")


class MetadataFileError(FileLineError, CorpusError):
    """A bad row in a paper metadata file (CSV or JSONL)."""

    unit = "row"

    @property
    def row(self) -> int:
        return self.line


class GoldFileError(FileLineError):
    """A malformed line in a gold-standard file."""


class GoldMismatchError(DsminerError):
    """A gold file that holds none of the papers of a run or corpus."""


class CatalogError(DsminerError):
    """A catalogue folder that holds none, or a name no entry goes by."""


class RunNotFoundError(DsminerError):
    """A run id or run directory that names no run."""


class RunLockedError(DsminerError):
    """A run directory another dsminer process is writing to."""


class RunFileError(FileLineError):
    """A malformed line in one of a run's artifact files."""


class AuditSheetError(DsminerError):
    """A filled audit sheet with a missing column or an unreadable verdict."""

    def __init__(self, path: Path | str, row: int | None, reason: str) -> None:
        self.path = Path(path)
        self.row = row
        self.reason = reason
        where = f", row {row}" if row is not None else ""
        super().__init__(f"{self.path.name}{where}: {reason}")


class FetchError(CorpusError):
    """A URL that could not be fetched; `transient` failures (timeouts, 5xx, truncation) are retried."""

    def __init__(self, url: str, reason: str, transient: bool) -> None:
        self.url = url
        self.reason = reason
        self.transient = transient
        super().__init__(f"{url}: {reason}")
