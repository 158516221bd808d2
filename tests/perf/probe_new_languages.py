"""The Triton family's other languages on a GPU: checked, timed with irscope's CUPTI path, beside ncu (issue 49, pt 2).

Each kernel is launched as its author would (Gluon through its JIT with a layout constexpr; Helion through its
kernel object with a fixed Config, so no autotuning), checked against torch first, then timed: the median of 60
CUPTI records after irscope's L2 sweep, and ncu's gpu__time_duration (median of 5, --clock-control none). A Triton
twin of each operator is timed beside it, in the same run on the same GPU.

    python tests/perf/probe_new_languages.py

A language that is not installed (or fails to import beside this torch) is named on one line and skipped.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parents[1] / "examples")]

N = 1 << 24
ROWS, COLS = 4096, 1024
NCU_LAUNCHES = 5


def _kernels():
    """label -> (run, check): ``run()`` launches once; ``check()`` raises unless the output is right.
    Each label starts with the GPU kernel's own name (ncu's figures are matched to labels by it)."""
    import torch
    import triton

    x = torch.randn(N, device="cuda")
    y = torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    rows = torch.randn(ROWS, COLS, device="cuda")
    out_rows = torch.empty_like(rows)
    kernels = {}

    def close(got, want, atol=1e-5, rtol=1e-5):
        torch.testing.assert_close(got, want, atol=atol, rtol=rtol)

    from kernels.add import add_kernel

    def triton_add():
        add_kernel[(triton.cdiv(N, 1024),)](x, y, out, N, BLOCK_SIZE=1024)

    kernels["add_kernel (triton) BLOCK=1024"] = (triton_add, lambda: close(out, x + y))

    try:
        from gluon_add import gluon_add
        from triton.experimental.gluon import language as gl

        layout = gl.BlockedLayout([4], [32], [4], [0])

        def gluon_run():
            gluon_add[(triton.cdiv(N, 1024),)](x, y, out, N, BLOCK=1024, layout=layout, num_warps=4)

        kernels["gluon_add (gluon) BLOCK=1024 BlockedLayout([4],[32],[4],[0])"] = (gluon_run, lambda: close(out, x + y))
    except Exception as error:  # a probe names what it could not run and goes on
        print(f"gluon: not run ({type(error).__name__}: {error})".splitlines()[0], flush=True)

    try:
        import helion
        import helion.language as hl

        @helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4), static_shapes=True)
        def helion_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            result = torch.empty_like(a)
            for tile in hl.tile(a.size(0)):
                result[tile] = a[tile] + b[tile]
            return result

        @helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4), static_shapes=True)
        def helion_softmax(a: torch.Tensor) -> torch.Tensor:
            n, _m = a.size()
            result = torch.empty_like(a)
            for tile_n in hl.tile(n):
                values = a[tile_n, :]
                amax = torch.amax(values, dim=1, keepdim=True)
                exp = torch.exp(values - amax)
                result[tile_n, :] = exp / torch.sum(exp, dim=1, keepdim=True)
            return result

        held = {}

        def helion_add_run():
            held["add"] = helion_add(x, y)

        def helion_softmax_run():
            held["softmax"] = helion_softmax(rows)

        kernels["_helion_helion_add (helion) block_sizes=[1024]"] = (helion_add_run, lambda: close(held["add"], x + y))
        kernels["_helion_helion_softmax (helion) block_sizes=[1]"] = (
            helion_softmax_run,
            lambda: close(held["softmax"], torch.softmax(rows, dim=1), atol=1e-6, rtol=1e-4),
        )
    except Exception as error:
        print(f"helion: not run ({type(error).__name__}: {error})".splitlines()[0], flush=True)

    from kernels.softmax import softmax_kernel  # the Triton twin, one row a program

    def triton_softmax():
        softmax_kernel[(ROWS,)](out_rows, rows, rows.stride(0), out_rows.stride(0), COLS, BLOCK_SIZE=COLS)

    kernels["softmax_kernel (triton) BLOCK_SIZE=1024"] = (
        triton_softmax,
        lambda: close(out_rows, torch.softmax(rows, dim=1), atol=1e-6, rtol=1e-4),
    )
    return torch, kernels


def cupti() -> dict[str, float]:
    from irscope.measure.l2 import L2Sweep
    from irscope.measure.timing import _profile

    torch, kernels = _kernels()
    sweep = L2Sweep.for_device()
    print(f"device: {torch.cuda.get_device_name()}", flush=True)
    medians = {}
    for label, (run, check) in kernels.items():
        try:
            run()
            torch.cuda.synchronize()
            check()
            for _ in range(3):
                sweep()
                run()
            torch.cuda.synchronize()
            totals, per_kernel = _profile(run, sweep, 60, True, 0.12)
        except Exception as error:  # one failing kernel never stops the probe
            print(f"{label}: FAILED {type(error).__name__}: {str(error).splitlines()[0][:200]}", flush=True)
            continue
        medians[label] = 1e3 * statistics.median(totals)
        names = ", ".join(sorted(per_kernel))
        print(f"cupti {label}: correct; {medians[label]:.2f} us (GPU activities: {names})", flush=True)
    return medians


def inside_ncu() -> None:
    from irscope.measure.l2 import L2Sweep

    torch, kernels = _kernels()
    sweep = L2Sweep.for_device()
    for run, _check in kernels.values():
        try:
            for _ in range(NCU_LAUNCHES):
                sweep()
                torch.cuda.synchronize()
                run()
                torch.cuda.synchronize()
        except Exception:  # cupti() names the failure; the next kernel still runs
            continue


def ncu(labels: list[str]) -> dict[str, float]:
    from irscope.measure.ncu import parse_csv

    ncu_bin = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    # every kernel but irscope's L2 sweep
    cmd = [ncu_bin, "--csv", "--clock-control", "none", "--kernel-name", "regex:^(?!.*l2_sweep).*"]
    cmd += ["--metrics", "gpu__time_duration.sum", sys.executable, __file__, "--inside-ncu"]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
    print(f"ncu took {time.time() - started:.0f} s, exit {proc.returncode}", flush=True)
    if proc.returncode:
        print(proc.stderr[-2000:])
    launches = [(launch["kernel"], launch.get("gpu_time_us")) for launch in parse_csv(proc.stdout)]
    print("ncu kernels:", sorted({name[:60] for name, _ in launches}), flush=True)
    medians = {}
    for label in labels:
        kernel = label.split()[0]
        values = [us for name, us in launches if us is not None and (name == kernel or name.startswith(kernel + "("))]
        if values:
            medians[label] = statistics.median(values)
    return medians


if __name__ == "__main__":
    if "--inside-ncu" in sys.argv:
        inside_ncu()
    else:
        by_cupti = cupti()
        _torch, all_kernels = _kernels()
        by_ncu = ncu(list(all_kernels))
        print(f"\n{'kernel':56} {'CUPTI us':>9} {'ncu us':>9} {'CUPTI/ncu':>9}")
        for label in all_kernels:
            a, b = by_cupti.get(label), by_ncu.get(label)
            ratio = f"{a / b:.3f}x" if a and b else "-"
            print(f"{label:56} {a or float('nan'):9.2f} {b or float('nan'):9.2f} {ratio:>9}")
