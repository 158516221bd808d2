"""Worker processes: compile workers and GPU measurement workers, one job at a time each.

Plain subprocesses talking pickles over pipes, rather than multiprocessing: a
multiprocessing pool re-imports the caller's ``__main__`` (breaking scripts
without a ``__main__`` guard) or forks a process that may hold threads (the
TUI's). A worker that crashes (a segfault in the compiler, an illegal address
on the GPU) or runs past its time loses only the job it was running, which comes
back as a failure; a fresh worker takes its place for the next job. Each worker
leads a process group of its own, so killing it also kills what it started (a
ptxas run that would go on for minutes, say), and kills that group itself when
irscope goes, however it went. A worker never starts workers: a kernel file that
calls irscope's ``capture`` when it is imported would otherwise start a pool in
each worker, and each of those another.
"""

from __future__ import annotations

import os
import pickle
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import UsageError
from . import own_python
from .timeline import mark

PARENT_POLL_S = 0.2  # how soon a worker notices that irscope is gone
# Seconds a compile worker is given per variant before it is killed (--compile-timeout): a real kernel
# compiles in seconds. Here, below capture, so that what only names the default (a session opened in the
# TUI) need not import capture.
DEFAULT_COMPILE_TIMEOUT = 300.0


class NestedWorkers(UsageError):
    """Workers asked for inside a worker: the kernel file runs irscope itself when it is imported."""


