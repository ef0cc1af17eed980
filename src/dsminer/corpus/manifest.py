"""A corpus kept as a manifest: each PDF named by a public GitHub repository, a commit, a path and its SHA-256,
brought into a folder (from GitHub, or from local clones of those repositories) and checked, so the repository
keeps the manifest and the gold, never the PDFs."""

from __future__ import annotations

import hashlib
import logging
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from dsminer.corpus.http_client import PoliteClient
from dsminer.errors import CorpusError, FetchError, MetadataFileError
from dsminer.jsonl import iter_json_objects

logger = logging.getLogger(__name__)

RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
KEYS = ("file", "source_repo", "source_commit", "source_path", "sha256")


@dataclass(frozen=True)
class ManifestEntry:
    """Where one PDF comes from and what its bytes hash to."""

    file: str
    repo: str
    commit: str
    path: str
    sha256: str

    def url(self, base: str = RAW_URL) -> str:
        return base.format(repo=self.repo, commit=self.commit, path=quote(self.path))


@dataclass
class ManifestReport:
    fetched: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def read_manifest(path: Path) -> list[ManifestEntry]:
    """The entries of a manifest or gold file (JSON lines with `file`, `source_repo`, `source_commit`,
    `source_path`, `sha256`); a line without them is an error naming the line."""
    entries = []
    for number, row in iter_json_objects(Path(path), MetadataFileError):
        missing = [key for key in KEYS if not isinstance(row.get(key), str)]
        if missing:
            raise MetadataFileError(path, number, f"missing {', '.join(missing)}")
        if Path(row["file"]).name != row["file"]:
            raise MetadataFileError(path, number, f"file {row['file']!r} is not a plain file name")
        entries.append(ManifestEntry(row["file"], row["source_repo"], row["source_commit"], row["source_path"],
                                     row["sha256"].lower()))
    return entries


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_manifest(entries: list[ManifestEntry], pdf_dir: Path, clones: Path | None = None,
                   client: PoliteClient | None = None, base_url: str = RAW_URL) -> ManifestReport:
    """Bring each entry's PDF into `pdf_dir`, from a local clone under `clones` when there is one, else from
    GitHub; a file already there with the right hash is kept, a file whose bytes hash otherwise is not kept."""
    pdf_dir.mkdir(parents=True, exist_ok=True)
    report = ManifestReport()
    client = client or PoliteClient(delay_s=1.0, timeout_s=60.0)
    for entry in entries:
        target = pdf_dir / entry.file
        if target.is_file() and sha256_of(target) == entry.sha256:
            report.skipped.append(entry.file)
            continue
        partial = target.with_name(f".{target.name}.part")
        try:
            local = _clone_of(clones, entry.repo) if clones is not None else None
            if local is not None:
                _from_clone(local, entry, partial)
            else:
                client.fetch_to_file(entry.url(base_url), partial)
            if (digest := sha256_of(partial)) != entry.sha256:
                raise CorpusError(f"sha256 {digest[:12]}... is not the manifest's {entry.sha256[:12]}...")
            partial.replace(target)
            report.fetched.append(entry.file)
        except (CorpusError, FetchError) as exc:
            report.failed.append((entry.file, str(exc)))
            logger.info("%s: %s", entry.file, exc)
        finally:
            partial.unlink(missing_ok=True)
    return report


def _clone_of(clones: Path, repo: str) -> Path | None:
    """The git directory of `repo` ("owner/name") under `clones`: in `owner/name` or `owner+name`, itself a git
    directory or holding one in `.git`, `repo` or `repo/.git`."""
    for folder in (clones / repo, clones / repo.replace("/", "+")):
        for candidate in (folder, folder / ".git", folder / "repo", folder / "repo" / ".git"):
            if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
                return candidate
    return None


def _from_clone(git_dir: Path, entry: ManifestEntry, target: Path) -> None:
    if shutil.which("git") is None:
        raise CorpusError("git is not installed; drop --clones to download from GitHub")
    with target.open("wb") as handle:
        done = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{entry.commit}:{entry.path}"],
                              stdout=handle, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        reason = (done.stderr.decode(errors="replace").strip().splitlines() or ["git show failed"])[-1]
        raise CorpusError(f"{entry.repo}@{entry.commit[:10]}:{entry.path}: {reason}")
