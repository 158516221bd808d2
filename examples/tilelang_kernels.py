"""TileLang kernels in its own idioms, for docs/tilelang.md: an elementwise add (T.Parallel), a row maximum
(T.reduce_max over a fragment) and a tiled matmul (T.Pipelined over shared tiles, T.gemm). Each is a
@tilelang.jit factory: its parameters are irscope's config axes (-c block_M=128, -s num_stages=2,3)."""

import tilelang
import tilelang.language as T


@tilelang.jit
def add(N=4096, block=256, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]

    return main


@tilelang.jit
def row_max(M=1024, N=1024, block_M=8, threads=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            tile = T.alloc_fragment((block_M, N), "float32")
            best = T.alloc_fragment((block_M,), "float32")
            T.copy(X[bx * block_M, 0], tile)
            T.reduce_max(tile, best, dim=1)
            T.copy(best, Y[bx * block_M])

    return main


@tilelang.jit
def matmul(M=256, N=256, K=256, block_M=64, block_N=64, block_K=32, num_stages=2, threads=128):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
