"""Kernels written for irscope's tests (not built-ins), shared by the tests that compile them.

TILE_MM is a tiled fp16 tl.dot matmul whose B column stride is an argument: declared 1 (``MM_UNIT_B``, the
constant the JIT makes of an int equal to 1) it compiles as a contiguous B; declared a plain i32
(``MM_STRIDED_B``) B's loads cannot widen. SCALED_ADD is a small elementwise kernel that the tritonparse tests
trace on this machine and tests/gpu/record_tritonparse_trace.py traces with real launches on a GPU.
ASSERTED_COPY refuses, at compile time, a BLOCK_SIZE that is not a multiple of 64: directly with a
message-less ``tl.static_assert`` and through a helper with a message (``at_least``), the two ways a
kernel states what its configs must be.
"""

from __future__ import annotations

import textwrap

TILE_MM = textwrap.dedent("""
    import triton
    import triton.language as tl


    @triton.jit
    def tile_mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_bn, stride_cm,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * stride_am + rk[None, :]
        b = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            a += BK
            b += BK * stride_bk
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))
""")
MM_UNIT_B = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16"
MM_STRIDED_B = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32, i32:16"
SCALED_ADD = """\
import triton
import triton.language as tl


@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)
"""
ASSERTED_COPY = """\
import triton
import triton.language as tl


@triton.jit
def at_least(B: tl.constexpr, LOWEST: tl.constexpr):
    tl.static_assert(B >= LOWEST, "the block is too small for one warp's loads")


@triton.jit
def asserted_copy(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr, FLOOR: tl.constexpr):
    tl.static_assert(BLOCK_SIZE % 64 == 0)
    at_least(BLOCK_SIZE, FLOOR)
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
"""
ASSERTED_COPY_SIGNATURE = "*fp32:16, *fp32:16, i32"
