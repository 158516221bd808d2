"""docs/sweep.md's scaled add, out = x + alpha * y, swept for an AMD arch.

Its arguments' types, as the page sets them: SIG="*fp32:16, *fp32:16, *fp32:16, fp32, i32:16"
"""

import triton
import triton.language as tl


@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + alpha * y, mask=mask)
