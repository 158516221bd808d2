"""A launch a program made (recorded by ``irscope run``), made again for bench: same shapes, new data.

A recorded launch keeps each argument's dtype, shape, strides and alignment, and
the grid, never the data. That is enough to time the kernel: tensors of the same
layout are filled with random floats (integer and boolean tensors with zeros: an
index tensor of random values would send the kernel out of bounds), scalars keep
their recorded values, and the grid is the one the program launched that config
with. What it is not enough for is a check: there is no reference, so the
measurement is a timing only. A config the program never launched has no grid
(the grid is the program's own code), and an argument recorded only by its repr
cannot be made; either is said in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...errors import ParameterError
from ...spec import DTYPES
from ...types import Config
from ..base import Launch
from .compile import triton_cache_for
from .options import triton_options


def launch_key(config: Config) -> str:
    """How a recorded launch is found again for a config: its values, as sorted JSON."""
    return json.dumps(config.values(), sort_keys=True, default=str)


def why_not(recorded: Mapping[str, Any] | None, config: Config) -> str | None:
    """Why ``recorded`` cannot be launched again for ``config`` (None: it can)."""
    if recorded is None:
        return (
            f"the program never launched {config.label()}: irscope has no grid for it (the grid is the "
            "program's own code); bench the configs it launched"
        )
    grid = recorded.get("grid")
    if not isinstance(grid, list) or not grid or not all(isinstance(g, int) and g > 0 for g in grid):
        return "the recorded launch has no grid"
    arguments = recorded.get("arguments")
    if not isinstance(arguments, dict):
        return "the recorded launch has no arguments"
    for name, value in arguments.items():
        if isinstance(value, dict) and "tensor" in value:
            dtype = str(value.get("tensor")).removeprefix("torch.")
            if dtype not in DTYPES or not _ints(value.get("shape")) or not _ints(value.get("stride")):
                return f"argument {name} was a tensor irscope cannot make again ({value.get('tensor')})"
        elif isinstance(value, dict):
            return f"argument {name} was {str(value.get('repr', value))[:80]}, which cannot be made from a record"
        elif not (value is None or isinstance(value, (bool, int, float, str))):
            return f"argument {name} was recorded as {type(value).__name__}"
    return None


def _ints(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and v >= 0 for v in value)


def replay(
    kernel: Any, config: Config, recorded: Mapping[str, Any] | None, device: str = "cuda", seed: int = 0
) -> Launch:
    """``kernel`` (a TritonKernel) launched as the program launched ``config``, on new data of the same layout."""
    import torch  # a second to import: only once a recorded launch is rerun

    reason = why_not(recorded, config)
    if reason is not None or recorded is None:
        raise ParameterError(f"bench cannot rerun {kernel.name}: {reason or 'no launch was recorded'}")
    generator = torch.Generator(device=device).manual_seed(seed)
    values = {}
    for name, value in recorded["arguments"].items():
        if isinstance(value, dict):
            dtype = getattr(torch, str(value["tensor"]).removeprefix("torch."))
            shape, stride = value["shape"], value["stride"]
            tensor = torch.empty_strided(shape, stride, dtype=dtype, device=device)
            if dtype.is_floating_point and tensor.numel():
                storage = torch.as_strided(tensor, (tensor.untyped_storage().nbytes() // tensor.element_size(),), (1,))
                storage.copy_(torch.randn(storage.shape, device=device, generator=generator).to(dtype))
            else:
                tensor.zero_()
            values[name] = tensor
        else:
            values[name] = value
    constexprs = set(kernel.constexpr_names())
    args = [values[p.name] for p in kernel.fn.params if not p.is_constexpr]
    kwargs = {**{k: v for k, v in config.constexprs.items() if k in constexprs}, **triton_options(config.options)}
    grid = tuple(recorded["grid"])
    fn = kernel.fn

    def first() -> Any:
        with triton_cache_for(kernel.file):
            return fn[grid](*args, **kwargs)

    def run() -> Any:
        return fn[grid](*args, **kwargs)

    return Launch(
        first=first, run=run, outputs={}, expected=None, tolerance=lambda _: (0.0, 0.0), bytes_moved=None, flops=None
    )
