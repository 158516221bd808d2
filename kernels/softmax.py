"""Row-wise fused softmax (Triton tutorial 02): two reductions per row.

One program per row; the whole row must fit in one block, so BLOCK_SIZE is at
least the next power of two above n_cols.
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def softmax_reference(k):
    return k.x.softmax(dim=1)


softmax = KernelSpec(
    softmax_kernel,
    description="row-wise fused softmax (Triton tutorial 02)",
    sizes=dict(n_rows=4096, n_cols=781),
    tensors=dict(
        x=Tensor("float32", "n_rows, n_cols"),
        y=Tensor("float32", "n_rows, n_cols", output=True),
    ),
    args=lambda k: (k.y, k.x, k.x.stride(0), k.y.stride(0), k.n_cols),
    grid=lambda k: (k.n_rows,),
    constexprs=dict(BLOCK_SIZE=Tunable(1024, (1024, 2048, 4096))),
    num_warps=Tunable(4, (1, 2, 4, 8, 16)),
    reference=softmax_reference,
    tolerance=(1e-6, 1e-4),
    flops=lambda k: 5 * k.n_rows * k.n_cols,
)
