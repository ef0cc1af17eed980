"""How a model call can fail, and what a paper does about it.

Each kind of failure has its own bound, counted apart from an agent's quality retries:

- **Endpoint faults**: a refused or reset connection, a timeout, a truncated body, HTTP 429 or 5xx. Retried
  up to `backend.fault_retries` times, waiting `backend.fault_backoff_s` seconds doubled each time (at most
  60 s, or the server's Retry-After when it gives one; event `endpoint_retry`). After that the paper fails
  with the reason (`EndpointError`). An authentication, billing or configuration error is not retried: it
  stops the run.
- **Malformed answers**: a reply body that is not JSON, or an answer the adapter cannot parse. Retried once
  (event `answer_retry`) with a fresh sample (`RESAMPLE`: asked the same at temperature 0 the model gives the same
  answer, and the cache would too); then the step fails (`StepFailure`). A paper whose names step never answered has
  produced nothing: it is written `failed` with the reason, and a resume processes it again; a paper with
  another failed step keeps its records and is written `partial`.
- **The paper's time limit** (`paper_timeout_s`): checked before every call and every retry; past it the paper
  fails (`PaperTimeout`). One call is bounded by `backend.request_timeout_s`, so a hung server holds a paper
  at most the limit plus one request timeout. Parsing is bounded by the same limit: a parse still running at it
  is stopped (its process killed) and the paper fails (`ParserHung`).

The guard of the paper being processed is held in a context variable, so the steps of every condition (and
papers processed in parallel threads) find their own.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dspy.utils.exceptions import (
    AdapterParseError,
    LMAuthError,
    LMBillingError,
    LMConfigurationError,
    LMInvalidRequestError,
    LMProviderError,
    LMRateLimitError,
    LMServerError,
    LMTimeoutError,
    LMTransportError,
)

from dsminer.errors import BackendError, DsminerError

T = TypeVar("T")
MAX_BACKOFF_S = 60.0
TRANSIENT_FAULTS = (LMTransportError, LMTimeoutError, LMRateLimitError, LMServerError)
FATAL_FAULTS = (LMAuthError, LMBillingError, LMConfigurationError)


class EndpointError(BackendError):
    """The endpoint did not answer a call after its retries; `fatal` when no later call can succeed either."""

    def __init__(self, message: str, fatal: bool = False) -> None:
        self.fatal = fatal
        super().__init__(message)


class PaperTimeout(DsminerError):
    """The paper used up its time limit."""


class StepFailure(Exception):
    """One step gave no usable answer; `kind` is the event it is logged as (`parse_failed`, `step_failed`)."""

    def __init__(self, kind: str, reason: str) -> None:
        self.kind = kind
        self.reason = reason
        super().__init__(reason)


def describe(exc: BaseException) -> str:
    """One line naming a fault: its class, its HTTP status when it has one, and its first line."""
    status = getattr(exc, "status", None)
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return f"{type(exc).__name__}{f' HTTP {status}' if status else ''}: {first}"[:300]


@dataclass
class PaperGuard:
    """The bounds one paper's model calls run under, and what they used."""

    fault_retries: int = 3
    backoff_s: float = 2.0
    time_limit_s: float | None = None
    sleep: Callable[[float], None] = time.sleep
    started: float = field(default_factory=time.monotonic)
    endpoint_retries: int = 0
    answer_retries: int = 0
    failed_steps: list[str] = field(default_factory=list)
    answered_steps: set[str] = field(default_factory=set)
    failures: dict[str, BaseException] = field(default_factory=dict)  # the last fault of each failed step

    def time_left(self, step: str) -> float | None:
        """Seconds left before the time limit (None without one); past it, `PaperTimeout`."""
        if self.time_limit_s is None:
            return None
        left = self.time_limit_s - (time.monotonic() - self.started)
        if left <= 0:
            raise PaperTimeout(f"time limit of {self.time_limit_s:g} s reached before step {step}")
        return left

    def call(self, attempt: Callable[[], T], step: str, emit: Callable[..., Any],
             resample: Callable[[], T] | None = None) -> T:
        """Run `attempt()` with the retries above; a malformed answer's retry runs `resample()` when given (the same
        request sampled afresh). `emit(kind, **fields)` logs each retry."""
        faults = malformed = 0
        while True:
            self.time_left(step)
            try:
                answer = (resample or attempt)() if malformed else attempt()
                self.answered_steps.add(step)
                return answer
            except FATAL_FAULTS as exc:
                raise EndpointError(f"endpoint refused the call at step {step}: {describe(exc)}", fatal=True) from exc
            except TRANSIENT_FAULTS as exc:
                if faults >= self.fault_retries:
                    raise EndpointError(f"endpoint failed {faults + 1} times at step {step}: {describe(exc)}") from exc
                wait = self._wait(faults, exc)
                faults += 1
                self.endpoint_retries += 1
                emit("endpoint_retry", attempt=faults, wait_s=round(wait, 2), error=describe(exc))
                self.sleep(wait)
            except LMInvalidRequestError as exc:  # the request itself is refused (too long, unsupported)
                self._fail(step, "step_failed", exc)
            except (AdapterParseError, LMProviderError) as exc:
                if malformed >= 1:
                    self._fail(step, "parse_failed" if isinstance(exc, AdapterParseError) else "step_failed", exc)
                malformed += 1
                self.answer_retries += 1
                emit("answer_retry", attempt=malformed, error=describe(exc))
            except Exception as exc:  # noqa: BLE001  (a bug in one step fails that step, not the paper)
                self._fail(step, "step_failed", exc)

    def _wait(self, retried: int, exc: BaseException) -> float:
        hinted = getattr(exc, "retry_after", None)
        wait = float(hinted) if isinstance(hinted, (int, float)) and hinted > 0 else self.backoff_s * 2**retried
        wait = min(wait, MAX_BACKOFF_S)
        left = self.time_left("retry")
        return min(wait, left) if left is not None else wait

    def unanswered(self, step: str) -> BaseException | None:
        """The last fault of `step` when it failed every time it was called on this paper (None when it answered
        once, or was not called)."""
        return self.failures.get(step) if step not in self.answered_steps else None

    def _fail(self, step: str, kind: str, exc: BaseException) -> None:
        self.failed_steps.append(step)
        self.failures[step] = exc
        raise StepFailure(kind, describe(exc)) from exc


_GUARD: contextvars.ContextVar[PaperGuard | None] = contextvars.ContextVar("dsminer_paper_guard", default=None)


def current_guard() -> PaperGuard:
    """The guard of the paper being processed; outside a run, default bounds and no time limit."""
    return _GUARD.get() or PaperGuard()


@contextmanager
def guarding(guard: PaperGuard) -> Iterator[PaperGuard]:
    """Make `guard` the current one for the calls made inside the block."""
    token = _GUARD.set(guard)
    try:
        yield guard
    finally:
        _GUARD.reset(token)
