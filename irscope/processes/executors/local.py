"""The local executor: worker processes of this host (``workers.WorkerPool``), as irscope always ran them."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

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


class KeptPoolExecutor(LocalExecutor):
    """The local executor for several ``capture_many`` calls of one command, one pool kept between them.

    ``irscope inductor`` compiles each kernel of a log in a ``capture_many`` of its own; a fresh worker
    for each imported torch's Inductor runtime again (the kernel files import it: 5.4 s of CPU here).
    A pool asked for with the same work, size, timeout and environments as the last one is that pool,
    its workers already started; a pool left with jobs outstanding (a cancelled capture) is closed, so
    no stale answer reaches the next call. ``close()`` when the command is done.
    """

    def __init__(self) -> None:
        super().__init__()
        self._kept: Pool | None = None
        self._key: tuple | None = None

    def _pool(self, work: Work, size: int, timeout: float | None, env: dict, envs: list[dict]) -> Pool:
        key = (work, size, timeout, sorted(env.items()), [sorted(e.items()) for e in envs])
        if self._kept is None or self._key != key or self._kept.outstanding:
            self.close()
            self._kept, self._key = super()._pool(work, size, timeout, env, envs), key
        return _Lent(self._kept, self)

    def close(self) -> None:
        if self._kept is not None:
            self._kept.close()
            self._kept = self._key = None

    def forget(self, pool: Pool) -> None:
        """``pool`` was closed by its borrower: the next call starts another."""
        if self._kept is pool:
            self._kept = self._key = None


class _Lent:
    """A kept pool as one ``capture_many`` sees it: closing it keeps the workers unless jobs are left."""

    def __init__(self, pool: Pool, owner: KeptPoolExecutor) -> None:
        self._pool, self._owner = pool, owner

    @property
    def outstanding(self) -> int:
        return self._pool.outstanding

    def submit(self, tag: Any, job: tuple) -> None:
        self._pool.submit(tag, job)

    def results(self, timeout: float) -> Iterator[tuple[Any, Any]]:
        return self._pool.results(timeout)

    def close(self) -> None:
        if self._pool.outstanding:
            self._pool.close()
            self._owner.forget(self._pool)
