// The lecture's CUDA C++ square: one thread per element of a matrix, on a 2-D grid of 16x16-thread blocks.
// (Written for irscope after the CUDA MODE lecture's load_inline example; Triton's twin is square.py.)

__global__ void square_matrix_kernel(const float* matrix, float* result, int width, int height) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < height && col < width) {
        int idx = row * width + col;
        result[idx] = matrix[idx] * matrix[idx];
    }
}
