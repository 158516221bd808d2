"""What Triton itself writes as a program compiles, for the tests that open it (tests/test_triton_folders.py,
tests/hostile/test_triton_folder_input.py): its cache (TRITON_CACHE_DIR), TRITON_KERNEL_DUMP's folder
(TRITON_DUMP_DIR) and MLIR_ENABLE_DUMP's pass dumps (the program's stderr, captured to a file).

Real compiles, through ``triton.compile`` for sm_90 (no GPU needed), in a program of its own so the
environment variables are Triton's to read, under whichever Triton the tests run with (PYTHONPATH).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

PROGRAM = textwrap.dedent("""
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource


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


    target = GPUTarget("cuda", 90, 32)
    add = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    for block, warps in ((256, 4), (1024, 8)):
        triton.compile(ASTSource(add_kernel, add, {"BLOCK": block}), target=target, options={"num_warps": warps})
    scale = {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "factor": "fp32", "BLOCK": "constexpr"}
    for block in (128, 512):  # the same options twice: only Triton's hash tells the two compiles apart
        triton.compile(ASTSource(scale_kernel, scale, {"BLOCK": block}), target=target, options={"num_warps": 4})
""")

KERNELS = {"add_kernel": 2, "scale_kernel": 2}  # compiles of each


@dataclass(frozen=True)
class TritonFolders:
    cache: Path  # TRITON_CACHE_DIR
    dump: Path  # TRITON_DUMP_DIR
    mlir_log: Path  # the program's stderr with MLIR_ENABLE_DUMP=1


def write_triton_folders(folder: Path) -> TritonFolders:
    """Run the program once with every one of Triton's own dump settings on; what it wrote, under ``folder``."""
    (folder / "prog.py").write_text(PROGRAM)
    out = TritonFolders(folder / "cache", folder / "dump", folder / "mlir.log")
    env = {
        **os.environ,
        "TRITON_CACHE_DIR": str(out.cache),
        "TRITON_KERNEL_DUMP": "1",
        "TRITON_DUMP_DIR": str(out.dump),
        "MLIR_ENABLE_DUMP": "1",
        "TRITON_DEFAULT_FP_FUSION": "1",  # Triton 3.9 warns on stderr where it is unset
    }
    with open(out.mlir_log, "wb") as stderr:
        subprocess.run([sys.executable, "prog.py"], cwd=folder, env=env, stderr=stderr, check=True, timeout=600)
    return out
