"""The compile worker's main loop: find the kernel by its handle, compile one config per request."""

from __future__ import annotations

import pickle
from typing import Any

from .. import frontends
from ..frontends import Compiled, KernelHandle
from ..processes.executors import Work
from ..processes.workers import protocol_channel
from ..types import CaptureError, Config


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


# A compile, as every executor runs it: this module's serve() locally, compile_job() anywhere else.
COMPILE = Work(serve="irscope.capturing.worker:serve", run=compile_job, result=Compiled, failure=failure)
