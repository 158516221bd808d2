"""The compile worker's main loop: resolve the kernel by path, compile one config per request."""

from __future__ import annotations

import pickle
from pathlib import Path

from ..types import CaptureError
from .compile import Compiled


def failure(kind: str, message: str) -> Compiled:
    """The result of a compile whose worker process died."""
    return Compiled(error=CaptureError("compile", message))


def serve() -> None:
    """Read ``(file, name, signature, config, capability)``, answer ``Compiled``, until stdin closes."""
    from ..workers import protocol_channel

    requests, channel = protocol_channel()
    import triton  # noqa: F401  - import before the first job, not inside it

    from ..kernel import KernelRef, _kernel_in_file, load_module
    from .compile import compile_aot

    while True:
        try:
            file, name, signature, config, capability = pickle.load(requests)
        except EOFError:
            return
        try:
            if signature is None:
                ref = _kernel_in_file(Path(file), name, None)
            else:
                ref = KernelRef(getattr(load_module(Path(file)), name), file, None, signature)
            result = compile_aot(ref, config, capability)
        except Exception as exc:  # noqa: BLE001 - reported as this config's failure
            result = Compiled(error=CaptureError("compile", f"{type(exc).__name__}: {exc}"))
        pickle.dump(result, channel)
        channel.flush()
