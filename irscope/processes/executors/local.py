"""The local executor: worker processes of this host (``workers.WorkerPool``), as irscope always ran them."""

from __future__ import annotations

from functools import partial

from ..workers import WorkerPool
from .base import Executor, Pool, Work, accepted


class LocalExecutor(Executor):
    name = "local"

    def _pool(self, work: Work, size: int, timeout: float | None, env: dict, envs: list[dict]) -> Pool:
        return WorkerPool(
            size,
            work.serve,
            work.failure,
            timeout=timeout,
            env=env,
            envs=envs or None,
            resident_preload=work.preload or None,
            accept=partial(accepted, work),
        )
