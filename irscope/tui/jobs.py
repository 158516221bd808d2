"""Background jobs the TUI runs: capture a sweep, then (with a GPU) measure it.

Each job is a function of a cancel event and a message poster; the app runs them
in a thread worker, one after another.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .messages import Measured, Progress, VariantReady

Job = Callable[[threading.Event, Callable], None]


def capture_job(kernel, configs, arch, session, compile_timeout) -> Job:
    """Capture every config (cache first), posting each variant as it is ready."""
    from ..session import run_sweep

    def job(cancel: threading.Event, post) -> None:
        total, done = len(configs), 0
        post(Progress("capturing", 0, total))
        for result in run_sweep(kernel, configs, arch, session, cancel=cancel, compile_timeout=compile_timeout):
            done += 1
            post(VariantReady(result.index, result.variant, result.entry))
            post(Progress("capturing", done, total))
            if cancel.is_set():
                return

    return job


def bench_job(kernel, configs, session, compile_timeout) -> Job:
    """Check and time every config on this GPU, posting each measurement."""
    from ..measure.bench import bench

    def job(cancel: threading.Event, post) -> None:
        total, done = len(configs), 0
        post(Progress("measuring", 0, total))
        for result in bench(kernel, configs, session, cancel=cancel, compile_timeout=compile_timeout):
            done += 1
            post(Measured(result.index, result.measurement))
            post(Progress("measuring", min(done, total), total))

    return job
