"""A polite HTTP client for corpus downloads that trusts nothing: a descriptive User-Agent, a pause between
requests, timeouts on every connect and read, bounded retries with backoff, a Content-Length check, a byte
cap per page and per file, one allowed host (redirects included), and an unknown charset read as UTF-8."""

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
MAX_PAGE_BYTES = 5 * 1024 * 1024
MAX_FILE_BYTES = 200 * 1024 * 1024
T = TypeVar("T")


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the allowed host."""

    def __init__(self, allowed_host: str | None) -> None:
        self.allowed_host = allowed_host

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 (urllib's signature)
        if not host_allowed(newurl, self.allowed_host):
            raise FetchError(req.full_url, f"redirected off-site to {urlsplit(newurl).hostname}", transient=False)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def host_allowed(url: str, allowed_host: str | None) -> bool:
    """Whether `url` is on the allowed host (any host when none is set)."""
    return allowed_host is None or (urlsplit(url).hostname or "").lower() == allowed_host.lower()


class PoliteClient:
    """GET requests spaced `delay_s` apart; each connect or read waits at most `timeout_s`."""

    def __init__(self, delay_s: float, timeout_s: float, retries: int = 2, backoff_s: float = 2.0,
                 allowed_host: str | None = None, max_page_bytes: int = MAX_PAGE_BYTES,
                 max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.delay_s = delay_s
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.allowed_host = allowed_host
        self.max_page_bytes = max_page_bytes
        self.max_file_bytes = max_file_bytes
        self._opener = urllib.request.build_opener(_SameHostRedirects(allowed_host))
        self._last_request: float | None = None

    def fetch_text(self, url: str) -> str:
        """The body of `url` (at most `max_page_bytes`) decoded as text: the declared charset, else UTF-8;
        undecodable bytes and an unknown charset are read as UTF-8 with replacement characters."""
        return self._with_retries(url, lambda: self._read_text(url))

    def fetch_to_file(self, url: str, dest: Path) -> int:
        """Stream the body of `url` (at most `max_file_bytes`) into `dest` (overwritten per attempt); the
        number of bytes written."""
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
        if not host_allowed(url, self.allowed_host):
            raise FetchError(url, f"off-site link to {urlsplit(url).hostname} (only {self.allowed_host})",
                             transient=False)
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
        try:
            return self._opener.open(request, timeout=self.timeout_s)
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
            self._copy_body(url, response, chunks.append, self.max_page_bytes)
            charset = response.headers.get_content_charset() or "utf-8"
        try:
            return b"".join(chunks).decode(charset, errors="replace")
        except LookupError:  # a charset Python does not know
            logger.info("%s: unknown charset %r read as UTF-8", url, charset)
            return b"".join(chunks).decode("utf-8", errors="replace")

    def _read_to_file(self, url: str, dest: Path) -> int:
        """One attempt at streaming `url` into `dest`."""
        with self._open(url) as response, dest.open("wb") as handle:
            return self._copy_body(url, response, handle.write, self.max_file_bytes)

    def _copy_body(self, url: str, response: http.client.HTTPResponse, write: Callable[[bytes], object],
                   limit: int) -> int:
        """Copy the body in chunks, at most `limit` bytes; fewer bytes than Content-Length is a (transient)
        truncation."""
        declared = response.headers.get("Content-Length", "").strip()
        if declared.isdigit() and int(declared) > limit:
            raise FetchError(url, f"larger than the {limit}-byte cap ({declared} bytes)", transient=False)
        total = 0
        try:
            while chunk := response.read(CHUNK_BYTES):
                total += len(chunk)
                if total > limit:
                    raise FetchError(url, f"larger than the {limit}-byte cap", transient=False)
                write(chunk)
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

