"""docs/cute.md's kernel: a @cute.jit host function launching an elementwise add, a tile_m x tile_n tile a block.

Needs nvidia-cutlass-dsl (pip install irscope[cute]). Its arguments: -S "float32[128,256], float32[128,256], float32[128,256]"
"""

import cutlass
import cutlass.cute as cute


@cute.kernel
def add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor, tile_m: cutlass.Constexpr, tile_n: cutlass.Constexpr):
    tx, ty, _ = cute.arch.thread_idx()
    bx, by, _ = cute.arch.block_idx()
    row = by * tile_m + ty
    col = bx * tile_n + tx
    gC[row, col] = gA[row, col] + gB[row, col]


@cute.jit
def add(
    mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, tile_m: cutlass.Constexpr = 4, tile_n: cutlass.Constexpr = 64
):
    m, n = mA.shape
    add_kernel(mA, mB, mC, tile_m, tile_n).launch(grid=(n // tile_n, m // tile_m, 1), block=(tile_n, tile_m, 1))
