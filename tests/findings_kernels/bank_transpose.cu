#include <cuda_fp16.h>

// A 32x32 float tile transposed through shared memory, one warp per row of the tile (1024 threads):
// stored along a row, read down a column. With a row pitch of 32 floats every word of a column lies in
// one bank (a 32-way conflict); with 33, each in its own.
template <int PITCH>
__device__ void transpose_tile(const float* in, float* out, int n) {
    __shared__ float tile[32 * PITCH];
    int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    int bx = blockIdx.x * 32, by = blockIdx.y * 32;
    tile[ty * PITCH + tx] = in[(by + ty) * n + bx + tx];
    __syncthreads();
    out[(bx + ty) * n + by + tx] = tile[tx * PITCH + ty];
}

__global__ void __launch_bounds__(1024) transpose_unpadded(const float* in, float* out, int n) {
    transpose_tile<32>(in, out, n);
}

__global__ void __launch_bounds__(1024) transpose_padded(const float* in, float* out, int n) {
    transpose_tile<33>(in, out, n);
}

// Four 8x8 half matrices read with ldmatrix.x4 from a 32x64 half tile: thread t supplies row (t % 8) of
// matrix t / 8, whose columns start at 8 * (t / 8) halves. At a row pitch of 64 halves (128 bytes) the
// eight rows of a matrix lie in the same four banks; at 72 (144 bytes) each row moves four banks on.
template <int PITCH>
__device__ void load_fragments(const __half* in, float* out) {
    __shared__ __align__(16) __half tile[32 * PITCH];
    int t = threadIdx.x;
    for (int i = t; i < 32 * 64; i += blockDim.x) tile[(i / 64) * PITCH + i % 64] = in[i];
    __syncthreads();
    unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(&tile[(t % 8) * PITCH + 8 * (t / 8)]));
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(address));
    out[t] = __uint_as_float(r0 ^ r1 ^ r2 ^ r3);
}

__global__ void __launch_bounds__(32) fragments_unpadded(const __half* in, float* out) {
    load_fragments<64>(in, out);
}

__global__ void __launch_bounds__(32) fragments_padded(const __half* in, float* out) {
    load_fragments<72>(in, out);
}

// The same four fragments written with stmatrix.x4 (sm_90 and later): thread t gives the address of row (t % 8) of
// matrix t / 8, as ldmatrix takes it, so the banks are the same as the reads above.
template <int PITCH>
__device__ void store_fragments(const float* in, __half* out) {
    __shared__ __align__(16) __half tile[32 * PITCH];
    int t = threadIdx.x;
    unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(&tile[(t % 8) * PITCH + 8 * (t / 8)]));
    unsigned r0 = __float_as_uint(in[t]), r1 = __float_as_uint(in[t + 32]);
    unsigned r2 = __float_as_uint(in[t + 64]), r3 = __float_as_uint(in[t + 96]);
#if __CUDA_ARCH__ >= 900  // the other kernels of this file compile for sm_80 too
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(address), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
#endif
    __syncthreads();
    // read back unrolled (one warp): a loop would carry t's register, which the PTX's lanes do not follow
#pragma unroll
    for (int k = 0; k < 64; ++k) out[32 * k + t] = tile[(k / 2) * PITCH + (k % 2) * 32 + t];
}

__global__ void __launch_bounds__(32) stored_fragments_unpadded(const float* in, __half* out) {
    store_fragments<64>(in, out);
}

__global__ void __launch_bounds__(32) stored_fragments_padded(const float* in, __half* out) {
    store_fragments<72>(in, out);
}
