"""Another Triton's variant on this GPU: its cubin launched through irscope's own driver launch.

The running Triton's JIT can launch only what the running Triton compiles. A variant that
``-c triton=3.9.0`` compiled is timed from its own cubin instead (as the CUDA frontend times
its kernels, ``nvidia/launch.py``), on the same example inputs, in the same worker, beside the
running Triton's variants. The parameters are the kernel's runtime arguments as that compile
specialised them (its signature drops constexprs and the arguments it made constants), then
the scratch pointers Triton appends; those must go unused (0), as the launch has no scratch
to give.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import UsageError
from ..base import Launch
from .specialize import named_arguments

ENTRY = re.compile(r"\.visible\s+\.entry\s+(\w+)\s*\(")


def launch_binary(kernel: Any, config: Any, binary: dict[str, Any], device: str = "cuda", seed: int = 0) -> Launch:
    """``kernel`` with ``binary`` (a variant's cubin, PTX, signature, shared bytes, warps, CTAs) ready to run."""
    from ...nvidia.launch import CubinFunction

    if int(binary.get("num_ctas") or 1) > 1:
        raise UsageError(f"{kernel.name}: num_ctas > 1 launches as a cluster, which irscope's launch does not do")
    ptx = binary["ptx"]
    entry = ENTRY.search(ptx)
    if entry is None:
        raise UsageError(f"{kernel.name}: the variant's PTX has no kernel entry")
    ns, expected = kernel.example_inputs(config, device, seed)
    runtime = [p.name for p in kernel.fn.params if not p.is_constexpr]
    values = named_arguments(kernel.fn, kernel.spec.args(ns))
    signature = binary["signature"]
    params = [values[name] for name in runtime if signature.get(name) != "constexpr"]
    function = CubinFunction(binary["cubin"], entry[1], ptx)
    extra = range(len(params), len(function.types))
    used = [i for i in extra if re.search(rf"\b{re.escape(entry[1])}_param_{i}\]", ptx)]
    if len(function.types) < len(params) or used:
        raise UsageError(f"{kernel.name}: the cubin takes parameters irscope cannot give it (scratch memory)")
    prepared = function.prepare([*params, *(0 for _ in extra)])
    grid = tuple(int(g) for g in kernel.spec.grid(ns))
    block = (32 * int(binary["num_warps"]), 1, 1)
    shared = int(binary.get("shared") or 0)
    function.allow_shared(shared)

    def run() -> None:
        function.launch(grid, block, prepared, shared)

    def first() -> Any:
        run()
        return function

    return Launch.from_spec(kernel.spec, config, ns, expected, first, run)
