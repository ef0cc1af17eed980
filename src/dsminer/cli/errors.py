"""How every command reports a user error: one line on stderr and exit code 1, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from dsminer.errors import DsminerError


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a DsminerError raised inside the block into `error: <message>` and exit code 1."""
    try:
        yield
    except DsminerError as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        raise typer.Exit(code=1) from None
