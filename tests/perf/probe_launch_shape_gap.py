"""Is the CUPTI/ncu gap of the CUDA C++ GeLU the language's, or its launch shape's? (issue 49, point 1)

probe_cuda_ncu_gap.py found CUPTI reading +8% over ncu for the CUDA C++ GeLU at 1,024 threads a block, +6% at
256, -2% at 128, while irscope's Triton GeLU (1,024 elements a program over 128 threads) agrees. This probe
launches Triton's GeLU (kernels/gelu.py, through its JIT as a user does) in the CUDA C++ kernel's shapes - one
element per thread, 128, 256 and 1,024 threads a block - beside the CUDA C++ GeLU (NVRTC through CuPy) in the
same shapes, and times each with irscope's CUPTI path and with ncu, in one run on one GPU.

    python tests/perf/probe_launch_shape_gap.py          # both: CUPTI in this process, then ncu in a child

Needs torch, Triton, CuPy and ncu (the device's image has them).
"""

from __future__ import annotations

import functools
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

N = 1 << 24
# (label, frontend, block (CUDA: threads; Triton: BLOCK_SIZE), num_warps for Triton)
SHAPES = [
    ("triton BLOCK=1024 warps=4 (8 el/thread)", "triton", 1024, 4),
    ("triton BLOCK=128 warps=4 (1 el/thread)", "triton", 128, 4),
    ("triton BLOCK=256 warps=8 (1 el/thread)", "triton", 256, 8),
    ("triton BLOCK=1024 warps=32 (1 el/thread)", "triton", 1024, 32),
    ("cuda block=128", "cuda", 128, 0),
    ("cuda block=256", "cuda", 256, 0),
    ("cuda block=1024", "cuda", 1024, 0),
]
NCU_LAUNCHES = 5


def _launchers():
    import cupy
    import torch
    import triton
    from probe_cuda_ncu_gap import SOURCE

    from kernels.gelu import gelu_kernel

    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    cx, cy, null = cupy.asarray(x), cupy.asarray(y), np.uint64(0)
    out = {}
    for label, frontend, block, warps in SHAPES:
        if frontend == "triton":
            grid = (triton.cdiv(N, block),)
            out[label] = functools.partial(
                lambda grid, block, warps: gelu_kernel[grid](x, y, N, BLOCK_SIZE=block, num_warps=warps),
                grid,
                block,
                warps,
            )
        else:
            fn = cupy.RawKernel(SOURCE, "gelu_tanh_kernel", options=("-std=c++17",))
            grid = ((N + block - 1) // block,)
            out[label] = functools.partial(
                lambda fn, grid, block: fn(grid, (block,), (cx, cy, np.int32(N), null)), fn, grid, block
            )
    return torch, out


def cupti() -> dict[str, float]:
    from irscope.measure.l2 import L2Sweep
    from irscope.measure.timing import _profile

    torch, launchers = _launchers()
    sweep = L2Sweep.for_device()
    print(f"device: {torch.cuda.get_device_name()}", flush=True)
    medians = {}
    for label, run in launchers.items():
        for _ in range(3):
            sweep()
            run()
        torch.cuda.synchronize()
        totals, _ = _profile(run, sweep, 60, True, 0.12)
        medians[label] = 1e3 * statistics.median(totals)
        print(f"cupti {label}: {medians[label]:.2f} us", flush=True)
    return medians


def inside_ncu() -> None:
    from irscope.measure.l2 import L2Sweep

    torch, launchers = _launchers()
    sweep = L2Sweep.for_device()
    for run in launchers.values():
        for _ in range(NCU_LAUNCHES):
            sweep()
            torch.cuda.synchronize()
            run()
            torch.cuda.synchronize()


def ncu() -> dict[str, float]:
    from irscope.measure.ncu import parse_csv

    ncu_bin = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    cmd = [ncu_bin, "--csv", "--clock-control", "none", "--kernel-name", "regex:gelu"]
    cmd += ["--metrics", "gpu__time_duration.sum", sys.executable, __file__, "--inside-ncu"]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
    print(f"ncu took {time.time() - started:.0f} s, exit {proc.returncode}", flush=True)
    if proc.returncode:
        print(proc.stderr[-3000:])
    launches = [launch.get("gpu_time_us") for launch in parse_csv(proc.stdout)]  # in launch order
    medians = {}
    for i, (label, *_rest) in enumerate(SHAPES):
        values = [v for v in launches[NCU_LAUNCHES * i : NCU_LAUNCHES * (i + 1)] if v is not None]
        if values:
            medians[label] = statistics.median(values)
    return medians


if __name__ == "__main__":
    if "--inside-ncu" in sys.argv:
        inside_ncu()
    else:
        by_cupti = cupti()
        by_ncu = ncu()
        print(f"\n{'shape':44} {'CUPTI us':>9} {'ncu us':>9} {'CUPTI/ncu':>9}")
        for label, *_rest in SHAPES:
            a, b = by_cupti.get(label), by_ncu.get(label)
            ratio = f"{a / b:.3f}x" if a and b else "-"
            print(f"{label:44} {a or float('nan'):9.2f} {b or float('nan'):9.2f} {ratio:>9}")
