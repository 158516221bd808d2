__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

// Shared memory and a barrier, and a shuffle whose result goes to global memory only: a transpose
// through a shared tile beside a warp sum that is added atomically. Nothing crosses warps by shuffle.
__global__ void transpose_and_sum(const float* x, float* y, float* total, int n) {
    __shared__ float tile[32][33];
    int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    int bx = blockIdx.x * 32, by = blockIdx.y * 32;
    float v = x[(by + ty) * n + bx + tx];
    tile[ty][tx] = v;
    __syncthreads();
    y[(bx + ty) * n + by + tx] = tile[tx][ty];
    v = warp_sum(v);
    if (tx == 0) atomicAdd(total, v);
}
