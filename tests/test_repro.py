"""``irscope repro``: a stored variant -> one Python file that rebuilds it with triton.compile alone.

The proof is byte for byte: the file, run by a Python that cannot import irscope (``-I``, and
``irscope`` blocked in ``sys.modules``) with a fresh Triton cache, prints the PTX the session holds.
The kernel is written for the test: a helper it calls and does not inline (its PTX name carries the module's name),
a constexpr, arguments known to be multiples of 16 and one that is not.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import triton
from click.testing import CliRunner

from irscope.frontends.triton.environments import tritons_dir
from irscope.session import Session
from irscope.types import Stage

KERNEL = """
import triton
import triton.language as tl


@triton.jit(noinline=True)
def halve(x):
    return x * 0.5


@triton.jit
def scaled_sum(x_ptr, y_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs, x * halve(stride) + y, mask=mask)
"""
SIGNATURE = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, 256"

# Run the file as a script with irscope unimportable: -I leaves out PYTHONPATH, the user's site and the
# working directory; the editable install's path hook still finds irscope, so it is blocked by name too.
# The first argument: a folder put first on the path ("" for none), as a private Triton (3.9.0) is.
WITHOUT_IRSCOPE = (
    "import runpy, sys; sys.path.insert(0, sys.argv[1]) if sys.argv[1] else None; sys.modules['irscope'] = None; "
    "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)
HEURISTICS = """
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["BLOCK"] % 256 == 0})
@triton.jit
def heur(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x + 1.0)
"""


def _invoke(*args: str):
    from irscope.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repro")
    (root / "kernels").mkdir()
    (root / "kernels" / "scaled.py").write_text(textwrap.dedent(KERNEL))
    out = root / "session"
    result = _invoke("sweep", f"{root / 'kernels' / 'scaled.py'}:scaled_sum", "-S", SIGNATURE, "-s", "num_warps=2",
                     "-o", str(out))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


def _run_without_irscope(repro: Path, tmp_path: Path, *args: str, triton_at: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "IRSCOPE"))}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "triton-cache")  # compiled here, not read from a cache
    return subprocess.run(
        [sys.executable, "-I", "-c", WITHOUT_IRSCOPE, triton_at, str(repro), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )


def test_the_repro_rebuilds_the_same_ptx_byte_for_byte_without_irscope(session, tmp_path):
    repro = tmp_path / "repro.py"
    result = _invoke("repro", str(session), "-c", "num_warps=2", "-o", str(repro))
    assert result.exit_code == 0, result.stderr
    text = repro.read_text()
    assert "irscope" not in "".join(line for line in text.splitlines() if line.startswith(("import", "from")))
    ran = _run_without_irscope(repro, tmp_path, "-o", "out.ptx")
    assert ran.returncode == 0, ran.stderr
    assert "warning" not in ran.stderr  # the same Triton
    stored = Session.open(session)[0]
    assert (tmp_path / "out.ptx").read_text() == stored.listings[Stage.PTX]
    # the helper is a function of its own, named by its module as Triton mangles it: the repro's module is the kernel's
    assert ".visible .entry scaled_sum" in stored.listings[Stage.PTX]
    assert re.search(r"\.func .*irscope_kernel_scaled_[0-9a-f]{8}_\$_halve", stored.listings[Stage.PTX])
    # without -o it prints the same text
    printed = _run_without_irscope(repro, tmp_path)
    assert printed.returncode == 0 and printed.stdout == stored.listings[Stage.PTX]


def test_the_file_holds_the_variants_facts_as_literals_and_its_source_as_a_string(session):
    result = _invoke("repro", str(session), "-c", "num_warps=2")
    assert result.exit_code == 0, result.stderr
    tree = ast.parse(result.stdout)
    values = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    literals = {name: ast.literal_eval(node) for name, node in values.items() if name != "TARGET"}
    assert literals["KERNEL"] == "scaled_sum"
    assert literals["SIGNATURE"] == {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32",
                                     "stride": "i32", "BLOCK": "constexpr"}  # fmt: skip
    assert literals["CONSTEXPRS"] == {"BLOCK": 256}
    assert literals["DIVISIBLE_BY_16"] == ("x_ptr", "y_ptr", "out_ptr", "n")
    assert literals["OPTIONS"]["num_warps"] == 2
    assert literals["SOURCE"] == textwrap.dedent(KERNEL)


def test_a_variant_the_session_lacks_or_a_failed_one_is_one_line(session):
    from expect import one_line_error

    one_line_error(_invoke("repro", str(session), "-c", "num_warps=8"), 5, "has no variant")


def _same_ptx(tmp_path: Path, session: Path, *args: str, triton_at: str = "", index: int = 0) -> None:
    repro = tmp_path / "repro.py"
    result = _invoke("repro", str(session), *args, "-o", str(repro))
    assert result.exit_code == 0, result.stderr
    ran = _run_without_irscope(repro, tmp_path, "-o", "out.ptx", triton_at=triton_at)
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "out.ptx").read_text() == Session.open(session)[index].listings[Stage.PTX]


def test_a_kernel_with_heuristics_is_rebuilt_with_the_values_they_set(tmp_path):
    (tmp_path / "heur.py").write_text(textwrap.dedent(HEURISTICS))
    session = tmp_path / "session"
    sweep = _invoke("sweep", f"{tmp_path / 'heur.py'}:heur", "-S", "*fp32:16, *fp32:16, i32, -, -", "-s", "BLOCK=512",
                    "-o", str(session))  # fmt: skip
    assert sweep.exit_code == 0, sweep.stderr
    assert Session.open(session)[0].compile_info.heuristics == {"EVEN": True}
    _same_ptx(tmp_path, session, "-c", "BLOCK=512")


OTHER = "3.9.0"


@pytest.mark.skipif(
    not (tritons_dir() / OTHER / "triton" / "__init__.py").is_file() or triton.__version__ == OTHER,
    reason=f"Triton {OTHER} is not prepared in $IRSCOPE_TRITONS (.ci/run makes it)",
)
def test_a_variant_of_another_triton_is_rebuilt_by_that_triton(session, tmp_path):
    upgraded = tmp_path / "upgraded"
    shutil.copytree(session, upgraded)
    sweep = _invoke("sweep", str(upgraded), "-c", "num_warps=2", "-s", f"triton={OTHER}")
    assert sweep.exit_code == 0, sweep.stderr
    index = next(i for i, v in enumerate(Session.open(upgraded)) if v.compile_info.compiler == f"triton {OTHER}")
    _same_ptx(tmp_path, upgraded, "-c", f"triton={OTHER}", triton_at=str(tritons_dir() / OTHER), index=index)


# A CUDA C++ file written for the test: a tunable macro, a helper nvcc keeps as a .func, and a second kernel
# the variant's listing leaves out (the repro cuts the same slice of nvcc's module).
CUDA_KERNEL = """\
#include <cuda_fp16.h>
#ifndef SCALE
#define SCALE 2.0f
#endif

