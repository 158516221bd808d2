"""Tiled matrix multiplication with tl.dot (Triton tutorial 03), fp16 in, fp32 accumulate.

On sm_80 the dot lowers to mma.sync, on sm_90 to wgmma; the K loop is software
pipelined through shared memory, so num_stages changes the shared memory a
program needs (and, past the limit, whether it compiles at all).
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul_reference(k):
    return (k.a.float() @ k.b.float()).half()


matmul = KernelSpec(
    matmul_kernel,
    description="tiled fp16 matmul with tl.dot (Triton tutorial 03)",
    sizes=dict(M=4096, N=4096, K=4096),
    tensors=dict(
        a=Tensor("float16", "M, K"),
        b=Tensor("float16", "K, N"),
        c=Tensor("float16", "M, N", output=True),
    ),
    args=lambda k: (k.a, k.b, k.c, k.M, k.N, k.K,
                    k.a.stride(0), k.a.stride(1), k.b.stride(0), k.b.stride(1), k.c.stride(0), k.c.stride(1)),
    grid=lambda k: (triton.cdiv(k.M, k.BLOCK_SIZE_M) * triton.cdiv(k.N, k.BLOCK_SIZE_N),),
    constexprs=dict(
        BLOCK_SIZE_M=Tunable(128, (64, 128)),
        BLOCK_SIZE_N=Tunable(128, (128, 256)),
        BLOCK_SIZE_K=Tunable(64),
        GROUP_SIZE_M=Tunable(8),
    ),
    num_warps=Tunable(8, (4, 8)),
    num_stages=Tunable(3, (2, 3, 4)),
    reference=matmul_reference,
    tolerance=(1e-1, 1e-2),
    flops=lambda k: 2 * k.M * k.N * k.K,
)
