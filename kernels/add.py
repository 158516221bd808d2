"""The Triton tutorial's vector add.

``-c offset=1`` starts every tensor one element past a 16-byte boundary: the
compiler can no longer prove alignment and the vector loads turn scalar.
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable, pow2


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


add = KernelSpec(
    add_kernel,
    description="vector add (Triton tutorial 01)",
    sizes=dict(n=1 << 24, offset=0),
    tensors=dict(
        x=Tensor("float32", "n", offset="offset"),
        y=Tensor("float32", "n", offset="offset"),
        out=Tensor("float32", "n", output=True, offset="offset"),
    ),
    args=lambda k: (k.x, k.y, k.out, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK_SIZE),),
    constexprs=dict(BLOCK_SIZE=Tunable(1024, pow2(128, 4096))),
    num_warps=Tunable(4, (1, 2, 4, 8)),
    reference=lambda k: k.x + k.y,
    flops=lambda k: k.n,
)
