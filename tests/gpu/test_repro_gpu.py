"""On a GPU: a repro of a kernel `irscope run` recorded launches it on inputs of the recorded shapes.

The program (written for this test) launches a Triton kernel on a real GPU under ``irscope run``; the repro
file, run by a Python that cannot import irscope, rebuilds its PTX (equal to the session's), then, with
``--launch``, makes tensors of the recorded dtypes, shapes and strides, launches the kernel on the recorded
grid, and says whether the JIT compiled that launch to the same PTX. A CUDA C++ repro does not launch yet.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROGRAM = """\
import torch
import triton
import triton.language as tl


@triton.jit(noinline=True)
def halve(x):
    return x * 0.5


@triton.jit
def shift_kernel(src, dst, n, stride, offset, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs * stride, tl.load(src + offs * stride, mask=mask) + halve(offset), mask=mask)


n = 12345
a = torch.rand(n, device="cuda", dtype=torch.float16)
b = torch.empty_like(a)
shift_kernel[(triton.cdiv(n, 256),)](a, b, n, 1, 0.5, BLOCK=256)
torch.testing.assert_close(b, a + 0.25)
"""
# As tests/test_repro.py: run the file with irscope unimportable (-I, and blocked by name for the editable install).
WITHOUT_IRSCOPE = (
    "import runpy, sys; sys.modules['irscope'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def test_the_repro_of_a_run_variant_launches_it_on_the_recorded_shapes(tmp_path: Path):
    from irscope.session import Session
    from irscope.types import Stage

    (tmp_path / "prog.py").write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "IRSCOPE_NO_GPU"}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "run-cache")  # its own: a warm one may hold this kernel at another path
    run = subprocess.run([sys.executable, "-m", "irscope", "run", "-o", "out", "--", sys.executable, "prog.py"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)  # fmt: skip
    assert run.returncode == 0, run.stderr
    session = tmp_path / "out" / "kernels" / "shift_kernel"
    made = subprocess.run([sys.executable, "-m", "irscope", "repro", str(session), "-o", "repro.py"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)  # fmt: skip
    assert made.returncode == 0, made.stderr
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "IRSCOPE"))}
    clean["TRITON_CACHE_DIR"] = str(tmp_path / "fresh-cache")
    ran = subprocess.run([sys.executable, "-I", "-c", WITHOUT_IRSCOPE, "repro.py", "-o", "out.ptx", "--launch"],
                         capture_output=True, text=True, cwd=tmp_path, env=clean, timeout=600)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "launched shift_kernel on grid (49, 1, 1): it ran; the JIT's PTX for this launch is the same" in ran.stderr
    assert (tmp_path / "out.ptx").read_text() == Session.open(session)[0].listings[Stage.PTX]
