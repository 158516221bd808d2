"""docs/check.md's kernel: out = 2 * x, its loads and stores 16 bytes wide (the baseline a change is checked against).

Its arguments' types: -S "*fp32:16, *fp32:16, i32:16, 1024"
"""

import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 2.0, mask=mask)
