"""Numba CUDA kernels beside Triton's: real numba-cuda compiles for sm_90 without a GPU, then ptxas and SASS.

The kernels are written for these tests: the lecture's square as Numba writes it
(2-D grid) and a tanh GeLU given its types with -S.
"""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("numba.cuda", reason="needs numba-cuda (and the nvidia-cuda-nvrtc wheel)")

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

KERNELS = textwrap.dedent("""
    import math

    from numba import cuda


    @cuda.jit("void(float32[:, :], float32[:, :], int32, int32)")
    def square_matrix(matrix, result, width, height):
        row, col = cuda.grid(2)
        if row < height and col < width:
            result[row, col] = matrix[row, col] * matrix[row, col]


    @cuda.jit
    def gelu(x, y):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            y[i] = 0.5 * v * (1.0 + math.tanh(0.7978845608 * (v + 0.044715 * v * v * v)))
""")


@pytest.fixture
def kernels_file(tmp_path):
    path = tmp_path / "nb_kernels.py"
    path.write_text(KERNELS)
    return path


def test_a_numba_kernel_compiles_to_ptx_and_sass_mapped_to_its_python_lines(kernels_file):
    ref = resolve_kernel(f"{kernels_file}:square_matrix")
    assert ref.frontend == "numba"
    v = capture(ref, {"fast_math": False}, "sm_90")
    assert v.status is Status.OK, v.error
    ptx, sass = v.listings[Stage.PTX], v.listings[Stage.SASS]
    assert ".target sm_90" in ptx and "nb_kernels" in v.compile_info.options["entry"]
    assert v.resources.registers > 0 and v.compile_info.compiler.startswith("numba ")
    line = next(i + 1 for i, t in enumerate(KERNELS.splitlines()) if "matrix[row, col] * matrix[row, col]" in t)
    smap = SourceMap(v)
    mul = next(i for i, t in enumerate(ptx.splitlines()) if "mul.f32" in t)
    assert smap.source_line(Stage.PTX, mul) == line
    fmul = next(i for i, t in enumerate(sass.splitlines()) if " FMUL " in t)
    assert smap.source_line(Stage.SASS, fmul) == line


def test_signature_from_s_and_fastmath(kernels_file, cli):
    exact = capture(
        resolve_kernel(f"{kernels_file}:gelu", signature="float32[:], float32[:]"), {"fast_math": False}, "sm_90"
    )
    fast = capture(
        resolve_kernel(f"{kernels_file}:gelu", signature="float32[:], float32[:]"), {"fast_math": True}, "sm_90"
    )
    assert exact.ok and fast.ok
    assert exact.listings[Stage.PTX] != fast.listings[Stage.PTX]
    assert ".approx" in fast.listings[Stage.PTX]
    missing = cli("dump", f"{kernels_file}:gelu")
    assert missing.exit_code == 2 and "no signature in its decorator" in missing.stderr


def test_a_numba_typing_error_is_one_line(kernels_file, cli):
    result = cli("dump", f"{kernels_file}:gelu", "-S", "int32, float32[:]")
    assert result.exit_code == 3
    (error,) = [ln for ln in result.stderr.splitlines() if ln.startswith("irscope: error")]
    assert "failed at numba" in error and "Traceback" not in result.stderr
