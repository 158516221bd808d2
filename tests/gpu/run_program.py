"""A program for ``irscope run`` tests on a GPU, written for them: an autotuned kernel, a plain one, torch.compile.

Run as it is. With ``RUN_PROGRAM_REPORT=path`` it also writes what the program itself
knows (the PTX each kernel's JIT compiled, the autotuner's pick) for the test to compare;
with ``RUN_PROGRAM_PROFILE=1`` it profiles itself with torch.profiler (as irscope run does)
and adds each GPU kernel's calls and total time to that report.
"""

import json
import os

import torch
import triton
import triton.language as tl

N = 1 << 24
STEPS = int(os.environ.get("RUN_PROGRAM_STEPS", "50"))


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale + 1.0, mask=mask)


@triton.autotune(
    configs=[
        triton.Config({"TILE": 256}, num_warps=2),
        triton.Config({"TILE": 1024}, num_warps=4),
        triton.Config({"TILE": 4096}, num_warps=8),
    ],
    key=["n"],
)
@triton.jit
def relu_sq_kernel(x_ptr, out_ptr, n, TILE: tl.constexpr):
    offs = tl.program_id(0) * TILE + tl.arange(0, TILE)
    mask = offs < n
    x = tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0)
    tl.store(out_ptr + offs, x * x, mask=mask)


@torch.compile
def gelu_twice(x):
    return torch.nn.functional.gelu(x, approximate="tanh") * 2.0


def main():
    x = torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    compiled = {}
    for _ in range(STEPS):
        k = scale_shift_kernel[(triton.cdiv(N, 1024),)](x, out, N, 0.5, BLOCK=1024)
        compiled.setdefault("scale_shift_kernel", k.asm["ptx"])
    for _ in range(STEPS):
        relu_sq_kernel[lambda m: (triton.cdiv(N, m["TILE"]),)](x, out, N)
    for _ in range(STEPS):
        gelu_twice(x)
    torch.cuda.synchronize()
    report = os.environ.get("RUN_PROGRAM_REPORT")
    if report:
        best = relu_sq_kernel.best_config
        caches = relu_sq_kernel.fn.device_caches[torch.cuda.current_device()][0]
        data = {
            "ptx": compiled,
            "relu_sq_ptx": [k.asm["ptx"] for k in caches.values()],
            "best": {**best.kwargs, "num_warps": best.num_warps, "num_stages": best.num_stages},
        }
        with open(report, "w") as f:
            json.dump(data, f)
    print("run_program done")


if __name__ == "__main__":
    if os.environ.get("RUN_PROGRAM_PROFILE") == "1":
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            main()
        totals = {}
        for e in prof.key_averages():
            if e.device_type.name == "CUDA" and e.count:
                totals[e.key] = {"calls": e.count, "total_us": e.self_device_time_total}
        with open(os.environ["RUN_PROGRAM_REPORT"] + ".profile", "w") as f:
            json.dump(totals, f)
    else:
        main()
