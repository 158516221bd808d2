"""The compile worker's main loop: find the kernel by its handle, compile one config per request."""

from __future__ import annotations

import pickle

from .. import frontends
from ..frontends import Compiled
from ..types import CaptureError
from ..workers import protocol_channel


def failure(kind: str, message: str) -> Compiled:
    """The result of a compile whose worker process died (kind "crashed") or was killed for its time."""
    if kind == "timeout":
        return Compiled(
            error=CaptureError("timeout", f"{message} (the compile timeout; raise it with --compile-timeout)")
        )
    return Compiled(error=CaptureError("compile", message))


def serve() -> None:
    """Read ``(handle, config, target, passes)``, answer ``Compiled``, until stdin closes.

    ``passes``: record every pass of the compiler; one compile at a time per worker keeps
    the pass dumps (set through the process's environment) to that compile.
    """
    requests, channel = protocol_channel()
    while True:
        try:
            handle, config, target, passes = pickle.load(requests)
        except EOFError:
            return
        try:
            kernel = frontends.load(handle)
            result = kernel.compile_passes(config, target) if passes else kernel.compile(config, target)
        except Exception as exc:
            error = CaptureError.from_environment(exc, "compiling")
            result = Compiled(error=error or CaptureError("compile", f"{type(exc).__name__}: {exc}"))
        pickle.dump(result, channel)
        channel.flush()
