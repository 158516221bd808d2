"""Gluon kernels written for irscope's tests, in Gluon's idioms: the author passes every layout in.

GLUON_ADD is an elementwise add over a 1-D ``BlockedLayout``; GLUON_ROW_SUM a row reduction over a 2-D
``BlockedLayout`` whose row offsets and sums live in a ``SliceLayout`` of it (both given as constexprs);
GLUON_STAGED_COPY a copy through shared memory in a shared layout given as a constexpr (a
``SwizzledSharedLayout`` or an ``NVMMASharedLayout``); GLUON_MATMUL a Hopper matmul whose A and B tiles
are staged in ``NVMMASharedLayout``s for ``warpgroup_mma``; GLUON_TILE_STORE a 32x32 float tile through
shared memory, written for the bank analysis (its register and shared layouts both constexprs). The add
is examples/gluon_add.py itself (GLUON_KERNELS starts with that file's text). GLUON_SPEC is the add with a KernelSpec whose
layout constexpr is a Tunable of two layouts (its sweep).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

# The add is the shipped example's own file (examples/gluon_add.py, docs/gluon.md's kernel), the other kernels follow it.
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gluon_add.py"
GLUON_KERNELS = EXAMPLE.read_text() + textwrap.dedent("""
    from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, warpgroup_mma


    @gluon.jit
    def gluon_row_sum(x_ptr, out_ptr, stride, ROWS: gl.constexpr, COLS: gl.constexpr,
                      layout: gl.constexpr, rows_layout: gl.constexpr):
        pid = gl.program_id(0)
        rows = pid * ROWS + gl.arange(0, ROWS, layout=rows_layout)
        cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, layout))
        x = gl.load(x_ptr + rows[:, None] * stride + cols[None, :])
        total = gl.sum(x, axis=1)
        gl.store(out_ptr + rows, total)


    @gluon.jit
    def gluon_staged_copy(x_ptr, out_ptr, ROWS: gl.constexpr, COLS: gl.constexpr,
                          layout: gl.constexpr, shared: gl.constexpr):
        rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
        cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, layout))
        offs = rows[:, None] * COLS + cols[None, :]
        x = gl.load(x_ptr + offs)
        staged = gl.allocate_shared_memory(gl.float16, [ROWS, COLS], shared, value=x)
        y = staged.load(layout)
        gl.store(out_ptr + offs, y)


    @gluon.jit
    def gluon_matmul(a_ptr, b_ptr, c_ptr, K, M: gl.constexpr, N: gl.constexpr, BK: gl.constexpr,
                     layout: gl.constexpr, a_shared: gl.constexpr, b_shared: gl.constexpr, acc_layout: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
        ks = gl.arange(0, BK, layout=gl.SliceLayout(0, layout))
        k_rows = gl.arange(0, BK, layout=gl.SliceLayout(1, layout))
        a_smem = gl.allocate_shared_memory(gl.float16, [M, BK], a_shared)
        b_smem = gl.allocate_shared_memory(gl.float16, [BK, N], b_shared)
        acc = gl.zeros([M, N], gl.float32, layout=acc_layout)
        for k in range(0, K, BK):
            a_smem.store(gl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :]))
            b_smem.store(gl.load(b_ptr + (k + k_rows)[:, None] * N + cols[None, :]))
            fence_async_shared()
            acc = warpgroup_mma(a_smem, b_smem, acc)
        gl.store(c_ptr + rows[:, None] * N + cols[None, :], gl.convert_layout(acc, layout))


    @gluon.jit
    def gluon_tile_store(x_ptr, out_ptr, layout: gl.constexpr, shared: gl.constexpr):
        rows = gl.arange(0, 32, layout=gl.SliceLayout(1, layout))
        cols = gl.arange(0, 32, layout=gl.SliceLayout(0, layout))
        x = gl.load(x_ptr + rows[:, None] * 32 + cols[None, :])
        tile = gl.allocate_shared_memory(gl.float32, [32, 32], shared)
        tile.store(x)
        gl.store(out_ptr + rows[:, None] * 32 + cols[None, :], tile.load(layout))
""")

ADD_SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32"
ROW_SUM_SIGNATURE = "*fp32:16, *fp32:16, i32:16"
COPY_SIGNATURE = "*fp16:16, *fp16:16"

BLOCKED_1D = "BlockedLayout([4], [32], [4], [0])"
BLOCKED_1D_WIDE = "BlockedLayout([8], [32], [4], [0])"
BLOCKED_2D = "BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])"
ROWS_OF_2D = f"SliceLayout(1, {BLOCKED_2D})"
SWIZZLED = "SwizzledSharedLayout(8, 1, 8, [1, 0])"
NVMMA = "NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)"
# The matmul: A and B staged in NVMMA shared layouts, Hopper's warpgroup MMA into an NVMMADistributedLayout (sm_90).
MATMUL_SIGNATURE = "*fp16:16, *fp16:16, *fp32:16, i32:16"
MATMUL = {
    "M": 64,
    "N": 64,
    "BK": 64,
    "layout": "BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])",
    "a_shared": NVMMA,
    "b_shared": NVMMA,
    "acc_layout": "NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])",
}
# The 32x32 float tile, stored to shared memory and read back: one thread per row (each writes down a column of
# banks) into an unswizzled tile is 32-way conflicted; the same tile swizzled (or read by rows) is not.
TILE_SIGNATURE = "*fp32:16, *fp32:16"
BY_COLUMN = "BlockedLayout([1, 32], [32, 1], [1, 1], [1, 0])"
BY_ROW = "BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])"
PLAIN_TILE = "SwizzledSharedLayout(1, 1, 1, [1, 0])"
SWIZZLED_TILE = "SwizzledSharedLayout(1, 1, 32, [1, 0])"

GLUON_SPEC = textwrap.dedent("""
    import triton
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    from irscope.spec import KernelSpec, Tensor, Tunable


    @gluon.jit
    def spec_add(x_ptr, y_ptr, out_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr):
        pid = gl.program_id(0)
        offs = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
        mask = offs < n
        gl.store(out_ptr + offs, gl.load(x_ptr + offs, mask=mask) + gl.load(y_ptr + offs, mask=mask), mask=mask)


    add = KernelSpec(
        spec_add,
        sizes=dict(n=1 << 20),
        tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n"), out=Tensor("float32", "n", output=True)),
        args=lambda k: (k.x, k.y, k.out, k.n),
        grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
        constexprs=dict(
            BLOCK=Tunable(1024),
            layout=Tunable(gl.BlockedLayout([4], [32], [4], [0]), (
                gl.BlockedLayout([4], [32], [4], [0]), gl.BlockedLayout([8], [32], [4], [0]))),
        ),
        reference=lambda k: k.x + k.y,
    )
""")
