"""The real inputs the battery damages, recorded once per test run, and its count per surface."""

from __future__ import annotations

import pytest

from ..damage import record
from .case import Originals, Recorded

TRITON = """import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)
"""
# Two tunable macros: TILE is a number, OP a C identifier (a value of -c OP=... need not be a number).
CUDA = """#define TWICE(v) (2.0f * (v))
#ifndef TILE
#define TILE 4
#endif
#ifndef OP
#define OP TWICE
#endif
__global__ void scale_kernel(const float* x, float* y, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
    for (int t = 0; t < TILE; ++t) if (i + t < n) y[i + t] = OP(x[i + t]);
}
"""
NUMBA = """from numba import cuda


@cuda.jit("void(float32[::1], float32[::1])")
def twice_kernel(x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y[i] = 2.0 * x[i]
"""


@pytest.fixture(scope="session")
def originals(tmp_path_factory) -> Originals:
    root = tmp_path_factory.mktemp("battery-originals")
    kernels = root / "kernels"
    kernels.mkdir()
    (kernels / "tk.py").write_text(TRITON)
    (kernels / "macro.cu").write_text(CUDA)
    (kernels / "nb.py").write_text(NUMBA)
    plan = {
        "builtin": ("square_kernel", ["-s", "BLOCK_SIZE=128,256", "-c", "n_cols=1024"], "BLOCK_SIZE", (128, 256, 512)),
        "triton": (
            f"{kernels}/tk.py:scale_kernel",
            ["-S", "*fp32:16, *fp32:16, i32", "-s", "BLOCK=128,512"],
            "BLOCK",
            (128, 512, 1024),
        ),
        "cuda": (f"{kernels}/macro.cu:scale_kernel", ["-s", "TILE=2,4"], "TILE", (2, 4, 8)),
        "numba": (f"{kernels}/nb.py:twice_kernel", ["-s", "opt=2,3"], "opt", (2, 3, 1)),
    }
    sessions = {}
    for kind, (kernel, args, name, (a, b, new)) in plan.items():
        path = record(root / kind, kernel, *args, "-j", "1")
        sessions[kind] = Recorded(path, f"{name}={a}", f"{name}={b}", f"{name}={new}", kernel)
    return Originals(sessions, kernels)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from .catalogue import CASES, per_command, per_surface

    terminalreporter.section(f"hostile battery: {len(CASES)} crafted inputs")
    for surface, count in per_surface().items():
        terminalreporter.write_line(f"{count:5d}  {surface}")
    terminalreporter.write_line("by command: " + ", ".join(f"{k} {v}" for k, v in per_command().items()))
