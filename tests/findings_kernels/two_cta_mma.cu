// A pair of CTAs issuing one tcgen05 MMA between them, as CUTLASS's 2-SM kernels do on Blackwell: tensor
// memory allocated for the pair (cta_group::2), the MMA issued by the first CTA of the cluster for both,
// a cluster of 2 declared with __cluster_dims__. The descriptors come from the arguments: only the
// instructions matter here, the kernel is compiled, not run.
__cluster_dims__(2, 1, 1) __global__ void __launch_bounds__(128)
pair_mma(unsigned long long a_desc, unsigned long long b_desc, unsigned idesc, int* out) {
    __shared__ unsigned tmem_base;
    unsigned slot = static_cast<unsigned>(__cvta_generic_to_shared(&tmem_base));
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(slot));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
    }
    __syncthreads();
    unsigned tmem = tmem_base;
    if (threadIdx.x == 0) {
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
            " tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem),
            "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(1));
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 256;" ::"r"(tmem));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<int>(tmem);
}
