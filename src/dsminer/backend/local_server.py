"""Run llama.cpp's OpenAI-compatible server (xllamacpp) in a child process on a free loopback port.

llama.cpp takes over SIGINT/SIGTERM in the process that starts it, so the server lives in its own
process. The child exits when its stdin closes, so it also goes when the parent dies; `stop()` kills it.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from dsminer.errors import BackendError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerSpec:
    """What the child process needs to serve one GGUF model."""

    gguf_path: Path
    alias: str
    n_ctx: int = 8192
    n_parallel: int = 1
    n_threads: int | None = None
    port: int = 0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalModelServer:
    """A context manager that starts the server, waits until it answers, and stops it on exit."""

    def __init__(self, spec: ServerSpec, start_timeout_s: float = 180.0) -> None:
        self.spec = spec if spec.port else ServerSpec(**{**spec.__dict__, "port": free_port()})
        self.start_timeout_s = start_timeout_s
        self.process: subprocess.Popen | None = None

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.spec.port}/v1"

    def start(self) -> LocalModelServer:
        if not self.spec.gguf_path.is_file():
            raise BackendError(f"model file not found: {self.spec.gguf_path}")
        payload = json.dumps({**self.spec.__dict__, "gguf_path": str(self.spec.gguf_path)})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dsminer.backend.serve", payload],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace").strip().splitlines()
                raise BackendError(f"local model server exited: {err[-1] if err else 'no message'}")
            if _answers(self.api_base):
                log.info("local model server ready at %s", self.api_base)
                return
            time.sleep(0.25)
        self.stop()
        raise BackendError(f"local model server did not answer within {self.start_timeout_s:.0f} s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            process.stdin.close()
            process.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait(timeout=10)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _answers(api_base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_base}/models", timeout=1.0) as response:
            return response.status == 200
    except OSError:
        return False


def default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
