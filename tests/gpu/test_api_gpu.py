"""The Python API on a GPU: irscope.bench of a built-in (in GPU workers) and of a kernel defined the way a
notebook cell defines one (no file any worker could import: measured in this process), and irscope.capture
with the GPU's own JIT."""

from __future__ import annotations

import linecache
import math

import irscope

# A cell's kernel: compiled from text registered in linecache under a name no file has, as IPython does
# with every cell (ipykernel: /tmp/ipykernel_<pid>/<hash>.py).
CELL = """
import triton
import triton.language as tl
from irscope.spec import KernelSpec, Tensor, Tunable, pow2


@triton.jit
def cell_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, 3.0 * tl.load(x_ptr + offsets, mask=mask), mask=mask)


scale = KernelSpec(
    cell_scale,
    sizes=dict(n=1 << 22),
    tensors=dict(x=Tensor("float32", "n"), out=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.out, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(1024, pow2(256, 4096))),
    reference=lambda k: 3.0 * k.x,
)
"""


def _cell_namespace() -> dict:
    filename = "/tmp/ipykernel_4242/irscope_gpu_test_cell.py"  # never written: the text lives in linecache
    linecache.cache[filename] = (len(CELL), None, CELL.splitlines(keepends=True), filename)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(CELL, filename, "exec"), namespace)
    return namespace


def test_bench_a_built_in_by_name_checks_then_times_each_variant(tmp_path):
    session = irscope.bench("square_kernel", sweep={"BLOCK_SIZE": [256, 1024]}, out=tmp_path / "square")
    assert len(session) == 2
    for entry in session.entries:
        m = entry.measurement
        assert m is not None and m.status.value == "ok" and m.max_abs_error == 0
        assert 1 < m.median_us < 1000 and m.timing == "cupti"


def test_bench_a_cell_kernel_runs_in_this_process_and_is_correct(tmp_path):
    scale = _cell_namespace()["scale"]
    session = irscope.bench(scale, sweep={"BLOCK": [256, 1024]}, out=tmp_path / "scale")
    assert len(session) == 2
    for entry in session.entries:
        m = entry.measurement
        assert m is not None and m.status.value == "ok", m
        # 4 Mi floats in and out: 32 MiB moved; an H100/H200 moves that in tens of microseconds
        assert 5 < m.median_us < 500 and m.gbps is not None and not math.isnan(m.gbps)


def test_capture_on_the_gpu_uses_its_jit_and_maps_the_cell():
    scale = _cell_namespace()["scale"]
    v = irscope.capture(scale, {"BLOCK": 1024})
    assert v.compile_info.mode.value == "jit"
    assert ".entry cell_scale" in v.listings["ptx"]
