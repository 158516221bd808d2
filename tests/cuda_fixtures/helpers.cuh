// A header helper written for irscope's tests: a warp sum two inline levels deep.
#pragma once

__device__ __forceinline__ float shuffle_step(float v, int offset) {
    return v + __shfl_xor_sync(0xffffffffu, v, offset);
}

__device__ __forceinline__ float warp_allreduce(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = shuffle_step(v, offset);
    return v;
}
