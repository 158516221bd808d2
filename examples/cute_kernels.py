"""docs/cute.md's row sum and tiled matmul in the CuTe DSL's idiom (needs nvidia-cutlass-dsl: pip install irscope[cute]).

row_sum: a block a row, ``threads`` threads each copying ``vector`` floats at a time with a tiled copy, summing
them, then across the warp (shuffles) and across the warps (shared memory).
    -S "float32[4096,1024]:16, float32[4096]"      (:16: the tensor's start is 16-byte aligned, as torch's are)
mm: C = A @ B^T, fp16 in, fp32 accumulate; a block a tile_m x tile_n tile of C, A's and B's tile_k slices copied
to shared memory with cp.async (a tiled copy), `stages` of them in flight (a software pipeline: stages - 1 slices
copied ahead of the one multiplied), multiplied by a 2x2-warp tiled MMA of mma.sync 16x8x16 atoms.
    -S "float16[512,256]:16, float16[512,256]:16, float32[512,512]:16"    (A is MxK, B is NxK, both K-major)
"""

import cutlass
import cutlass.cute as cute
import cutlass.utils


@cute.kernel
def row_sum_kernel(
    gX: cute.Tensor, gY: cute.Tensor, tiled_copy: cute.TiledCopy, threads: cutlass.Constexpr, cols: cutlass.Constexpr
):
    tx, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    gRow = cute.local_tile(gX, (1, cols), (row, 0))
    thr_copy = tiled_copy.get_slice(tx)
    tXgX = thr_copy.partition_S(gRow)
    tXrX = cute.make_fragment_like(tXgX)
    cute.copy(tiled_copy, tXgX, tXrX)
    partial = tXrX.load().reduce(cute.ReductionOp.ADD, cutlass.Float32(0.0), reduction_profile=0)
    partial = cute.arch.warp_reduction_sum(partial)
    smem = cutlass.utils.SmemAllocator()
    sPartial = smem.allocate_tensor(cutlass.Float32, cute.make_layout(threads // 32))
    if tx % 32 == 0:
        sPartial[tx // 32] = partial
    cute.arch.sync_threads()
    if tx == 0:
        total = cutlass.Float32(0.0)
        for w in cutlass.range_constexpr(threads // 32):
            total += sPartial[w]
        gY[row] = total


@cute.jit
def row_sum(mX: cute.Tensor, mY: cute.Tensor, threads: cutlass.Constexpr = 128, vector: cutlass.Constexpr = 4):
    m, n = mX.shape
    bits = mX.element_type.width * vector
    atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), mX.element_type, num_bits_per_copy=bits)
    tiled_copy = cute.make_tiled_copy_tv(atom, cute.make_layout((1, threads)), cute.make_layout((1, vector)))
    row_sum_kernel(mX, mY, tiled_copy, threads, n).launch(grid=(m, 1, 1), block=(threads, 1, 1))


@cute.kernel
def mm_kernel(
    mA: cute.Tensor,
    mB: cute.Tensor,
    mC: cute.Tensor,
    tiled_mma: cute.TiledMma,
    copy_a: cute.TiledCopy,
    copy_b: cute.TiledCopy,
    tile_m: cutlass.Constexpr,
    tile_n: cutlass.Constexpr,
    tile_k: cutlass.Constexpr,
    stages: cutlass.Constexpr,
):
    tx, _, _ = cute.arch.thread_idx()
    bx, by, _ = cute.arch.block_idx()
    gA = cute.local_tile(mA, (tile_m, tile_k), (bx, None))
    gB = cute.local_tile(mB, (tile_n, tile_k), (by, None))
    gC = cute.local_tile(mC, (tile_m, tile_n), (bx, by))
    smem = cutlass.utils.SmemAllocator()
    # one tile_k slice of A and of B a stage: the copies of the next stages - 1 slices fly while one is multiplied
    sA_layout = cute.make_layout((tile_m, tile_k, stages), stride=(tile_k, 1, tile_m * tile_k))
    sB_layout = cute.make_layout((tile_n, tile_k, stages), stride=(tile_k, 1, tile_n * tile_k))
    sA = smem.allocate_tensor(mA.element_type, sA_layout, 16)
    sB = smem.allocate_tensor(mB.element_type, sB_layout, 16)
    thr_a, thr_b = copy_a.get_slice(tx), copy_b.get_slice(tx)
    tAgA, tAsA = thr_a.partition_S(gA), thr_a.partition_D(sA)
    tBgB, tBsB = thr_b.partition_S(gB), thr_b.partition_D(sB)
    thr_mma = tiled_mma.get_slice(tx)
    tCsA, tCsB, tCgC = thr_mma.partition_A(sA), thr_mma.partition_B(sB), thr_mma.partition_C(gC)
    tCrA = tiled_mma.make_fragment_A(tCsA[None, None, None, 0])
    tCrB = tiled_mma.make_fragment_B(tCsB[None, None, None, 0])
    acc = tiled_mma.make_fragment_C(tCgC)
    acc.fill(0.0)
    k_tiles = cute.size(gA, mode=[2])
    for s in cutlass.range_constexpr(stages - 1):
        cute.copy(copy_a, tAgA[None, None, None, s], tAsA[None, None, None, s])
        cute.copy(copy_b, tBgB[None, None, None, s], tBsB[None, None, None, s])
        cute.arch.cp_async_commit_group()
    for k in range(k_tiles):
        ahead = k + stages - 1
        if ahead < k_tiles:
            cute.copy(copy_a, tAgA[None, None, None, ahead], tAsA[None, None, None, ahead % stages])
            cute.copy(copy_b, tBgB[None, None, None, ahead], tBsB[None, None, None, ahead % stages])
        cute.arch.cp_async_commit_group()
        cute.arch.cp_async_wait_group(stages - 1)
        cute.arch.sync_threads()
        cute.autovec_copy(tCsA[None, None, None, k % stages], tCrA)
        cute.autovec_copy(tCsB[None, None, None, k % stages], tCrB)
        cute.gemm(tiled_mma, acc, tCrA, tCrB, acc)
        cute.arch.sync_threads()
    cute.autovec_copy(acc, tCgC)


@cute.jit
def mm(
    mA: cute.Tensor,
    mB: cute.Tensor,
    mC: cute.Tensor,
    tile_m: cutlass.Constexpr = 64,
    tile_n: cutlass.Constexpr = 64,
    tile_k: cutlass.Constexpr = 32,
    stages: cutlass.Constexpr = 2,
):
    m, _ = mA.shape
    n, _ = mB.shape
    atom_mma = cute.nvgpu.warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
    tiled_mma = cute.make_tiled_mma(atom_mma, (2, 2, 1))
    threads = cute.size(tiled_mma)
    # 128-bit cp.async copies: each thread 8 halves of a row, a row's tile_k in tile_k // 8 threads
    atom = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(), mA.element_type, num_bits_per_copy=128)
    threads_layout = cute.make_layout((threads // (tile_k // 8), tile_k // 8), stride=(tile_k // 8, 1))
    copy_a = cute.make_tiled_copy_tv(atom, threads_layout, cute.make_layout((1, 8)))
    copy_b = cute.make_tiled_copy_tv(atom, threads_layout, cute.make_layout((1, 8)))
    mm_kernel(mA, mB, mC, tiled_mma, copy_a, copy_b, tile_m, tile_n, tile_k, stages).launch(
        grid=(m // tile_m, n // tile_n, 1), block=(threads, 1, 1)
    )
