"""What Triton itself writes as a program compiles, for the tests that open it (tests/test_triton_folders.py,
tests/hostile/test_triton_folder_input.py): examples/triton_folders.py run as docs/inputs.md runs it, under the
Triton the tests run with (PYTHONPATH): its cache, TRITON_KERNEL_DUMP's folder and MLIR_ENABLE_DUMP's output."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "examples" / "triton_folders.py"
KERNELS = {"add_kernel": 2, "scale_kernel": 2}  # compiles of each


@dataclass(frozen=True)
class TritonFolders:
    cache: Path  # TRITON_CACHE_DIR
    dump: Path  # TRITON_DUMP_DIR
    mlir_log: Path  # the program's stderr with MLIR_ENABLE_DUMP=1


def triton_folders_in(folder: Path) -> TritonFolders:
    return TritonFolders(folder / "cache", folder / "dump", folder / "mlir.log")


def write_triton_folders(folder: Path) -> TritonFolders:
    """Run the program once with every one of Triton's own dump settings on; what it wrote, under ``folder``."""
    subprocess.run([sys.executable, str(PROGRAM), str(folder)], check=True, timeout=600, capture_output=True)
    return triton_folders_in(folder)


# An autotuned kernel run as a program runs it, on irscope's stand-in driver (no GPU here: its launches are
# compiled, not run), with a benchmark of the program's own (do_bench=) giving each config its figures in
# turn: Triton's autotuner then writes its record into the cache (cache_results=True) and prints its lines
# (TRITON_PRINT_AUTOTUNING=1) exactly as on a GPU. Two tuning keys (n), so two decisions, two picks.
AUTOTUNE_PROGRAM = """
import triton
import triton.language as tl

from irscope.frontends.triton.gpu_free import stand_in_driver

triton.runtime.driver.set_active(stand_in_driver("H100"))
import torch  # noqa: E402

FIGURES = iter([0.031, 0.012, 0.019, 0.0042, 0.0051, 0.0047])


def bench(kernel_call, quantiles):
    ms = next(FIGURES)
    return [ms, ms * 0.9, ms * 1.1]


CONFIGS = [triton.Config({"TILE": t}, num_warps=w, num_stages=s) for t, w, s in ((128, 2, 2), (512, 4, 3), (2048, 8, 3))]


@triton.autotune(configs=CONFIGS, key=["n"], cache_results=True, do_bench=bench)
@triton.jit
def clamp_kernel(x_ptr, out_ptr, n, lo, hi, TILE: tl.constexpr):
    offs = tl.program_id(0) * TILE + tl.arange(0, TILE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.minimum(tl.maximum(tl.load(x_ptr + offs, mask=mask), lo), hi), mask=mask)


for n in (1000, 100000):
    a = torch.empty(n, device="meta", dtype=torch.float16)
    clamp_kernel[lambda meta: (triton.cdiv(n, meta["TILE"]),)](a, a, n, 0.25, 0.75)
"""
# what the program's benchmark gave each config, per decision, and the pick (the least median)
AUTOTUNED = {1000: ([0.031, 0.012, 0.019], 1), 100000: ([0.0042, 0.0051, 0.0047], 0)}


@dataclass(frozen=True)
class TritonAutotuning:
    cache: Path  # TRITON_CACHE_DIR: the autotuner's NAME.autotune.json records (and the JIT's compiles)
    log: Path  # the program's stdout with TRITON_PRINT_AUTOTUNING=1


def autotuning_in(folder: Path) -> TritonAutotuning:
    return TritonAutotuning(folder / "cache", folder / "autotune.log")


def write_autotuning(folder: Path) -> TritonAutotuning:
    import os

    (folder / "prog.py").write_text(AUTOTUNE_PROGRAM)
    out = autotuning_in(folder)
    env = {**os.environ, "TRITON_CACHE_DIR": str(out.cache), "TRITON_PRINT_AUTOTUNING": "1"}
    env["TRITON_DEFAULT_FP_FUSION"] = "1"
    with open(out.log, "wb") as stdout:
        subprocess.run([sys.executable, "prog.py"], cwd=folder, env=env, stdout=stdout, check=True, timeout=600)
    return out