__device__ __noinline__ float twice(float x) { return x * SCALE; }

__global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = twice(x[i]) + __expf(x[i]);
}

__global__ void fill(float* y) { y[threadIdx.x] = 1.0f; }
"""


def test_a_cuda_variant_is_rebuilt_by_nvcc_to_the_same_ptx_without_irscope(tmp_path):
    cu = tmp_path / "kernels" / "scale.cu"
    cu.parent.mkdir()
    cu.write_text(CUDA_KERNEL)
    session = tmp_path / "session"
    sweep = _invoke("sweep", f"{cu}:scale", "-s", "SCALE=2.5", "-s", "fast_math=true", "-s", "maxrregcount=32",
                    "-o", str(session))  # fmt: skip
    assert sweep.exit_code == 0, sweep.stderr
    stored = Session.open(session)[0]
    ptx = stored.listings[Stage.PTX]
    assert ".entry _Z5scalePKfPfi" in ptx and "_Z4fillPf" not in ptx and ".func" in ptx  # the kernel's slice
    assert f'.file\t1 "{cu}"' in ptx
    repro = tmp_path / "repro.py"
    result = _invoke("repro", str(session), "-o", str(repro))
    assert result.exit_code == 0, result.stderr
    literals = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in ast.parse(repro.read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in ("FAST_MATH", "MAXRREGCOUNT", "ARCH", "CONFIG_H")
    }
    assert literals["FAST_MATH"] is True and literals["MAXRREGCOUNT"] == 32 and literals["ARCH"] == 90
    assert literals["CONFIG_H"] == "#define SCALE 2.5\n"
    ran = _run_without_irscope(repro, tmp_path, "-o", "out.ptx")
    assert ran.returncode == 0, ran.stderr
    assert "warning" not in ran.stderr  # the same nvcc
    assert (tmp_path / "out.ptx").read_text() == ptx
    whole = _run_without_irscope(repro, tmp_path, "--module")
    assert whole.returncode == 0 and ".entry _Z4fillPf" in whole.stdout  # the module nvcc made, both kernels


# A program `irscope run` runs (no GPU: the stand-in): a helper it does not inline (named by the program's module,
# __main__), a module-level constexpr, an argument the JIT turned into a constant (stride = 1), and code around the
# kernel that must not run in the repro (its prints, its launches).
PROGRAM = """\
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
BIAS = tl.constexpr(0.25)


