"""GELU with the tanh approximation, elementwise.

The tanh comes from libdevice, so the PTX shows how a math library call lowers.
"""

import triton
import triton.language as tl
from triton.language.extra import libdevice

from irscope.spec import KernelSpec, Tensor, Tunable, pow2


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    out = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(out_ptr + offsets, out, mask=mask)


def gelu_reference(k):
    import torch.nn.functional as F

    return F.gelu(k.x, approximate="tanh")


gelu = KernelSpec(
    gelu_kernel,
    description="tanh-approximation GELU, elementwise",
    sizes=dict(n=1 << 24),
    tensors=dict(x=Tensor("float32", "n"), out=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.out, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK_SIZE),),
    constexprs=dict(BLOCK_SIZE=Tunable(1024, pow2(256, 4096))),
    num_warps=Tunable(4, (2, 4, 8)),
    reference=gelu_reference,
    tolerance=(1e-5, 1e-4),
    flops=lambda k: 10 * k.n,
)
