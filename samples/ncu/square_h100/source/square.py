"""The CUDA MODE lecture's row-wise square: one program per row.

Extended with a loop over column blocks so that a BLOCK_SIZE smaller than a row
is still correct: every power of two from 128 to 8192 is a valid variant. The
default 4096 x 781 input is the lecture's; try ``-c n_cols=1024`` to see what
16-byte-aligned rows do to the loads.
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable, pow2


@triton.jit
def square_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    for col_start in range(0, n_cols, BLOCK_SIZE):
        col_offsets = col_start + tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        row = tl.load(input_ptrs, mask=col_offsets < n_cols, other=-float('inf'))
        square_output = row * row
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, square_output, mask=col_offsets < n_cols)


square = KernelSpec(
    square_kernel,
    description="row-wise square, one program per row (CUDA MODE lecture 1)",
    sizes=dict(n_rows=4096, n_cols=781),
    tensors=dict(
        x=Tensor("float32", "n_rows, n_cols"),
        y=Tensor("float32", "n_rows, n_cols", output=True),
    ),
    args=lambda k: (k.y, k.x, k.x.stride(0), k.y.stride(0), k.n_cols),
    grid=lambda k: (k.n_rows,),
    constexprs=dict(BLOCK_SIZE=Tunable(1024, pow2(128, 8192))),
    num_warps=Tunable(4, (1, 4, 8)),
    reference=lambda k: k.x * k.x,
    flops=lambda k: k.n_rows * k.n_cols,
)
