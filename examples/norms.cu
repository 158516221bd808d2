// docs/cuda.md's file of several kernels: two norms in namespaces and a template instantiated twice.
#include <cuda_fp16.h>

namespace v1 {
__global__ void norm(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sqrtf(x[i] * x[i]);
}
}  // namespace v1

namespace v2 {
__global__ void norm(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fabsf(x[i]);
}
}  // namespace v2

template <typename T>
__global__ void scale(T* x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = T(float(x[i]) * s);
}

template __global__ void scale<float>(float*, float, int);
template __global__ void scale<__half>(__half*, float, int);
