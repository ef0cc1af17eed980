"""Open the configured backend and build the DSPy LM that talks to it."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dspy

from dsminer.backend.local_server import LocalModelServer, ServerSpec
from dsminer.backend.model_file import ensure_default_model
from dsminer.config import BackendSettings
from dsminer.errors import BackendError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backend:
    """An open backend: the LM to call and where it lives."""

    lm: dspy.LM
    api_base: str
    model: str
    kind: str


def check_endpoint(api_base: str, api_key: str, timeout_s: float) -> list[str]:
    """List the served model ids, or fail fast with a one-line BackendError."""
    request = urllib.request.Request(f"{api_base.rstrip('/')}/models", headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            payload = json.loads(response.read().decode() or "{}")
    except urllib.error.HTTPError as exc:
        raise BackendError(f"backend at {api_base} answered HTTP {exc.code} to /models", api_base) from exc
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise BackendError(f"backend not reachable at {api_base}: {reason}", api_base) from exc
    return [entry.get("id", "") for entry in payload.get("data", []) if isinstance(entry, dict)]


class TimedLM(dspy.LM):
    """A DSPy LM that also adds up, in `waited_s`, the seconds its calls take (answered or failed), so a run
    can tell the time spent waiting on the model from its own. A copy counts its own calls."""

    waited_s: float = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        try:
            return super().__call__(*args, **kwargs)
        finally:
            self.waited_s += time.monotonic() - started


def endpoints(settings: BackendSettings) -> list[str]:
    """The OpenAI-compatible endpoints of the settings: `api_base`, then `api_bases`, each once."""
    return list(dict.fromkeys(filter(None, [settings.api_base, *settings.api_bases])))


def build_lm(settings: BackendSettings, api_base: str) -> dspy.LM:
    """A DSPy LM for an OpenAI-compatible endpoint, with the run's sampling controls; it makes one attempt per
    call, and `dsminer.faults` decides what a failed attempt means."""
    return TimedLM(
        f"openai/{settings.model}",
        api_base=api_base,
        api_key=settings.api_key,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        timeout=settings.request_timeout_s,
        cache=settings.cache,
        num_retries=0,  # faults are retried by the paper's guard (dsminer.faults), with backoff and counted
    )


@contextmanager
def open_backend(settings: BackendSettings, slots: int = 1) -> Iterator[Backend]:
    """Start the local model server, or check the remote endpoint, and yield the LM.

    The local server gets `slots` parallel slots (at least `n_parallel`), each with a context of `n_ctx`."""
    if settings.kind == "openai":
        bases = endpoints(settings)
        if not bases:
            raise BackendError("backend 'openai' needs an api_base (--api-base URL)")
        for base in bases:
            served = check_endpoint(base, settings.api_key, settings.connect_timeout_s)
            if served and settings.model not in served:
                raise BackendError(f"model {settings.model!r} is not served at {base} (served: {', '.join(served)})")
        yield Backend(build_lm(settings, bases[0]), bases[0], settings.model, "openai")
        return
    gguf = settings.gguf_path or ensure_default_model(settings.model_cache_dir)
    parallel = max(settings.n_parallel, slots)
    spec = ServerSpec(gguf, alias=settings.model, n_ctx=settings.n_ctx * parallel, n_parallel=parallel,
                      n_threads=settings.n_threads)
    with LocalModelServer(spec) as server:
        yield Backend(build_lm(settings, server.api_base), server.api_base, settings.model, "local")
