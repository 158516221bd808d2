"""Kernels written for irscope's tests (not built-ins), shared by the tests that compile them.

TILE_MM is a tiled fp16 tl.dot matmul whose B column stride is an argument: declared 1 (``MM_UNIT_B``, the
constant the JIT makes of an int equal to 1) it compiles as a contiguous B; declared a plain i32
(``MM_STRIDED_B``) B's loads cannot widen. SCALED_ADD is a small elementwise kernel that the tritonparse tests
trace on this machine and tests/gpu/record_tritonparse_trace.py traces with real launches on a GPU.
ASSERTED_COPY refuses, at compile time, a BLOCK_SIZE that is not a multiple of 64: directly with a
message-less ``tl.static_assert`` and through a helper with a message (``at_least``), the two ways a
kernel states what its configs must be.

ROW_SOFTMAX (a max and a sum per row; at BLOCK 16384 on one warp, 512 elements per thread unrolled),
ROW_LAYERNORM (two sums per row, weights and bias) and TILE_TRANSPOSE (a 2-D tile stored transposed) are
the diff's long and short listings (tests/test_diff_floor.py, tests/perf/bench_diff.py) and, with
TILE_MM and SCALED_ADD, the passes' first divergence checked against raw MLIR dumps (tests/test_passes_raw.py).
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
ROW_SOFTMAX = """\
import triton
import triton.language as tl


@triton.jit
def row_softmax(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    e = tl.exp2(shifted * 1.4426950408889634)
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)
"""
ROW_SOFTMAX_SIGNATURE = "*fp32:16, *fp32:16, i32, i32:16"
ROW_LAYERNORM = """\
import triton
import triton.language as tl


@triton.jit
def row_layernorm(x_ptr, y_ptr, w_ptr, b_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    centred = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, centred * rstd * w + b, mask=mask)
"""
ROW_LAYERNORM_SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32:16, fp32"
TILE_TRANSPOSE = """\
import triton
import triton.language as tl


@triton.jit
def tile_transpose(x_ptr, y_ptr, M, N, stride_x, stride_y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[None, :] * stride_y + rm[:, None], tile, mask=mask)
"""
TILE_TRANSPOSE_SIGNATURE = "*fp16:16, *fp16:16, i32, i32, i32:16, i32:16"
# HELD_ROW keeps a whole row in registers across its sum (BLOCK 4096 on one wave: 64 floats a lane on CDNA,
# 128 on RDNA); waves_per_eu=8 (gfx942: at most 64 VGPRs) or 16 (gfx1100: 96) forces spills to scratch.
HELD_ROW = """\
import triton
import triton.language as tl


@triton.jit
def held_row(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    total = tl.sum(x, axis=0)
    tl.store(y_ptr + offs, x / total)
"""
HELD_ROW_SIGNATURE = "*fp32:16, *fp32:16"

# COL_SUM sums a tile over its rows, spread over the warps: their partial sums meet in LDS (an AMD bank conflict).
COL_SUM = """\
import triton
import triton.language as tl


@triton.jit
def col_sum(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(y_ptr + tl.arange(0, C), tl.sum(x, axis=0))
"""
COL_SUM_SIGNATURE = "*fp32:16, *fp32:16"
