"""A kernel's own autotuner, run in a GPU worker once irscope has timed the same configs.

A user's program does not get irscope's fastest config: it gets the one its
autotuner picks from its own timings (Triton's: CUDA events around each call,
launch overhead included). Running that autotuner beside irscope's measurement
shows what it timed and picked, and where the two rankings disagree. The
frontend runs it (``Kernel.run_autotuner``); this module decides when there is
one to run and keeps a failure to one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import frontends
from ..errors import exception_line
from ..frontends import Kernel
from ..records import AutotunerRun, Measurement
from ..types import Config
from .faults import is_cuda_fault

AUTOTUNER = "autotuner"  # the option that makes a worker's job this one (worker.serve), and its tag in bench


def autotuner_job(kernel: Kernel, configs: Sequence[Config]) -> tuple | None:
    """The worker job that runs ``kernel``'s autotuner on the first config's inputs; None when it has none."""
    if not configs or not kernel.can_launch or not kernel.autotuned:
        return None
    return kernel.handle(), configs[0], {AUTOTUNER: True}


def autotune(handle, config: Config, options: dict[str, Any] | None = None) -> AutotunerRun | None:
    """In a GPU process: the autotuner's timings and pick (None: the kernel has no autotuner)."""
    try:
        kernel = frontends.load(handle)
        if not kernel.autotuned:
            return None
        return kernel.run_autotuner(config, device="cuda", seed=(options or {}).get("seed", 0))
    except Exception as exc:
        if is_cuda_fault(exc):
            raise  # the context is gone: the worker dies and the pool says so
        return AutotunerRun(error=exception_line(exc)[:500])


def as_run(result: Any) -> AutotunerRun | None:
    """A worker's answer as a run: a failed or killed job comes back as a Measurement."""
    if isinstance(result, Measurement):
        return AutotunerRun(error=f"{result.status.value}: {result.error}")
    if result is None or isinstance(result, AutotunerRun):
        return result
    return AutotunerRun(error=f"the worker answered {type(result).__name__}")
