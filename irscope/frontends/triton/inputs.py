"""Example tensors for a kernel, built from its spec (this module imports torch).

The same builder serves two purposes: on any machine it gives the JIT's
specialization its real arguments (only dtype, alignment and integer values
matter, so tensors are left uninitialised), and on a GPU it gives the kernel
real data to be checked and timed.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ...types import Config
from ..examples import make_tensor
from .options import triton_options

if TYPE_CHECKING:
    from .kernel import TritonKernel


def example_namespace(
    kernel: TritonKernel, config: Config, device: str = "cpu", fill: bool = False, seed: int = 0
) -> SimpleNamespace:
    """The namespace ``k`` the spec's callables see: sizes, config and tensors."""
    assert kernel.spec is not None, "only kernels with a KernelSpec have example inputs"
    generator = None
    if fill:
        import torch  # a second to import: only where tensors are filled with data

        generator = torch.Generator(device=device).manual_seed(seed)
    sizes = dict(config.sizes)
    tensors = {name: make_tensor(t, sizes, device, fill, generator) for name, t in kernel.spec.tensors.items()}
    return kernel.spec.namespace(config.values(), tensors)


def launch_arguments(kernel: TritonKernel, config: Config, ns: SimpleNamespace) -> tuple[tuple, dict[str, Any]]:
    """``(args, kwargs)`` as a user would write ``kernel[grid](*args, **kwargs)``."""
    assert kernel.spec is not None
    args = tuple(kernel.spec.args(ns))
    kwargs = {**config.constexprs, **triton_options(config.options)}
    return args, kwargs
