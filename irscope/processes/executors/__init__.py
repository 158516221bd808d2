"""Executors: where compile and measurement jobs run.

``local`` (the default) runs them in worker processes of this host (``workers.WorkerPool``);
``ray`` sends them to a Ray cluster (``RAY_ADDRESS``, or a local instance irscope starts):
compiles as CPU tasks anywhere in it, measurements in actors holding one GPU each, results
streaming back to the one process that writes the session (docs/ray.md).
"""

from __future__ import annotations

from .base import Executor, Pool, Work

EXECUTORS = ("local", "ray")


def executor_named(name: str | None, gpu_type: str | None = None) -> Executor:
    """The executor ``--executor NAME`` asks for; ``gpu_type``: Ray's accelerator type to measure on."""
    from ...errors import UsageError

    name = name or "local"
    if name not in EXECUTORS:
        raise UsageError(f"unknown executor {name!r}; known: {', '.join(EXECUTORS)}")
    if name == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(gpu_type)
    if gpu_type is not None:
        raise UsageError("--gpu-type picks the GPUs of a Ray cluster: it goes with --executor ray")
    from .local import LocalExecutor

    return LocalExecutor()


__all__ = ["EXECUTORS", "Executor", "Pool", "Work", "executor_named"]
