"""``irscope passes`` on a Gluon kernel (examples/gluon_add.py): Gluon's own pipeline (gluon_to_ttgir, then make_llir)
through Triton's pass dumps, the IR before its first pass the Gluon IR and after its last TTGIR pass the TTGIR, byte
for byte; two layouts part before the first pass, since the author wrote the layout Triton's passes would choose."""

from __future__ import annotations

import pytest
from gluon_kernels import ADD_SIGNATURE, BLOCKED_1D, BLOCKED_1D_WIDE, EXAMPLE

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")

from irscope.capturing import capture
from irscope.diffing.passes import first_divergence
from irscope.frontends import resolve_kernel
from irscope.ir.passes import find_pass, ir_after
from irscope.types import Stage

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)


@pytest.fixture(scope="module")
def add():
    kernel = resolve_kernel(f"{EXAMPLE}:gluon_add", ADD_SIGNATURE)
    return {
        layout: capture(kernel, {"BLOCK": 1024, "layout": layout}, "sm_90", passes=True)
        for layout in (BLOCKED_1D, BLOCKED_1D_WIDE)
    }


def test_gluons_pipeline_is_recorded_from_its_gluon_ir_to_its_ttgir(add):
    variant = add[BLOCKED_1D]
    log = variant.passes
    assert log is not None and variant.frontend == "gluon"
    stages = [s.stage for s in log.steps]
    assert Stage.TTIR not in stages and stages == sorted(stages, key=[Stage.TTGIR, Stage.LLIR].index)
    assert log.steps[0].arg == "gluon-inline" and log.steps[0].stage == Stage.TTGIR
    assert ir_after(log, 0) == variant.listings[Stage.GLUON]  # before any pass: the Gluon IR, exactly
    last = max(s.index for s in log.steps if s.stage == Stage.TTGIR)
    assert ir_after(log, last) == variant.listings[Stage.TTGIR]
    inline = find_pass(log, "gluon-inline")
    assert inline.changed  # the helpers Gluon IR still calls are inlined
    assert "llvm.func @gluon_add" in ir_after(log, len(log.steps))


def test_two_layouts_part_before_the_first_pass_at_the_layout_the_author_wrote(add):
    found = first_divergence(add[BLOCKED_1D].passes, add[BLOCKED_1D_WIDE].passes)
    assert found.index == 0
    removed = [ln.text for h in found.between for ln in h.a if h.tag != "equal"]
    added = [ln.text for h in found.between for ln in h.b if h.tag != "equal"]
    assert any("sizePerThread = [4]" in t for t in removed) and any("sizePerThread = [8]" in t for t in added)


def test_the_cli_prints_a_gluon_kernels_passes(cli):
    result = cli(
        "passes", f"{EXAMPLE}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024", "-c", f"layout={BLOCKED_1D}"
    )
    assert result.exit_code == 0, result.stderr
    assert "GluonInline (gluon-inline)" in result.stdout and "── ttgir" in result.stdout
