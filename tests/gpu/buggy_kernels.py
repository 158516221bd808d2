"""Kernels that go wrong on purpose, for the GPU tests of irscope bench.

BUG=0 is a correct copy; BUG=1 writes the wrong values; BUG=2 reads far outside
its buffer (an illegal address); BUG=3 spins forever.
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


@triton.jit
def buggy_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BUG: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if BUG == 2:
        x = tl.load(x_ptr + offs + (1 << 40), mask=mask)
    else:
        x = tl.load(x_ptr + offs, mask=mask)
    if BUG == 1:
        x = x + 1.0
    if BUG == 3:
        i = tl.load(x_ptr) * 0.0
        while i >= 0.0:
            i = i + 1.0
        x = x + i
    tl.store(out_ptr + offs, x, mask=mask)


buggy = KernelSpec(
    buggy_copy_kernel,
    sizes=dict(n=1 << 20),
    tensors=dict(x=Tensor("float32", "n"), out=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.out, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(1024), BUG=Tunable(0, (0, 1, 2, 0))),
    reference=lambda k: k.x.clone(),
)
