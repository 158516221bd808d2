"""The spec's own PyTorch reference as a variant to time: eager, and through torch.compile.

The lecture's last table puts a hand-written kernel beside PyTorch and torch.compile.
A spec's ``reference`` is exactly the PyTorch way to compute the kernel's outputs, so
irscope times it as it times a kernel (every GPU kernel it runs, summed per call)
and, compiled by torch.compile, checks what Inductor's kernels compute against the
eager reference. GPU side (imports torch).
"""

from __future__ import annotations

from typing import Any

from ..frontends import Launch
from ..types import Config

MODES = ("eager", "torch.compile")


def reference_launch(kernel: Any, config: Config, mode: str, device: str = "cuda", seed: int = 0) -> Launch:
    """``kernel``'s spec reference on the kernel's example inputs for ``config``, as a Launch."""
    import torch

    from ..errors import UsageError
    from ..frontends.examples import example_inputs

    spec = getattr(kernel, "spec", None)
    if spec is None or spec.reference is None:
        raise UsageError(f"{kernel.name} declares no torch reference to time")
    if mode not in MODES:
        raise UsageError(f"unknown reference mode {mode!r}; known: {', '.join(MODES)}")
    ns, expected = example_inputs(spec, config, device, seed)
    fn = spec.reference if mode == "eager" else torch.compile(spec.reference, dynamic=False)
    outputs: dict[str, Any] = {}  # filled by the first call: the reference makes new tensors

    def run() -> Any:
        return fn(ns)

    def first() -> Any:
        result = run()  # torch.compile compiles here
        result = result if isinstance(result, (tuple, list)) else (result,)
        outputs.update(zip(spec.outputs(), result))
        return None

    values = config.values()
    return Launch(
        first=first,
        run=run,
        outputs=outputs,
        expected=expected,
        tolerance=lambda name: spec.tolerance_for(spec.tensors[name].dtype),
        bytes_moved=spec.bytes_for(values),
        flops=spec.flops_for(values),
    )
