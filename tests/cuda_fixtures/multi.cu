// Several kernels in one file, written for irscope's tests (issue 30): each kernel's facts must be its own.
#include <cuda_fp16.h>
#include "helpers.cuh"

namespace v1 {
// One value per thread, scaled by a whole-row sum kept in shared memory.
__global__ void norm(const float* x, float* y, int n) {
    __shared__ float partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (i < n) y[i] = x[i] / partial[0];
}
}  // namespace v1

namespace v2 {
// The same norm with a warp shuffle instead of shared memory (one warp per row).
__global__ void norm(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float total = warp_allreduce(v);
    if (i < n) y[i] = v / total;
}
}  // namespace v2

// A warp-shuffle reduction beside a shared-memory one: neither may be credited with the other's code.
__global__ void shuffle_sum(const float* x, float* out) {
    float v = x[blockIdx.x * 32 + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void shared_sum(const float4* x, float* out) {
    __shared__ float tile[128];
    float4 q = x[blockIdx.x * 128 + threadIdx.x];
    tile[threadIdx.x] = q.x + q.y + q.z + q.w;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

// A template kernel instantiated for float and __half.
template <typename T>
__global__ void scale(const T* x, T* y, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = static_cast<T>(static_cast<float>(x[i]) * factor);
}

template __global__ void scale<float>(const float*, float*, float, int);
template __global__ void scale<__half>(const __half*, __half*, float, int);
