"""Kernels written for the cross-version GPU test (tests/gpu/test_other_triton.py).

``scaled_add`` takes a float scalar, a stride the example inputs give as 1 (the JIT makes
that argument a constant, so it is not a parameter of the cubin) and a count;
``row_softmax`` reduces across a row in shared memory (its launch needs dynamic shared).
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


@triton.jit
def scaled_add(out_ptr, x_ptr, y_ptr, alpha, stride, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    y = tl.load(y_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs * stride, alpha * x + y, mask=mask)


@triton.jit
def row_softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=offs < n_cols)


scaled_add_spec = KernelSpec(
    scaled_add,
    sizes=dict(n=1 << 22),
    tensors=dict(
        x=Tensor("float32", "n"),
        y=Tensor("float32", "n"),
        out=Tensor("float32", "n", output=True),
    ),
    args=lambda k: (k.out, k.x, k.y, 2.5, 1, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(1024, (256, 1024))),
    reference=lambda k: 2.5 * k.x + k.y,
)

row_softmax_spec = KernelSpec(
    row_softmax,
    sizes=dict(n_rows=4096, n_cols=1000),
    tensors=dict(
        x=Tensor("float32", "n_rows, n_cols"),
        out=Tensor("float32", "n_rows, n_cols", output=True),
    ),
    args=lambda k: (k.out, k.x, k.n_cols),
    grid=lambda k: (k.n_rows,),
    constexprs=dict(BLOCK=Tunable(1024, (1024,))),
    num_warps=Tunable(4, (4, 8)),
    reference=lambda k: k.x.softmax(-1),
)
