// The tanh approximation of GeLU in CUDA C++, one thread per element (Triton's twin is gelu.py).
// Written for irscope after the CUDA MODE lecture's GeLU comparison; --use_fast_math changes tanhf.

__global__ void gelu_tanh_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}
