"""Example tensors from a spec's declarations, for any frontend (this module imports torch)."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ..spec import Tensor
from ..types import Config


def make_tensor(decl: Tensor, sizes: dict[str, int], device: str, fill: bool, generator: Any = None) -> Any:
    """Allocate ``decl``; an ``offset`` starts it that many elements into a larger buffer."""
    import torch

    dtype = getattr(torch, decl.dtype)
    dims = decl.dims(sizes)
    offset = decl.offset_in(sizes)
    numel = math.prod(dims)
    if not fill or decl.output:
        base = torch.empty(numel + offset, dtype=dtype, device=device)
    elif decl.init in ("randn", "rand"):
        make = torch.randn if decl.init == "randn" else torch.rand
        work_dtype = dtype if dtype.is_floating_point else torch.float32
        base = make(numel + offset, dtype=work_dtype, device=device, generator=generator).to(dtype)
    elif decl.init == "zeros":
        base = torch.zeros(numel + offset, dtype=dtype, device=device)
    elif decl.init == "ones":
        base = torch.ones(numel + offset, dtype=dtype, device=device)
    elif decl.init == "arange":
        base = torch.arange(numel + offset, device=device).to(dtype)
    else:
        raise ValueError(f"unknown tensor init {decl.init!r}")
    return base[offset:].view(dims)


def example_inputs(spec: Any, config: Config, device: str, seed: int = 0) -> tuple[SimpleNamespace, Any]:
    """The namespace ``k`` a spec's callables see, its tensors filled from ``seed``, and the reference's outputs.

    The reference (None where the spec gives none) comes back as a tuple, one per output.
    """
    import torch

    generator = torch.Generator(device=device).manual_seed(seed)
    sizes = dict(config.sizes)
    tensors = {name: make_tensor(t, sizes, device, True, generator) for name, t in spec.tensors.items()}
    ns = spec.namespace(config.values(), tensors)
    expected = spec.reference(ns) if spec.reference is not None else None
    if expected is not None and not isinstance(expected, (tuple, list)):
        expected = (expected,)
    return ns, expected