class WorkerPool:
    """``n`` worker processes fed from one queue; results come back through ``results()``.

    ``serve`` names the worker's main loop (``"module:function"``); ``failure(kind,
    message)`` makes the result of a job whose worker died (kind "crashed") or ran
    past ``timeout`` seconds (kind "timeout").
    """

    def __init__(
        self,
        n: int,
        serve: str,
        failure: Callable[[str, str], Any],
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        envs: list[dict[str, str]] | None = None,
        resident_preload: tuple[str, ...] | None = None,
        accept: Callable[[Any], Any] | None = None,
    ) -> None:
        """``envs``: one environment per worker (each its own GPU, say), over ``env``. ``resident_preload``:
        fork each worker from a parent kept between commands that imported these modules (resident.py),
        where one can be had; None: start each worker from scratch. ``accept(answer)``: the answer, or the
        job's failure where it is junk (``executors.base.accepted``)."""
        if os.environ.get(own_python.WORKER_ENV):
            raise NestedWorkers(
                "irscope was asked to start workers inside its own worker: does the kernel file "
                "call irscope (capture, sweep) when it is imported? Guard that with "
                '`if __name__ == "__main__":`'
            )
        self._serve = serve
        self._failure = failure
        self._timeout = timeout
        self._env = env or {}
        self._envs = envs or [{}] * n
        self._resident = resident_preload
        self._accept = accept
        self._jobs: queue.Queue = queue.Queue()
        self._results: queue.Queue = queue.Queue()
        self._outstanding = 0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._processes: list[Any] = []  # subprocess.Popen, or resident.ResidentWorker
        self._threads = [threading.Thread(target=self._drive, args=(k,), daemon=True) for k in range(n)]
        for thread in self._threads:
            thread.start()

    @property
    def outstanding(self) -> int:
        return self._outstanding

    def submit(self, tag: Any, job: tuple) -> None:
        with self._lock:
            self._outstanding += 1
        self._jobs.put((tag, job))

    def results(self, timeout: float) -> Iterator[tuple[Any, Any]]:
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
        """Stop every worker now; jobs not yet finished are dropped.

        Each is killed and let go of: a forked GPU worker's end (its CUDA context torn down, 0.1-1 s)
        is its parent's to reap, not this command's to wait for (tests/perf/probe_cli_timeline.py).
        """
        self._closed.set()
        for proc in list(self._processes):
            if _running(proc):
                _kill(proc)
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout=5)

    def _spawn(self, k: int) -> tuple[Any, Any]:
        mark(f"starting worker {k} ({self._serve})")
        errors = tempfile.TemporaryFile()
        env = own_python.environment({**self._env, **self._envs[k]})
        if self._resident is not None:
            from . import resident  # only GPU workers fork from it: a compile worker's start need not import it

            forked = resident.connect(self._serve, env, errors.fileno(), self._resident)
            if forked is not None:
                self._processes.append(forked)
                return forked, errors
        module, function = self._serve.split(":")
        proc = subprocess.Popen(
            own_python.command(f"from {module} import {function}; {function}()"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
            start_new_session=True,  # its own process group: see _kill. Ctrl-C reaches the parent, which closes the pool
        )
        self._processes.append(proc)
        return proc, errors

    def _drive(self, k: int) -> None:
        proc: Any = None  # a Popen, or a resident parent's fork (resident.ResidentWorker), which answers as one
        errors = None
        try:
            while not self._closed.is_set():
                item = self._jobs.get()
                if item is None:
                    return
                tag, job = item
                if proc is None or proc.poll() is not None:
                    proc, errors = self._spawn(k)
                    if self._closed.is_set():
                        return  # closed while it started: no job for it (the finally kills it)
                try:
                    pickle.dump(job, proc.stdin)
                    proc.stdin.flush()
                    if self._timeout is not None and not select.select([proc.stdout], [], [], self._timeout)[0]:
                        _kill(proc)
                        proc.wait()
                        result = self._failure(
                            "timeout", f"no result after {self._timeout:.0f} s; the worker was killed"
                        )
                        proc = None
                    else:
                        result = pickle.load(proc.stdout)
                        if self._accept is not None:
                            result = self._accept(result)
                except (EOFError, OSError, pickle.UnpicklingError) as exc:
                    if self._closed.is_set():
                        return
                    assert proc is not None  # (only a live worker's pipes fail here)
                    result = self._failure("crashed", _crash_reason(proc, errors, exc))
                    _kill(proc)
                    proc = None
                self._results.put((tag, result))
        finally:
            if proc is not None and self._closed.is_set():
                _let_go(proc)  # killed by close(), or started since: see _let_go
            elif proc is not None and proc.poll() is None:
                try:
                    proc.stdin.close()
                    proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    _kill(proc)


def _kill(proc: subprocess.Popen) -> None:
    """Kill the worker and every process it started (its group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.kill()


def _running(proc: Any) -> bool:
    """Whether ``proc`` still runs, asked without waiting (a forked worker's ``poll`` waits for its status)."""
    return proc.poll() is None if isinstance(proc, subprocess.Popen) else proc.running()


def _let_go(proc: Any) -> None:
    """A worker of a closed pool: a forked one is its parent's to reap; a process of ours is killed (it may
    have started after close() killed the others) and reaped here."""
    if isinstance(proc, subprocess.Popen):
        if proc.poll() is None:
            _kill(proc)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    else:
        proc.release()


def _crash_reason(proc: subprocess.Popen, errors: Any, exc: Exception) -> str:
    try:
        code = proc.wait(timeout=5) if proc.poll() is None else proc.returncode
    except subprocess.TimeoutExpired:
        code = None
    errors.seek(0)
    tail = [ln for ln in errors.read().decode("utf-8", "replace").splitlines() if ln.strip()][-1:]
    signal = "" if code is None else f" (signal {-code})" if code < 0 else f" (exit {code})"
    return f"worker process died{signal}" + (f": {tail[0][:300]}" if tail else f": {type(exc).__name__}")


def protocol_channel():
    """For a worker's main loop: (requests, results) streams; stray writes to fd 1 go to stderr.

    The protocol owns the real stdout; anything Triton, LLVM, ptxas or CUDA writes
    to fd 1 is sent to stderr instead of corrupting the pickle stream. The worker
    dies, with everything it started, once the irscope that started it is gone.
    """
    die_with_parent()
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return sys.stdin.buffer, channel


def die_with_parent() -> None:
    """Kill this worker's process group (it, nvcc, cicc, ptxas... or pip) once its parent is gone.

    A parent killed with SIGKILL closes no pool, and a compile may run for minutes yet;
    the worker is then the child of another process (init, a subreaper), so ``getppid``
    tells. Only a worker that leads its own group does this: killing any other group
    could take its parent's terminal job with it.
    """
    parent = os.environ.get(own_python.WORKER_ENV, "")
    if not parent.isdigit() or os.getpgrp() != os.getpid():
        return

    def watch() -> None:
        while os.getppid() == int(parent):
            time.sleep(PARENT_POLL_S)
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="irscope-parent-watch", daemon=True).start()
