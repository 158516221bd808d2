"""Compile workers: separate Python processes, each compiling one config at a time.

Plain subprocesses talking pickles over pipes, rather than multiprocessing: a
multiprocessing pool re-imports the caller's ``__main__`` (breaking scripts
without a ``__main__`` guard) or forks a process that may hold threads (the
TUI's). A worker that crashes (a segfault in the compiler) loses only the
config it was compiling, which comes back as a failed variant; a fresh worker
takes its place.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

from ..types import CaptureError
from .compile import Compiled


class WorkerPool:
    """``n`` compile processes fed from one queue; results come back through ``results()``."""

    def __init__(self, n: int) -> None:
        self._jobs: queue.Queue = queue.Queue()
        self._results: queue.Queue = queue.Queue()
        self._outstanding = 0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._processes: list[subprocess.Popen] = []
        self._threads = [threading.Thread(target=self._drive, daemon=True) for _ in range(n)]
        for thread in self._threads:
            thread.start()

    @property
    def outstanding(self) -> int:
        return self._outstanding

    def submit(self, tag: Any, job: tuple) -> None:
        with self._lock:
            self._outstanding += 1
        self._jobs.put((tag, job))

    def results(self, timeout: float) -> Iterator[tuple[Any, Compiled]]:
        """Results that are ready, waiting at most ``timeout`` for the first one."""
        try:
            item = self._results.get(timeout=timeout)
        except queue.Empty:
            return
        while True:
            with self._lock:
                self._outstanding -= 1
            yield item
            try:
                item = self._results.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        """Stop every worker now; jobs not yet finished are dropped."""
        self._closed.set()
        for _ in self._threads:
            self._jobs.put(None)
        for proc in list(self._processes):
            if proc.poll() is None:
                proc.kill()
        for thread in self._threads:
            thread.join(timeout=5)

    def _spawn(self) -> tuple[subprocess.Popen, Any]:
        errors = tempfile.TemporaryFile()
        proc = subprocess.Popen(
            [sys.executable, "-c", "from irscope.capture.worker import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
        )
        self._processes.append(proc)
        return proc, errors

    def _drive(self) -> None:
        proc, errors = None, None
        try:
            while not self._closed.is_set():
                item = self._jobs.get()
                if item is None:
                    return
                tag, job = item
                if proc is None or proc.poll() is not None:
                    proc, errors = self._spawn()
                try:
                    pickle.dump(job, proc.stdin)
                    proc.stdin.flush()
                    result = pickle.load(proc.stdout)
                except (EOFError, OSError, pickle.UnpicklingError) as exc:
                    if self._closed.is_set():
                        return
                    result = Compiled(error=CaptureError("compile", _crash_reason(proc, errors, exc)))
                    proc.kill()
                    proc = None
                self._results.put((tag, result))
        finally:
            if proc is not None and proc.poll() is None:
                proc.stdin.close()
                proc.wait(timeout=5)


def _crash_reason(proc: subprocess.Popen, errors: Any, exc: Exception) -> str:
    code = proc.wait(timeout=5) if proc.poll() is None else proc.returncode
    errors.seek(0)
    tail = [ln for ln in errors.read().decode("utf-8", "replace").splitlines() if ln.strip()][-1:]
    signal = f" (signal {-code})" if code is not None and code < 0 else f" (exit {code})"
    return f"compiler process died{signal}" + (f": {tail[0]}" if tail else f": {type(exc).__name__}")


def serve() -> None:
    """Worker main loop: read ``(file, name, signature, config, capability)``, answer ``Compiled``."""
    # The protocol owns the real stdout; anything Triton, LLVM or ptxas writes to
    # fd 1 is sent to stderr instead of corrupting the pickle stream.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    import triton  # noqa: F401  - import before the first job, not inside it

    from ..kernel import KernelRef, _kernel_in_file
    from .compile import compile_aot

    while True:
        try:
            file, name, signature, config, capability = pickle.load(requests)
        except EOFError:
            return
        try:
            ref = _kernel_in_file(Path(file), name, None) if signature is None else None
            if ref is None:
                from ..kernel import load_module

                fn = getattr(load_module(Path(file)), name)
                ref = KernelRef(fn, file, None, signature)
            result = compile_aot(ref, config, capability)
        except Exception as exc:  # noqa: BLE001 - reported as this config's failure
            result = Compiled(error=CaptureError("compile", f"{type(exc).__name__}: {exc}"))
        pickle.dump(result, channel)
        channel.flush()
