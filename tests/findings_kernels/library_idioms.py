"""Kernels written for tests/test_findings_library.py, each in the idiom of a library kernel whose findings
were wrong (issue 44): Helion's generated matmul (module-level constexpr block sizes, ``None`` masks, a
loop of constant trip count), a persistent grouped GEMM as Triton's tutorial 08 writes it (sizes, strides
and pointers read one value per program, no mask anywhere), a row normalisation and its backward passes as
tutorial 05 writes them (one scalar per row stored, a column sum whose tile spans two lanes of a warp
along the reduced axis, partial sums guarded by a compare-and-swap lock), and FLA's chunked cumsum (a
stride-H gather along time, a scan, a block smaller than the warps that hold it)."""

import triton
import triton.language as tl

_BLOCK_M = tl.constexpr(64)
_BLOCK_N = tl.constexpr(64)
_BLOCK_K = tl.constexpr(32)


@triton.jit
def generated_mm(x, y, out):
    pid_m = tl.program_id(0) % tl.cdiv(512, _BLOCK_M)
    pid_n = tl.program_id(0) // tl.cdiv(512, _BLOCK_M)
    rows = (pid_m * _BLOCK_M + tl.arange(0, _BLOCK_M)).to(tl.int32)
    cols = (pid_n * _BLOCK_N + tl.arange(0, _BLOCK_N)).to(tl.int32)
    acc = tl.full([_BLOCK_M, _BLOCK_N], 0.0, tl.float32)
    for k0 in tl.range(0, 512, _BLOCK_K):
        ks = k0 + tl.arange(0, _BLOCK_K).to(tl.int32)
        a = tl.load(x + (rows[:, None] * 512 + ks[None, :] * 1), None)
        b = tl.load(y + (ks[:, None] * 512 + cols[None, :] * 1), None)
        acc = tl.dot(a, b, acc=acc, out_dtype=tl.float32)
    tl.store(out + (rows[:, None] * 512 + cols[None, :] * 1), acc.to(tl.float16), None)


@triton.jit
def grouped_mm(
    a_table,
    b_table,
    c_table,
    sizes,
    strides,
    count,
    PROGRAMS: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    HINTS: tl.constexpr,
):
    tile = tl.program_id(0)
    start = 0
    for g in range(count):
        m = tl.load(sizes + g * 3)
        n = tl.load(sizes + g * 3 + 1)
        depth = tl.load(sizes + g * 3 + 2)
        tiles_n = tl.cdiv(n, BN)
        tiles = tl.cdiv(m, BM) * tiles_n
        while tile >= start and tile < start + tiles:
            lda = tl.load(strides + g * 3)
            ldb = tl.load(strides + g * 3 + 1)
            ldc = tl.load(strides + g * 3 + 2)
            a_base = tl.load(a_table + g).to(tl.pointer_type(tl.float16))
            b_base = tl.load(b_table + g).to(tl.pointer_type(tl.float16))
            c_base = tl.load(c_table + g).to(tl.pointer_type(tl.float16))
            local = tile - start
            rm = (local // tiles_n) * BM + tl.arange(0, BM)
            rn = (local % tiles_n) * BN + tl.arange(0, BN)
            rk = tl.arange(0, BK)
            a_ptrs = a_base + rm[:, None] * lda + rk[None, :]
            b_ptrs = b_base + rk[:, None] * ldb + rn[None, :]
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for _ in range(0, tl.cdiv(depth, BK)):
                if HINTS:
                    tl.multiple_of(a_ptrs, [16, 16])
                    tl.multiple_of(b_ptrs, [16, 16])
                acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
                a_ptrs += BK
                b_ptrs += BK * ldb
            tl.store(c_base + ldc * rm[:, None] + rn[None, :], acc.to(tl.float16))
            tile += PROGRAMS
        start = start + tiles


@triton.jit
def row_norm(X, Y, W, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < N
    x = tl.load(X + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    centred = tl.where(inside, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(centred * centred, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=inside)
    tl.store(Y + row * stride + cols, centred * rstd * w, mask=inside)


@triton.jit
def column_sums(DW, DB, SUM_W, SUM_B, M, N, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    dw = tl.zeros((BM, BN), dtype=tl.float32)
    db = tl.zeros((BM, BN), dtype=tl.float32)
    for r0 in range(0, M, BM):
        rows = r0 + tl.arange(0, BM)
        inside = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=inside, other=0.0)
        db += tl.load(DB + offs, mask=inside, other=0.0)
    tl.store(SUM_W + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(SUM_B + cols, tl.sum(db, axis=0), mask=cols < N)


@triton.jit
def locked_partials(DX, DY, PARTIAL, Lock, stride, N, GROUPS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < N
    dy = tl.load(DY + row * stride + cols, mask=inside, other=0.0)
    tl.store(DX + row * stride + cols, dy * 2, mask=inside)
    group = row % GROUPS
    lock = Lock + group
    seen = lock + GROUPS
    target = PARTIAL + group * N + cols
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(seen) == 0:
        tl.atomic_xchg(seen, 1)
    else:
        dy += tl.load(target, mask=inside)
    tl.store(target, dy, mask=inside)
    tl.atomic_xchg(lock, 0)


@triton.jit
def atomic_sums(X, TOTAL, HIST, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < N
    x = tl.load(X + offs, mask=inside, other=0.0)
    tl.atomic_add(TOTAL, tl.sum(x, axis=0))
    tl.atomic_max(HIST + (offs % 16), x, mask=inside)


@triton.jit(do_not_specialize=["T"])
def chunk_cumsum(s, o, T, H: tl.constexpr, BT: tl.constexpr, REVERSE: tl.constexpr):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    bos = i_b * T
    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T
    b_s = tl.load(s + bos * H + i_h + o_t * H, mask=m_t, other=0.0).to(tl.float32)
    b_o = tl.cumsum(b_s, axis=0, reverse=REVERSE)
    tl.store(o + bos * H + i_h + o_t * H, b_o.to(o.dtype.element_ty), mask=m_t)


@triton.jit
def scalar_weights(X, W, out, K, TAPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(K):
        x = tl.load(X + offs + k * BLOCK)
        for i in tl.static_range(TAPS):
            acc = acc * tl.load(W + 2 * i) + x * tl.load(W + 2 * i + 1)
    tl.store(out + offs, acc)
