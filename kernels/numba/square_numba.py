"""The lecture's matrix square in Numba: one thread per element on a 2-D grid (twins: square.py, square_matrix.cu)."""

from numba import cuda

from irscope.spec import CudaSpec, Tensor, Tunable, cdiv


@cuda.jit("void(float32[:, ::1], float32[:, ::1])")
def square_numba_kernel(matrix, result):
    col, row = cuda.grid(2)  # (x, y): x runs along a row, so a warp reads consecutive floats, as in the .cu
    if row < matrix.shape[0] and col < matrix.shape[1]:
        result[row, col] = matrix[row, col] * matrix[row, col]


square_numba = CudaSpec(
    square_numba_kernel,
    description="matrix square in Numba, one thread per element on 2-D blocks",
    sizes=dict(height=4096, width=781),
    tensors=dict(matrix=Tensor("float32", "height, width"),
                 result=Tensor("float32", "height, width", output=True)),
    args=lambda k: (k.matrix, k.result),
    block=Tunable("16x16", ("16x16", "32x8", "256x1")),
    grid=lambda k: (cdiv(k.width, k.block_x), cdiv(k.height, k.block_y)),
    reference=lambda k: k.matrix * k.matrix,
    flops=lambda k: k.height * k.width,
)
