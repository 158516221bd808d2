"""Compile two kernels with Triton's own dump settings on, as a program of yours would leave them.

    python examples/triton_folders.py OUT

writes, under OUT: ``cache/`` (Triton's cache, as ``TRITON_CACHE_DIR`` puts it; ``~/.triton/cache`` by
default), ``dump/`` (``TRITON_KERNEL_DUMP=1`` with ``TRITON_DUMP_DIR``) and ``mlir.log`` (the program's
stderr with ``MLIR_ENABLE_DUMP=1``: the IR before every pass). No GPU is needed: the kernels are compiled for
an H100 (sm_90) with ``triton.compile``, as the JIT compiles them at a launch. docs/inputs.md opens each.
"""

import os
import subprocess
import sys
from pathlib import Path

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def compile_all() -> None:
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    target = GPUTarget("cuda", 90, 32)
    add = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    for block, warps in ((256, 4), (1024, 8)):
        triton.compile(ASTSource(add_kernel, add, {"BLOCK": block}), target=target, options={"num_warps": warps})
    scale = {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "factor": "fp32", "BLOCK": "constexpr"}
    for block in (128, 512):  # the same options twice: only Triton's hash tells the two compiles apart
        triton.compile(ASTSource(scale_kernel, scale, {"BLOCK": block}), target=target, options={"num_warps": 4})


def main(out: Path) -> None:
    """Run this file again with Triton's settings on (it reads them from the environment), stderr to mlir.log."""
    out.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "TRITON_CACHE_DIR": str(out / "cache"),
        "TRITON_KERNEL_DUMP": "1",
        "TRITON_DUMP_DIR": str(out / "dump"),
        "MLIR_ENABLE_DUMP": "1",
        "TRITON_DEFAULT_FP_FUSION": "1",  # Triton 3.9 warns on stderr where it is unset
    }
    with open(out / "mlir.log", "wb") as stderr:
        subprocess.run([sys.executable, __file__, "--compile"], env=env, stderr=stderr, check=True)
    print(f"wrote {out}/cache, {out}/dump and {out}/mlir.log")


if __name__ == "__main__":
    if sys.argv[1:] == ["--compile"]:
        compile_all()
    else:
        main(Path(sys.argv[1] if len(sys.argv) > 1 else "triton-out"))
