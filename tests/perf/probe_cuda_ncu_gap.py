"""Where the CUDA C++ / Numba GeLU's extra microseconds come from (issue 49, point 1).

irscope's cupti figure for the built-in CUDA C++ and Numba GeLUs read 8-9% above Nsight Compute's
while Triton kernels agreed. This probe separates the candidate causes, all on one GPU in one run:

* the kernel's own span: each block's first thread stamps ``%globaltimer`` at its start and end
  (atomicMin/atomicMax into two words), so the span from the first block's start to the last block's
  end is known without any profiler; printed beside CUPTI's and ncu's durations;
* what ran just before: irscope's L2 sweep is a Triton kernel; here the same read-only sweep is also
  written in CUDA C++ (no shared memory), and the GeLU is timed after each;
* the L1/shared-memory split the kernel asks for (``preferred_shared_memory_carveout``);
* the grid: the same GeLU with 128, 256 and 1024 threads a block, and a float4 twin.

    python tests/perf/probe_cuda_ncu_gap.py            # CUPTI and %globaltimer figures
    python tests/perf/probe_cuda_ncu_gap.py --ncu      # the same launches under ncu, its figure per kernel

Needs torch and CuPy (the device's image has both). Kernels are compiled with NVRTC through CuPy,
independently of irscope's own compile, and launched through the driver as irscope launches a cubin.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

SOURCE = r"""
#define STAMP_START(t) unsigned long long s_; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(s_)); \
    if (t && threadIdx.x == 0) atomicMin(&t[0], s_);
#define STAMP_END(t) if (t) { __syncthreads(); if (threadIdx.x == 0) { unsigned long long e_; \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(e_)); atomicMax(&t[1], e_); } }

extern "C" __global__ void gelu_tanh_kernel(const float* x, float* y, int n, unsigned long long* t) {
    STAMP_START(t)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
    STAMP_END(t)
}

extern "C" __global__ void gelu_tanh_vec4(const float4* x, float4* y, int n4, unsigned long long* t) {
    STAMP_START(t)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i], r;
        float* a = reinterpret_cast<float*>(&v);
        float* b = reinterpret_cast<float*>(&r);
        for (int k = 0; k < 4; ++k) {
            float inner = 0.7978845608028654f * (a[k] + 0.044715f * a[k] * a[k] * a[k]);
            b[k] = 0.5f * a[k] * (1.0f + tanhf(inner));
        }
        y[i] = r;
    }
    STAMP_END(t)
}