@triton.jit(noinline=True)
def halve(x):
    return x * 0.5


@triton.jit
def shift_kernel(src, dst, n, stride, offset, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src + offs * stride, mask=mask)
    tl.store(dst + offs * stride, x + halve(offset) + BIAS, mask=mask)


print("THE PROGRAM RAN")
n = 12345
a = torch.rand(n, device=DEVICE, dtype=torch.float16)
b = torch.empty_like(a)
shift_kernel[(triton.cdiv(n, 256),)](a, b, n, 1, 0.5, BLOCK=256)
"""


def test_a_variant_irscope_run_recorded_is_rebuilt_with_its_constants_module_and_shapes(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    # a Triton cache of its own: a warm one serves the PTX an earlier run compiled at another path (its .file)
    env = {**os.environ, "IRSCOPE_NO_GPU": "1", "TRITON_CACHE_DIR": str(tmp_path / "run-cache")}
    run = subprocess.run([sys.executable, "-m", "irscope", "run", "-o", "out", "--", sys.executable, "prog.py"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr
    session = tmp_path / "out" / "kernels" / "shift_kernel"
    stored = Session.open(session)[0]
    assert re.search(r"\.func .*__main___\$_halve", stored.listings[Stage.PTX])  # the program's module
    repro = tmp_path / "repro.py"
    result = _invoke("repro", str(session), "-o", str(repro))
    assert result.exit_code == 0, result.stderr
    literals = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in ast.parse(repro.read_text()).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id != "TARGET"
    }
    assert literals["MODULE"] == "__main__" and literals["CONSTEXPRS"] == {"stride": 1, "BLOCK": 256}
    assert literals["GLOBALS"]["BIAS"] == ("constexpr", 0.25)
    launch = literals["LAUNCH"]
    assert launch["grid"] == [49, 1, 1] and launch["arguments"]["src"] == {"tensor": "float16", "shape": [12345],
                                                                           "stride": [1], "aligned": True}  # fmt: skip
    assert launch["arguments"]["n"] == 12345 and launch["arguments"]["offset"] == 0.5
    assert set(literals["DEFS"]) == {"halve", "shift_kernel"}  # bare signatures; the program's lines are not in it
    assert literals["DEFS"]["halve"][1:] == ("def halve(x): pass", {}, {"noinline": True})
    ran = _run_without_irscope(repro, tmp_path, "-o", "out.ptx", "--launch")
    assert ran.returncode == 0, ran.stderr
    assert "THE PROGRAM RAN" not in ran.stdout + ran.stderr
    assert "no GPU here: the kernel is not launched" in ran.stderr  # the GPU half: tests/gpu/test_repro_gpu.py
    assert (tmp_path / "out.ptx").read_text() == stored.listings[Stage.PTX]


SPEC_KERNEL = """
import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor


