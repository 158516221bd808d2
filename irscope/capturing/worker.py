"""The compile worker's main loop: find the kernel by its handle, compile one config per request."""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable
from typing import Any

from .. import frontends
from ..frontends import Compiled, KernelHandle
from ..processes.executors import Work
from ..processes.workers import protocol_channel
from ..stages import Stage
from ..types import CaptureError, Config, PassLog, scalar_values


def failure(kind: str, message: str) -> Compiled:
    """The result of a compile whose worker process died (kind "crashed") or was killed for its time."""
    if kind == "timeout":
        return Compiled(
            error=CaptureError("timeout", f"{message} (the compile timeout; raise it with --compile-timeout)")
        )
    return Compiled(error=CaptureError("compile", message))


def compile_job(
    state: Any, handle: KernelHandle, config: Config, target, passes: bool, source_hash: str | None = None
) -> Compiled:
    """Load the kernel by its handle and compile one config, in whichever process runs the job.

    ``source_hash``: the kernel's, where the job was sent to another machine; a kernel file
    there that is not the same (an older copy at the same path) fails the variant instead of
    passing off its compile as this one's.
    """
    try:
        kernel = frontends.load(handle)
        if source_hash is not None and kernel.identity().source_hash != source_hash:
            return Compiled(
                error=CaptureError(
                    "compile",
                    f"{handle.file} on the node that compiled it differs from the one here: "
                    "the kernel's file must be the same on every node",
                )
            )
        return kernel.compile_passes(config, target) if passes else kernel.compile(config, target)
    except Exception as exc:
        error = CaptureError.from_environment(exc, "compiling")
        return Compiled(error=error or CaptureError("compile", f"{type(exc).__name__}: {exc}"))


def serve() -> None:
    """Read ``(handle, config, target, passes[, source_hash])``, answer ``Compiled``, until stdin closes.

    ``passes``: record every pass of the compiler; one compile at a time per worker keeps
    the pass dumps (set through the process's environment) to that compile.
    """
    requests, channel = protocol_channel()
    while True:
        try:
            job = pickle.load(requests)
        except EOFError:
            return
        pickle.dump(compile_job(None, *job), channel)
        channel.flush()


def check_compiled(compiled: Compiled) -> None:
    """A TypeError or ValueError naming the field of ``compiled`` that holds what capture, the cache and a
    session's files could not take: a worker's answer (a Ray node's too) is checked so before it is used.
    A stage named by anything but a Stage (``../../outside``), an option no JSON can hold, a compile time
    of ``"soon"``: each was cached and written into a session irscope then refused to open, or exit 70."""
    for name, check in _FIELD_CHECKS.items():
        if not check(getattr(compiled, name)):
            raise ValueError(f"Compiled.{name} holds {str(getattr(compiled, name))[:80]!r}")
    json.dumps(compiled.options, allow_nan=False)  # as compile_info.options, in variant.json
    scalar_values(compiled.heuristics, "Compiled.heuristics")
    if compiled.passes is not None:
        PassLog.from_json(compiled.passes.to_json())  # checks that its steps cover the IR


def cluster_shape(value: Any) -> bool:
    """A cluster's (x, y, z) CTAs, each 1 to 9999 (what ``Resources.cluster`` can spell)."""
    from ..ir.ptx import launchable_cluster  # here: a worker's start need not compile ptx.py's patterns

    return isinstance(value, tuple) and launchable_cluster(value)


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value < 1 << 63


def _text_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


_FIELD_CHECKS: dict[str, Callable[[Any], bool]] = {
    "stages": lambda v: isinstance(v, dict) and all(isinstance(k, Stage) and isinstance(t, str) for k, t in v.items()),
    "cubin": lambda v: v is None or type(v) is bytes,
    "shared": _count,
    "options": lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v),
    "threads_per_block": lambda v: v is None or _count(v),
    "compiler": lambda v: isinstance(v, str),
    "ptxas_log": lambda v: v is None or isinstance(v, str),
    "seconds": lambda v: type(v) in (int, float) and math.isfinite(v) and v >= 0,
    "error": lambda v: (
        v is None
        or (
            isinstance(v, CaptureError) and isinstance(v.message, str) and (v.stage is None or isinstance(v.stage, str))
        )
    ),
    "signature": _text_map,
    "stage_errors": lambda v: (
        isinstance(v, dict) and all(isinstance(k, Stage) and isinstance(t, str) for k, t in v.items())
    ),
    "divisible_by_16": lambda v: isinstance(v, (tuple, list)) and all(isinstance(a, str) for a in v),
    "heuristics": lambda v: isinstance(v, dict),
    "gpu_registers": lambda v: v is None or _count(v),
    "gpu_spills": lambda v: v is None or _count(v),
    "passes": lambda v: v is None or isinstance(v, PassLog),
    "cubin_resources": lambda v: isinstance(v, dict) and all(isinstance(k, str) and _count(n) for k, n in v.items()),
    "cluster": lambda v: v is None or cluster_shape(v),
}


# A compile, as every executor runs it: this module's serve() locally, compile_job() anywhere else.
COMPILE = Work(
    serve="irscope.capturing.worker:serve", run=compile_job, result=Compiled, failure=failure, check=check_compiled
)
