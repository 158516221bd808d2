"""One program, three languages: a Triton kernel, a CuTe DSL kernel and two TileLang kernels it compiles.

`irscope run -o runs/three -- python examples/run_languages.py` keeps each as a session of its own language
(docs/run.md); runs without a GPU (Triton's launch compiles on irscope's stand-in card, the CuTe DSL and
TileLang compile ahead of time for sm_90a). Given a folder, it keeps there the PTX its own compiles made
(tests/test_run_languages.py compares the sessions' with it); the CuTe DSL keeps its own with CUTE_DSL_KEEP.
"""

import os
import sys

import cutlass
import cutlass.cute as cute
import tilelang
import tilelang.language as T
import torch
import triton
import triton.language as tl
from cutlass.cute.runtime import make_fake_compact_tensor

KEPT = sys.argv[1] if len(sys.argv) > 1 else None  # where to keep what its own compiles made
DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_one_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


@cute.kernel
def scale_kernel(gA: cute.Tensor, gC: cute.Tensor, factor: cutlass.Float32, tile: cutlass.Constexpr):
    tx, _, _ = cute.arch.thread_idx()
    bx, _, _ = cute.arch.block_idx()
    i = bx * tile + tx
    m, n = gA.shape
    gC[i // n, i % n] = gA[i // n, i % n] * factor  # the CuTe DSL multiply


@cute.jit
def scale(mA: cute.Tensor, mC: cute.Tensor, factor: cutlass.Float32, tile: cutlass.Constexpr = 128):
    m, n = mA.shape
    scale_kernel(mA, mC, factor, tile).launch(grid=((m * n) // tile, 1, 1), block=(tile, 1, 1))


@tilelang.jit(target={"kind": "cuda", "arch": "sm_90a"}, pass_configs={"tl.emit_line_directives": True})
def double(N=1024, block=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] + A[bx * block + i]  # the TileLang add

    return main


@T.prim_func
def negate(A: T.Tensor((512,), "float32"), B: T.Tensor((512,), "float32")):
    with T.Kernel(4, threads=128) as bx:
        for i in T.Parallel(128):
            B[bx * 128 + i] = -A[bx * 128 + i]  # the TileLang negation


x = torch.rand(4096, device=DEVICE)
y = torch.empty_like(x)
add_one_kernel[(4,)](x, y, 4096, BLOCK=1024)
compiled = add_one_kernel.warmup(x, y, 4096, BLOCK=1024, grid=(4,))
if KEPT:
    with open(os.path.join(KEPT, "triton.ptx"), "w") as f:
        f.write(compiled.asm["ptx"])

a = make_fake_compact_tensor(cutlass.Float32, (128, 256), stride_order=(1, 0), assumed_align=16)
cute.compile(scale, a, a, cutlass.Float32(2.0), tile=64, options="--gpu-arch sm_90a")

kernel = double(N=2048, block=256)
if KEPT:
    kernel.export_ptx(os.path.join(KEPT, "double.ptx"))
tilelang.compile(negate, target={"kind": "cuda", "arch": "sm_90a"})
print("program finished")
