"""Example tensors for a kernel, built from its spec (this module imports torch).

The same builder serves two purposes: on any machine it gives the JIT's
specialization its real arguments (only dtype, alignment and integer values
matter, so tensors are left uninitialised), and on a GPU it gives the kernel
real data to be checked and timed.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ...spec import Tensor
from ...types import Config

if TYPE_CHECKING:
    from .kernel import TritonKernel


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


def example_namespace(ref: "TritonKernel", config: Config, device: str = "cpu", fill: bool = False,
                      seed: int = 0) -> SimpleNamespace:
    """The namespace ``k`` the spec's callables see: sizes, config and tensors."""
    assert ref.spec is not None, "only kernels with a KernelSpec have example inputs"
    generator = None
    if fill:
        import torch

        generator = torch.Generator(device=device).manual_seed(seed)
    sizes = dict(config.sizes)
    tensors = {name: make_tensor(t, sizes, device, fill, generator) for name, t in ref.spec.tensors.items()}
    return ref.spec.namespace(config.values(), tensors)


def launch_arguments(ref: "TritonKernel", config: Config, ns: SimpleNamespace) -> tuple[tuple, dict[str, Any]]:
    """``(args, kwargs)`` as a user would write ``kernel[grid](*args, **kwargs)``."""
    assert ref.spec is not None
    args = tuple(ref.spec.args(ns))
    kwargs = {**config.constexprs, **config.options}
    return args, kwargs
