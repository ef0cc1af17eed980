"""Reading JSONL input files line by line, with errors that name the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dsminer.errors import FileLineError


def iter_json_objects(path: Path, error: type[FileLineError]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a bad line raises `error(path, line, reason)`."""
    with Path(path).open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(path, number, f"not valid JSON ({exc.msg})") from exc
            if not isinstance(value, dict):
                raise error(path, number, "not a JSON object")
            yield number, value