@triton.jit
def strided(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride, mask=mask), mask=mask)


strided_spec = KernelSpec(
    strided,
    sizes=dict(n=4096),
    tensors=dict(x=Tensor("float32", "n"), out=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.out, k.n, 1),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=256),
)
"""


def test_a_kernel_files_spec_gives_the_constants_the_jit_made_of_its_arguments(tmp_path):
    """A KernelSpec's unit stride becomes a constant the variant does not record: named as a file (code, imported
    already), the spec gives it; from its session alone (data), it is refused naming why."""
    (tmp_path / "strided.py").write_text(textwrap.dedent(SPEC_KERNEL))
    kernel = f"{tmp_path / 'strided.py'}:strided"
    session = tmp_path / "session"
    sweep = _invoke("sweep", kernel, "-s", "num_warps=4", "-o", str(session))
    assert sweep.exit_code == 0, sweep.stderr
    repro = tmp_path / "repro.py"
    result = _invoke("repro", kernel, "-o", str(repro))
    assert result.exit_code == 0, result.stderr
    ran = _run_without_irscope(repro, tmp_path, "-o", "out.ptx")
    assert ran.returncode == 0, ran.stderr
    stored = Session.open(session)[0]
    assert stored.compile_info.signature["stride"] == "constexpr"
    assert (tmp_path / "out.ptx").read_text() == stored.listings[Stage.PTX]
    from expect import one_line_error

    one_line_error(_invoke("repro", str(session)), 2, "the JIT made the argument stride a constant")


# A load_inline call's CUDA sources as a program hands them to torch (device code and torch host code in one
# string), recorded by irscope run's recorder and collected into a run folder (nothing is built: test_run.py).
LOAD_INLINE_CUDA = """
__global__ void square_matrix_kernel(const float* matrix, float* result, int width, int height) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < height && col < width) {
        int idx = row * width + col;
        result[idx] = matrix[idx] * matrix[idx];
    }
}

torch::Tensor square_matrix(torch::Tensor matrix) {
    auto result = torch::empty_like(matrix);
    square_matrix_kernel<<<dim3(1, 1), dim3(16, 16)>>>(
        matrix.data_ptr<float>(), result.data_ptr<float>(), matrix.size(1), matrix.size(0));
    return result;
}
"""


def test_a_load_inline_kernel_irscope_run_recorded_is_rebuilt_by_nvcc_to_the_same_ptx(tmp_path):
    """Its device side, as irscope compiled it (torch's host code left out, lines numbered as in the .cu torch
    compiled), with the call's --use_fast_math."""
    from torch.utils.cpp_extension import load_inline

    from irscope.frontends.cuda.listen import LoadInlineRecorder
    from irscope.interop.run.collect import collect

    (tmp_path / "raw").mkdir()
    LoadInlineRecorder(tmp_path / "raw").record(
        load_inline,
        ("square_ext", "torch::Tensor square_matrix(torch::Tensor matrix);"),
        {"cuda_sources": LOAD_INLINE_CUDA, "functions": ["square_matrix"], "extra_cuda_cflags": ["--use_fast_math"]},
        sys._getframe(0),
    )
    (row,) = collect(tmp_path, command=["python", "prog.py"], exit_code=0, wall_s=1.0)["kernels"]
    session = tmp_path / row["session"]
    stored = Session.open(session)[0]
    assert stored.ok and stored.config.values()["fast_math"] is True
    repro = tmp_path / "repro.py"
    result = _invoke("repro", str(session), "-o", str(repro))
    assert result.exit_code == 0, result.stderr
    assert "torch::Tensor" not in ast.literal_eval(
        next(
            n.value
            for n in ast.parse(repro.read_text()).body
            if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "SOURCE"
        )  # fmt: skip
    )
    ran = _run_without_irscope(repro, tmp_path, "-o", "out.ptx")
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "out.ptx").read_text() == stored.listings[Stage.PTX]
    assert "mul.ftz.f32" in stored.listings[Stage.PTX]  # fast math, as the call asked
