"""irscope compare without a GPU: each implementation's own compile, side by side (structure only)."""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest

from irscope.capturing import capture
from irscope.diffing.compare import function_text, structure
from irscope.frontends import resolve_kernel
from irscope.types import Stage, Status

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

TWO = textwrap.dedent("""
    // Written for the test: a vectorised copy beside a scalar one, in one file.
    __global__ void copy4(const float4* x, float4* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i];
    }
    __global__ void copy1(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i] * 2.0f;
    }
""")


def test_each_kernel_of_a_cu_file_is_counted_in_its_own_function_only(tmp_path):
    path = tmp_path / "two.cu"
    path.write_text(TWO)
    wide = capture(resolve_kernel(f"{path}:copy4"), {}, "sm_90")
    narrow = capture(resolve_kernel(f"{path}:copy1"), {}, "sm_90")
    assert wide.status is Status.OK and narrow.status is Status.OK
    assert (structure(wide).loads, structure(wide).stores) == ({16: 1}, {16: 1})
    assert (structure(narrow).loads, structure(narrow).stores) == ({4: 1}, {4: 1})
    entry = narrow.compile_info.options["entry"]
    own = function_text(Stage.PTX, narrow.listings[Stage.PTX], entry)
    assert "ld.global.f32" in own and "ld.global.v4" not in own and ".entry _Z5copy4" not in own


def test_compare_puts_triton_cuda_and_numba_side_by_side(cli):
    pytest.importorskip("numba.cuda", reason="needs numba-cuda")
    result = cli("compare", "gelu_kernel", "gelu_tanh_kernel", "gelu_numba_kernel", "--no-bench", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [r["implementation"] for r in rows] == [
        "Triton gelu_kernel",
        "CUDA C++ gelu_tanh_kernel",
        "Numba gelu_numba_kernel",
    ]
    triton, cuda, numba = (r["structure"] for r in rows)
    assert triton["global_loads"] == {"16": 2} and cuda["global_loads"] == {"4": 1} == numba["global_loads"]
    assert all(s["registers"] > 0 and s["sass_instructions"] > 0 for s in (triton, cuda, numba))
    text = cli("compare", "gelu_kernel", "gelu_tanh_kernel", "--no-bench")
    assert "CUDA C++ gelu_tanh_kernel" in text.stdout and "1x4B" in text.stdout and "2x16B" in text.stdout


def test_compare_with_bench_but_no_gpu_is_one_line(run_irscope, monkeypatch):
    monkeypatch.setenv("IRSCOPE_NO_GPU", "1")  # irscope/nvidia/device.py: as on a machine without one
    result = run_irscope("compare", "gelu_kernel", "gelu_tanh_kernel", "--bench")
    assert result.returncode == 4, result.stderr
    assert [ln for ln in result.stderr.splitlines() if ln.strip()] == [result.stderr.strip()]
    assert "needs a CUDA GPU" in result.stderr and "Traceback" not in result.stderr
