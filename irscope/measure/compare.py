"""Time several implementations of one operation in one GPU worker, the same way (irscope compare).

Each implementation is a (kernel, config) job like a bench variant; the spec's PyTorch
reference adds two more, eager and torch.compile'd (reference.py), run on the first
implementation's example inputs. One worker, warmed up once, so every row is
measured by the same process on the same GPU.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..frontends import Kernel
from ..records import Measurement
from ..types import Config


def measure_all(
    jobs: Sequence[tuple[Kernel, Config]],
    references: Sequence[str] = (),
    *,
    method: str = "cupti",
    min_time_ms: float = 100.0,
    timeout: float = 600.0,
) -> Iterator[tuple[Any, Measurement]]:
    """``(tag, Measurement)`` as each finishes: tags are job indices, then ``"eager"``/``"torch.compile"``."""
    from ..processes.workers import WorkerPool
    from .bench import WARM_UP, require_gpu
    from .worker import failure

    require_gpu("compare --bench")
    options = {"method": method, "min_time_ms": min_time_ms}
    pool = WorkerPool(1, "irscope.measure.worker:serve", failure, timeout=timeout)
    try:
        pool.submit(WARM_UP, (None, None, {"warm_up": True}))
        for i, (kernel, config) in enumerate(jobs):
            pool.submit(i, (kernel.handle(), config, options))
        if jobs and references:
            kernel, config = jobs[0]
            for mode in references:
                pool.submit(mode, (kernel.handle(), config, {**options, "reference": mode}))
        while pool.outstanding:
            for tag, measurement in pool.results(timeout=0.2):
                if tag != WARM_UP:
                    yield tag, measurement
    finally:
        pool.close()
