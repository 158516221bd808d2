"""docs/cute.md's Triton twin of examples/cute_kernels.py's row_sum: a program a row, 1,024 columns in one block
of 4 warps (128 threads, 8 floats each: two 16-byte loads), summed with tl.sum."""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


row_sum = KernelSpec(
    row_sum_kernel,
    sizes=dict(n_rows=4096, n_cols=1024),
    tensors=dict(x=Tensor("float32", "n_rows, n_cols"), out=Tensor("float32", "n_rows", output=True)),
    args=lambda k: (k.x, k.out, k.n_cols),
    grid=lambda k: (k.n_rows,),
    constexprs=dict(BLOCK=1024),
    num_warps=4,
    reference=lambda k: k.x.sum(dim=1),
)
