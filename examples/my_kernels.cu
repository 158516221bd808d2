// docs/cuda.md's row sum: one thread per row, TILE elements a step (-c TILE=8 overrides the default).
#ifndef TILE
#define TILE 4
#endif

__global__ void row_sum(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c + TILE <= cols; c += TILE) {
#pragma unroll
        for (int t = 0; t < TILE; ++t) acc += x[row * cols + c + t];
    }
    out[row] = acc;
}
