"""Gluon kernels written for irscope's tests, in Gluon's idioms: the author passes every layout in.

GLUON_ADD is an elementwise add over a 1-D ``BlockedLayout``; GLUON_ROW_SUM a row reduction over a 2-D
``BlockedLayout`` whose row offsets and sums live in a ``SliceLayout`` of it (both given as constexprs);
GLUON_STAGED_COPY a copy through shared memory in a shared layout given as a constexpr (a
``SwizzledSharedLayout`` or an ``NVMMASharedLayout``). GLUON_SPEC is the add with a KernelSpec whose
layout constexpr is a Tunable of two layouts (its sweep).
"""

from __future__ import annotations

import textwrap

GLUON_KERNELS = textwrap.dedent("""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl


    @gluon.jit
    def gluon_add(x_ptr, y_ptr, out_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr):
        pid = gl.program_id(0)
        offs = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
        mask = offs < n
        x = gl.load(x_ptr + offs, mask=mask)
        y = gl.load(y_ptr + offs, mask=mask)
        gl.store(out_ptr + offs, x + y, mask=mask)


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
