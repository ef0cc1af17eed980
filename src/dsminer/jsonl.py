"""Reading JSONL input files line by line, with errors that name the file and the line."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dsminer.errors import FileLineError

log = logging.getLogger(__name__)


def complete_lines(path: Path) -> list[str]:
    """The lines of a file written line by line, split on "\n" only (a U+2028 inside a JSON string is text);
    an unterminated last line, left by a kill during a write, is dropped and logged."""
    text = Path(path).read_text(encoding="utf-8-sig")
    lines = text.split("\n")
    if lines[-1].strip():
        log.warning("%s: unterminated last line dropped (an interrupted write)", Path(path).name)
    return lines[:-1]


def iter_json_objects(path: Path, error: type[FileLineError],
                      torn_tail: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a bad line raises `error(path, line, reason)`.

    With `torn_tail` (files dsminer appends to as it runs), an unterminated last line is dropped, not an error."""
    lines = complete_lines(path) if torn_tail else Path(path).read_text(encoding="utf-8-sig").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(path, number, f"not valid JSON ({exc.msg})") from exc
        if not isinstance(value, dict):
            raise error(path, number, "not a JSON object")
        yield number, value
