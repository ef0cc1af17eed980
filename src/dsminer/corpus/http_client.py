"""A polite HTTP client for corpus downloads: a descriptive User-Agent, a pause between requests,
timeouts on every connect and read, bounded retries with backoff, and a Content-Length check."""

from __future__ import annotations

import http.client
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from dsminer import __version__
from dsminer.errors import FetchError

logger = logging.getLogger(__name__)

USER_AGENT = f"dsminer/{__version__} (+dataset extraction research tool)"
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
CHUNK_BYTES = 64 * 1024
T = TypeVar("T")



class PoliteClient:
    """GET requests spaced `delay_s` apart; each connect or read waits at most `timeout_s`."""

    def __init__(self, delay_s: float, timeout_s: float, retries: int = 2, backoff_s: float = 2.0) -> None:
        self.delay_s = delay_s
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._last_request: float | None = None

    def fetch_text(self, url: str) -> str:
        """The body of `url` decoded as text (the declared charset, else UTF-8)."""
        return self._with_retries(url, lambda: self._read_text(url))

    def fetch_to_file(self, url: str, dest: Path) -> int:
        """Stream the body of `url` into `dest` (overwritten per attempt); the number of bytes written."""
        return self._with_retries(url, lambda: self._read_to_file(url, dest))

    def _with_retries(self, url: str, attempt: Callable[[], T]) -> T:
        """Run `attempt`, retrying transient failures up to `retries` times with doubling pauses."""
        for number in range(self.retries + 1):
            if number:
                time.sleep(self.backoff_s * 2 ** (number - 1))
            self._wait_turn()
            try:
                return attempt()
            except FetchError as exc:
                if not exc.transient or number == self.retries:
                    raise
                logger.info("retrying %s after %s (retry %d of %d)", url, exc.reason, number + 1, self.retries)
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_turn(self) -> None:
        """Sleep until `delay_s` has passed since the previous request started."""
        if self._last_request is not None:
            pause = self.delay_s - (time.monotonic() - self._last_request)
            if pause > 0:
                time.sleep(pause)
        self._last_request = time.monotonic()

    def _open(self, url: str) -> http.client.HTTPResponse:
        """Open `url`, turning every failure into a FetchError."""
        if urlsplit(url).scheme not in ("http", "https"):
            raise FetchError(url, "not an http(s) URL", transient=False)
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
        try:
            return urllib.request.urlopen(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as exc:
            exc.close()
            raise FetchError(url, f"HTTP {exc.code}", transient=exc.code in RETRY_STATUSES) from exc
        except urllib.error.URLError as exc:
            raise FetchError(url, describe_network_error(exc.reason, self.timeout_s), transient=True) from exc
        except OSError as exc:
            raise FetchError(url, describe_network_error(exc, self.timeout_s), transient=True) from exc

    def _read_text(self, url: str) -> str:
        """One attempt at fetching `url` as text."""
        chunks: list[bytes] = []
        with self._open(url) as response:
            self._copy_body(url, response, chunks.append)
            charset = response.headers.get_content_charset() or "utf-8"
        return b"".join(chunks).decode(charset, errors="replace")

    def _read_to_file(self, url: str, dest: Path) -> int:
        """One attempt at streaming `url` into `dest`."""
        with self._open(url) as response, dest.open("wb") as handle:
            return self._copy_body(url, response, handle.write)

    def _copy_body(self, url: str, response: http.client.HTTPResponse, write: Callable[[bytes], object]) -> int:
        """Copy the body in chunks; fewer bytes than Content-Length is a (transient) truncation."""
        declared = response.headers.get("Content-Length", "").strip()
        total = 0
        try:
            while chunk := response.read(CHUNK_BYTES):
                write(chunk)
                total += len(chunk)
        except http.client.IncompleteRead as exc:
            received = f"{total + len(exc.partial)} of {declared or '?'} bytes"
            raise FetchError(url, f"truncated download ({received})", transient=True) from exc
        except OSError as exc:
            raise FetchError(url, describe_network_error(exc, self.timeout_s), transient=True) from exc
        if declared.isdigit() and total != int(declared):
            raise FetchError(url, f"truncated download ({total} of {declared} bytes)", transient=True)
        return total


def describe_network_error(error: object, timeout_s: float) -> str:
    """A one-line reason for a network failure."""
    if isinstance(error, TimeoutError):
        return f"timed out after {timeout_s:g} s"
    return str(error) or type(error).__name__

