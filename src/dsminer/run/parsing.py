"""Parse a run's PDFs in worker processes, a few papers ahead of the model steps.

Parsing is CPU work that holds the interpreter lock (PyMuPDF's table search most of all), while a paper's model
steps mostly wait on the endpoint. In processes, the next papers are parsed while the current ones wait, on every
core, and a PDF that crashes the parser fails its own paper instead of the run.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType

from dsminer.document.pdf import ParsedPaper, parse_pdf
from dsminer.errors import DsminerError

log = logging.getLogger(__name__)

PARSER_NICENESS = 10


class ParserCrashed(DsminerError):
    """The parser process died on a PDF (twice), as a PyMuPDF crash on a malformed file does."""


class ParserHung(DsminerError):
    """Parsing a PDF took longer than the paper's time limit; its process was stopped."""

    @classmethod
    def after(cls, path: Path, timeout: float | None) -> ParserHung:
        return cls(f"{path.name}: parsing took longer than the time limit of {timeout:.0f} s")


def parse_processes(setting: int | None, workers: int) -> int:
    """Processes to parse with: the setting, else one per worker and at most one per core (0: no processes)."""
    if setting is not None:
        return setting
    return max(1, min(workers, os.cpu_count() or 1))


def _yield_cpu() -> None:
    """Run a parser process at a lower priority: it parses papers ahead of need, while the run's own process
    is what a waiting paper waits on (a model answer to read, the next prompt to build)."""
    try:
        os.nice(PARSER_NICENESS)
    except (AttributeError, OSError):  # no such call on this system, or not permitted: the normal priority
        pass


def _parse_in_child(parse: Callable[[Path], ParsedPaper], path: Path) -> ParsedPaper | str:
    """Parse in a worker process; a refusal comes back as its message (dsminer's errors do not all pickle)."""
    try:
        return parse(path)
    except DsminerError as exc:
        return str(exc)


class PaperParser:
    """Parses `paths` in `processes` processes, keeping up to `ahead` papers parsed or in progress beyond those
    taken; `parse(path)` returns one paper (from any thread) and raises `DsminerError` for a refused PDF. With
    0 processes, `parse` parses in the calling thread (and a time limit cannot stop it). `reader` is the parse
    function (a module-level one, since it is sent to the processes)."""

    def __init__(self, paths: Sequence[Path], processes: int, ahead: int,
                 reader: Callable[[Path], ParsedPaper] = parse_pdf) -> None:
        self.reader = reader
        self.queue = list(paths)
        self.processes = processes
        self.ahead = max(ahead, processes)
        self.pending: dict[Path, Future[ParsedPaper | str]] = {}
        self.taken: set[Path] = set()
        self.next = 0
        self.lock = threading.Lock()
        self.pool: ProcessPoolExecutor | None = None
        self.generation = 0  # pools replaced after a crash so far

    def __enter__(self) -> PaperParser:
        with self.lock:
            self._top_up()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        with self.lock:
            if self.pool is not None:
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None

    def parse(self, path: Path, timeout: float | None = None) -> ParsedPaper:
        """The parsed paper; after `timeout` seconds, `ParserHung`, and the processes of the pool that holds the
        hung parse are stopped (the other papers in it are parsed again, as after a crash)."""
        if not self.processes:
            return self.reader(path)
        with self.lock:
            future = self.pending.pop(path, None) or self._submit(path)
            workers = _workers(self.pool)
            generation = self.generation  # the pool `future` runs in (topping up may replace a broken one)
            self.taken.add(path)
            self._top_up()
        try:
            result = future.result(timeout)
        except FutureTimeout:
            with self.lock:
                self._drop_pool(generation)
            _kill(workers)
            raise ParserHung.after(path, timeout) from None
        except BrokenProcessPool:
            result = self._parse_again(path, generation, timeout)
        if isinstance(result, str):
            raise DsminerError(result)
        return result

    def _parse_again(self, path: Path, generation: int, timeout: float | None) -> ParsedPaper | str:
        """Once more, alone in a new process, after the pool broke: the crash may have been another paper's,
        and alone, a second crash is this paper's own."""
        log.warning("%s: the parser process died; parsing it again on its own", path.name)
        with self.lock:
            self._drop_pool(generation)
        solo = self._new_pool(1)
        workers = _workers(solo)
        try:
            return solo.submit(_parse_in_child, self.reader, path).result(timeout)
        except BrokenProcessPool as exc:
            raise ParserCrashed(f"{path.name}: the PDF parser crashed on this file") from exc
        except FutureTimeout:
            _kill(workers)
            raise ParserHung.after(path, timeout) from None
        finally:
            solo.shutdown(wait=False, cancel_futures=True)

    def _drop_pool(self, broken: int) -> None:
        """Let go of the pool of generation `broken` unless another thread did already; the papers queued in it
        are parsed in the next pool when they are asked for."""
        if broken != self.generation:
            return
        self.generation += 1
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None
        self.pending.clear()

    def _new_pool(self, processes: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"), initializer=_yield_cpu)

    def _submit(self, path: Path) -> Future[ParsedPaper | str]:
        """Queue `path` in the pool; a pool a crash broke before anyone asked for the crashed paper is replaced
        (its queued papers fail with `BrokenProcessPool` and are parsed again when asked for)."""
        if self.pool is not None:
            try:
                return self.pool.submit(_parse_in_child, self.reader, path)
            except BrokenProcessPool:
                self._drop_pool(self.generation)
        self.pool = self._new_pool(self.processes)
        return self.pool.submit(_parse_in_child, self.reader, path)

    def _top_up(self) -> None:
        while self.processes and self.next < len(self.queue) and len(self.pending) < self.ahead:
            path = self.queue[self.next]
            self.next += 1
            if path not in self.taken and path not in self.pending:
                self.pending[path] = self._submit(path)


def _workers(pool: ProcessPoolExecutor | None) -> dict[int, BaseProcess]:
    """The pool's live map of processes (filled as it starts them), held apart because `shutdown` lets go of it."""
    workers = getattr(pool, "_processes", None)
    return workers if workers is not None else {}


def _kill(workers: dict[int, BaseProcess]) -> None:
    """Kill a pool's processes: a parse stuck in PyMuPDF's C code cannot be interrupted any other way."""
    for process in list(workers.values()):
        process.kill()
