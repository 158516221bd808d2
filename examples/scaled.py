"""docs/repro.md's kernel: a helper Triton does not inline (its mangled name must come out the same in a repro).

Its arguments' types: -S "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, 256"
"""

import triton
import triton.language as tl


@triton.jit(noinline=True)
def halve(x):
    return x * 0.5


@triton.jit
def scaled_sum(x_ptr, y_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs, x * halve(stride) + y, mask=mask)