extern "C" __global__ void cuda_l2_sweep(const float4* buffer, int n4, float* sink) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        float4 v = buffer[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == -1.0f) *sink = acc;
}
"""

N = 1 << 24


def _setup():
    import cupy
    import torch

    def module(name):
        return cupy.RawKernel(SOURCE, name, options=("-std=c++17",))

    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    stamps = torch.empty(2, dtype=torch.int64, device="cuda")
    return cupy, torch, module, x, y, stamps


class CudaSweep:
    """irscope's read-only L2 sweep, in CUDA C++ (no shared memory), as a callable the timing code takes."""

    kernel_name = "cuda_l2_sweep"

    def __init__(self, cupy, torch, module):
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.buffer = torch.zeros(max(2 * l2, 64 << 20) // 4, device="cuda")
        self.sink = torch.zeros(1, device="cuda")
        self.fn = module("cuda_l2_sweep")
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.args = (cupy.asarray(self.buffer), np.int32(self.buffer.numel() // 4), cupy.asarray(self.sink))

    def __call__(self):
        self.fn((self.sms * 8,), (256,), self.args)


def _launches(cupy, module, x, y, stamps):
    """name -> (function, run(stamped)) for each variant of the GeLU."""
    cx, cy, ct, null = cupy.asarray(x), cupy.asarray(y), cupy.asarray(stamps), np.uint64(0)
    out = {}
    for block in (128, 256, 1024):
        fn = module("gelu_tanh_kernel")  # one function object per block size: carveouts set apart
        grid = (N + block - 1) // block
        out[f"gelu block={block}"] = (
            fn,
            lambda stamped, fn=fn, grid=grid, block=block: fn(
                (grid,), (block,), (cx, cy, np.int32(N), ct if stamped else null)
            ),
        )
    fn4 = module("gelu_tanh_vec4")
    out["gelu float4 block=256"] = (
        fn4,
        lambda stamped: fn4(((N // 4 + 255) // 256,), (256,), (cx, cy, np.int32(N // 4), ct if stamped else null)),
    )
    return out


def _span_us(torch, stamps, sweep, run, launches=30):
    spans = []
    for _ in range(launches):
        stamps[0] = 2**62
        stamps[1] = 0
        sweep()
        torch.cuda.synchronize()
        run(True)
        torch.cuda.synchronize()
        a, b = stamps.tolist()
        spans.append((b - a) / 1e3)
    return statistics.median(spans)


def measure() -> None:
    from irscope.measure.l2 import L2Sweep
    from irscope.measure.timing import _profile

    cupy, torch, module, x, y, stamps = _setup()
    triton_sweep = L2Sweep.for_device()
    cuda_sweep = CudaSweep(cupy, torch, module)
    print(f"device: {torch.cuda.get_device_name()}", flush=True)
    rows = {}
    for name, (fn, run) in _launches(cupy, module, x, y, stamps).items():
        row = {"regs": fn.num_regs}
        for carveout in (None, 0, 100):
            if carveout is not None:
                fn.preferred_shared_memory_carveout = carveout
            for sweep_name, sweep in (("triton sweep", triton_sweep), ("cuda sweep", cuda_sweep)):
                for stamped in (False, True):
                    for _ in range(3):
                        sweep()
                        run(stamped)
                    torch.cuda.synchronize()
                    totals, _ = _profile(functools.partial(run, stamped), sweep, 60, True, 0.12)
                    label = f"cupti {'stamped ' if stamped else ''}after {sweep_name}, carveout {carveout}"
                    row[label] = round(1e3 * statistics.median(totals), 2)
                row[f"globaltimer span after {sweep_name}, carveout {carveout}"] = round(
                    _span_us(torch, stamps, sweep, run), 2
                )
        rows[name] = row
        print(json.dumps({name: row}, indent=1), flush=True)


def under_ncu() -> None:
    """The launches ncu profiles: each GeLU after each sweep, five times, stamped and not."""
    cupy, torch, module, x, y, stamps = _setup()
    from irscope.measure.l2 import L2Sweep

    sweeps = (("triton", L2Sweep.for_device()), ("cuda", CudaSweep(cupy, torch, module)))
    spans = {}
    for name, (_fn, run) in _launches(cupy, module, x, y, stamps).items():
        for sweep_name, sweep in sweeps:
            spans[f"{name} after {sweep_name} sweep"] = _span_us(torch, stamps, sweep, run, launches=5)
            for _ in range(5):
                sweep()
                torch.cuda.synchronize()
                run(False)
                torch.cuda.synchronize()
    print("SPANS " + json.dumps(spans), flush=True)


def ncu() -> None:
    ncu_bin = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    cmd = [
        ncu_bin,
        "--csv",
        "--clock-control",
        "none",
        "--cache-control",
        os.environ.get("PROBE_NCU_CACHE_CONTROL", "all"),  # "none": is ncu's L2 flush the difference?
        "--kernel-name",
        "regex:gelu",
        "--metrics",
        "gpu__time_duration.sum,launch__grid_size,launch__block_size,smsp__cycles_elapsed.avg.per_second",
        sys.executable,
        __file__,
        "--inside-ncu",
    ]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
    print(f"ncu took {time.time() - started:.0f} s, exit {proc.returncode}")
    from irscope.measure.ncu import parse_csv

    # under_ncu's order: per GeLU variant, per sweep: 5 stamped launches, then 5 plain ones
    launches = [(i, launch.get("gpu_time_us")) for i, launch in enumerate(parse_csv(proc.stdout))]
    labels = [
        f"{name} after {sweep} sweep{' stamped' if stamped else ''}"
        for name in ("gelu block=128", "gelu block=256", "gelu block=1024", "gelu float4 block=256")
        for sweep in ("triton", "cuda")
        for stamped in (True, False)
    ]
    for i, label in enumerate(labels):
        values = [v for _, v in launches[5 * i : 5 * i + 5] if v is not None]
        if values:
            print(
                f"ncu {label}: median {statistics.median(values):.2f} us (min {min(values):.2f}, max {max(values):.2f})"
            )
    for line in proc.stdout.splitlines():
        if line.startswith("SPANS "):
            print("globaltimer under ncu:", line[6:])
    if proc.returncode:
        print(proc.stderr[-3000:])


if __name__ == "__main__":
    if "--inside-ncu" in sys.argv:
        under_ncu()
    elif "--ncu" in sys.argv:
        ncu()
    else:
        measure()
