"""How irscope runs square_matrix.cu on a GPU: the lecture's 4096x781 matrix and its launch shapes.

The lecture launches 16x16-thread blocks; 32x8 keeps a warp on one row (coalesced
128-byte reads), 256x1 makes each block one row segment.
"""

from irscope.spec import CudaSpec, Tensor, Tunable, cdiv

square_matrix = CudaSpec(
    "square_matrix_kernel",
    source="square_matrix.cu",
    description="matrix square, one thread per element on 2-D blocks (CUDA MODE lecture 1, load_inline)",
    sizes=dict(height=4096, width=781),
    tensors=dict(matrix=Tensor("float32", "height, width"),
                 result=Tensor("float32", "height, width", output=True)),
    args=lambda k: (k.matrix, k.result, k.width, k.height),
    block=Tunable("16x16", ("16x16", "32x8", "256x1")),
    grid=lambda k: (cdiv(k.width, k.block_x), cdiv(k.height, k.block_y)),
    reference=lambda k: k.matrix * k.matrix,
    flops=lambda k: k.height * k.width,
)
