"""What an executor is: a kind of job (``Work``), a pool that runs jobs (``Pool``), and who makes pools.

The code that needs jobs run (capture's compiles, bench's measurements) describes its job
once, as a ``Work``: the local worker's main loop and the one-job function any other
process runs. An executor turns that into a pool with ``submit``/``results``/``close``, the
calls ``workers.WorkerPool`` already answers, so the pipeline never knows where a job ran.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol


def no_state() -> None:
    """A process that keeps nothing between jobs (a compile)."""
    return None


def never_fatal(exc: BaseException) -> bool:
    return False


def no_check(result: Any) -> None:
    """A result taken as it is."""


@dataclass(frozen=True)
class Work:
    """One kind of job, as every executor needs it described.

    ``run(state, *job)`` answers one job in whichever process runs it; ``state`` is what
    ``new_state()`` made once in that process (a GPU's MeasureState). ``result`` is the type
    (or types) ``run`` answers, and ``check(answer)`` raises (TypeError, ValueError) where a field of
    one holds what nothing after it could use: anything else is junk, and the job fails (``accepted``).
    A worker's answer, and a Ray node's, is checked so before it is cached or written.
    ``failure(kind, message)`` is the answer of a job whose process died ("crashed") or ran
    out of time ("timeout"). ``fatal(exc)``: after this exception the process is unusable
    (a CUDA fault poisons its context) and is replaced. Every callable here is a module-level
    function: a Ray task or actor imports it by name on the node that runs it.
    """

    serve: str  # "module:function": a local worker's main loop (workers.WorkerPool)
    run: Callable[..., Any]
    result: type | tuple[type, ...]
    failure: Callable[[str, str], Any]
    new_state: Callable[[], Any] = no_state
    fatal: Callable[[BaseException], bool] = never_fatal
    check: Callable[[Any], None] = no_check
    gpu: bool = False  # each process holds one GPU
    # What every such process imports before its first job: a local GPU worker is forked from a parent
    # kept between commands that imported these once (resident.py); () starts each from scratch.
    preload: tuple[str, ...] = ()


def accepted(work: Work, answer: Any) -> Any:
    """``answer`` where it is a ``work.result`` whose fields hold what they should; else the job's failure."""
    if not isinstance(answer, work.result):
        return work.failure("crashed", f"the worker answered a {type(answer).__name__}, not a result")
    try:
        work.check(answer)
    except (TypeError, ValueError, AttributeError) as exc:
        return work.failure("crashed", f"the worker answered a damaged {type(answer).__name__}: {str(exc)[:300]}")
    return answer


class Pool(Protocol):
    """Jobs in, ``(tag, result)`` out in completion order; ``workers.WorkerPool`` is one."""

    @property
    def outstanding(self) -> int: ...

    def submit(self, tag: Any, job: tuple) -> None: ...

    def results(self, timeout: float) -> Iterator[tuple[Any, Any]]: ...

    def close(self) -> None: ...


class Executor:
    """Where jobs run. ``local``: processes of this host; ``remote``: the kernel is loaded again elsewhere."""

    name = "local"
    remote = False

    def __init__(self) -> None:
        # Jobs done per node, for progress; a local executor has one node, unnamed, and counts nothing.
        self.done_per_node: Counter[str] = Counter()

    def pool(
        self,
        work: Work,
        size: int,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        envs: list[dict[str, str]] | None = None,
    ) -> Pool:
        """A pool of ``size`` workers for ``work`` (``envs``: one environment each, a GPU's, say)."""
        return self._pool(work, size, timeout, env or {}, envs or [])

    def _pool(self, work: Work, size: int, timeout: float | None, env: dict, envs: list[dict]) -> Pool:
        raise NotImplementedError

    def gpu_count(self, local: int) -> int:
        """How many GPU workers to start: ``local`` (the GPUs asked for here) or the cluster's."""
        return local

    def check_kernel(self, kernel: Any) -> None:
        """Refuse (UsageError) a kernel this executor cannot run; any kernel runs locally."""

    def counted(self, node: str, tag: Any) -> None:
        """A job of ``tag`` done on ``node``: a variant's (tagged by its index), not a worker's warm-up or the like."""
        if isinstance(tag, int):
            self.done_per_node[node] += 1

    def per_node(self) -> str:
        """Jobs done per node, in words ("done per node: 192.0.2.7 12, 192.0.2.9 9"); "" where none is named."""
        if not self.done_per_node:
            return ""
        return "done per node: " + ", ".join(f"{node} {n}" for node, n in sorted(self.done_per_node.items()))
