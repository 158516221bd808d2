"""``irscope run`` on a program that launches Gluon kernels, without a GPU (the stand-in card): each ``@gluon.jit``
kernel is recorded under the Gluon frontend with its layouts (as the text ``-c`` takes) and constexprs, its stages
the JIT's own (the Gluon IR included), rebuilt from the recorded text without running it, and its session sweeps
and diffs like one irscope made. The program is written for this test; its add is examples/gluon_add.py itself.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from gluon_kernels import EXAMPLE
from test_run import irscope  # `python -m irscope` as irscope run records without a GPU

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")
pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

# Tutorial style: the device from the driver, layouts built as objects, launched at module level. The copy is
# the program's own kernel, its shared layout an NVMMASharedLayout.
PROGRAM = textwrap.dedent(f"""
    import sys

    import torch
    import triton
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    sys.path.insert(0, {str(EXAMPLE.parent)!r})
    from gluon_add import gluon_add

    DEVICE = triton.runtime.driver.active.get_active_torch_device()


    @gluon.jit
    def staged_copy(x_ptr, out_ptr, ROWS: gl.constexpr, COLS: gl.constexpr, layout: gl.constexpr, shared: gl.constexpr):
        rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
        cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, layout))
        offs = rows[:, None] * COLS + cols[None, :]
        staged = gl.allocate_shared_memory(gl.float16, [ROWS, COLS], shared, value=gl.load(x_ptr + offs))
        gl.store(out_ptr + offs, staged.load(layout))


    n = 4096
    x = torch.rand(n, device=DEVICE)
    y = torch.rand(n, device=DEVICE)
    out = torch.empty_like(x)
    for size in (4, 8):
        gluon_add[(n // 1024,)](x, y, out, n, 1024, gl.BlockedLayout([size], [32], [4], [0]))
    a = torch.rand(64, 64, device=DEVICE, dtype=torch.float16)
    blocked = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    shared = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    staged_copy[(1,)](a, torch.empty_like(a), 64, 64, blocked, shared)
    print("program finished")
""")
# A layout object is kept as its fields, those at their default left out: 3.5's layouts add their CTA fields
# (ctas_per_cga=[1], ...: set after construction, so never at their default), later ones add nothing.
NARROW = "BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]"
WIDE = "BlockedLayout(size_per_thread=[8], threads_per_warp=[32], warps_per_cta=[4], order=[0]"


def recorded_layouts(folder: Path) -> list[str]:
    index = json.loads((folder / "out" / "run.json").read_text())
    (add,) = [k for k in index["kernels"] if k["name"] == "gluon_add"]
    return [v["config"]["layout"] for v in add["variants"]]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gluon_run")
    (folder / "prog.py").write_text(PROGRAM)
    result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", cwd=folder)
    return folder, result


def test_each_gluon_kernel_is_recorded_with_its_layouts(recorded):
    folder, result = recorded
    assert result.returncode == 0, result.stderr
    assert "program finished" in result.stdout
    index = json.loads((folder / "out" / "run.json").read_text())
    kernels = {k["name"]: k for k in index["kernels"]}
    assert set(kernels) == {"gluon_add", "staged_copy"} and index["not_recorded"] == []
    add = kernels["gluon_add"]
    assert add["frontend"] == kernels["staged_copy"]["frontend"] == "gluon"
    assert "2 Gluon kernels, " in result.stdout  # counted by language: before, "2 Triton kernels"
    assert add["session"] == "kernels/gluon_add" and add["why"] is None  # rebuilt from the recorded text
    narrow, wide = recorded_layouts(folder)
    assert narrow.startswith(NARROW) and wide.startswith(WIDE) and narrow.endswith(")")
    assert all(v["config"]["BLOCK"] == 1024 for v in add["variants"])
    (copy,) = kernels["staged_copy"]["variants"]
    shared = copy["config"]["shared"]  # rank=2 (its default) left out; on 3.5 kept, with its CTA fields (see NARROW)
    assert shared.startswith("NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16")
    assert copy["config"]["layout"].startswith("BlockedLayout(size_per_thread=[1, 4]")


def test_the_recorded_stages_are_the_jits_and_equal_irscopes_own_compile(recorded):
    """The session's variant holds the JIT's Gluon IR, TTGIR, LLIR and PTX; irscope compiling the same config of
    the example file gives the same text, byte for byte."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.session import Session
    from irscope.types import Stage

    folder, _ = recorded
    session = Session.open(folder / "out" / "kernels" / "gluon_add")
    assert session.frontend == "gluon"
    stored = {e.config.constexprs["layout"]: e for e in session.entries}
    kernel = resolve_kernel(f"{EXAMPLE}:gluon_add", "*fp32:16, *fp32:16, *fp32:16, i32:16")
    for layout in recorded_layouts(folder):
        variant = session.variant(stored[layout])
        assert variant.frontend == "gluon"
        own = capture(kernel, {"BLOCK": 1024, "layout": layout}, "sm_90")
        for stage in (Stage.GLUON, Stage.TTGIR, Stage.LLIR, Stage.PTX):
            assert variant.listings[stage] == own.listings[stage], (layout, stage)


def test_a_recorded_gluon_kernel_sweeps_and_diffs(recorded):
    folder, _ = recorded
    third = "BlockedLayout([2], [32], [4], [0])"
    result = irscope("sweep", "out/kernels/gluon_add", "-s", f"layout={third}", "--json", cwd=folder)
    assert result.returncode == 0, result.stderr
    (row,) = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert row["status"] == "ok" and row["layout"] == third
    narrow, wide = recorded_layouts(folder)
    two = ("-a", f"layout={narrow}", "-b", f"layout={wide}")
    result = irscope("diff", "out/kernels/gluon_add", *two, "--stage", "gluon", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert "sizePerThread = [4]" in result.stdout and "sizePerThread = [8]" in result.stdout
