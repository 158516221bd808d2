"""The layouts a Gluon kernel's author wrote beside what Gluon's passes made of them (annotating/gluon_layouts.py),
on examples/gluon_add.py: a written BlockedLayout is kept as it is; a CoalescedLayout (Triton 3.6 and later) is
resolved by the passes into the BlockedLayout the TTGIR then holds; a Triton kernel has no such finding."""

from __future__ import annotations

import pytest
from gluon_kernels import ADD_SIGNATURE, BLOCKED_1D, EXAMPLE

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")

from irscope.annotating.findings import findings
from irscope.annotating.gluon_layouts import encodings
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.types import Stage

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)
WRITTEN = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"


def layout_finding(variant):
    (found,) = [f for f in findings(variant) if f.kind == "gluon-layouts"]
    return found


def test_a_written_blocked_layout_is_kept_as_written():
    kernel = resolve_kernel(f"{EXAMPLE}:gluon_add", ADD_SIGNATURE)
    variant = capture(kernel, {"BLOCK": 1024, "layout": BLOCKED_1D}, "sm_90")
    found = layout_finding(variant)
    assert found.title == "Gluon layouts: 1 written, 1 kept as written"
    assert found.evidence[0] == f"written and kept: {WRITTEN}"
    assert WRITTEN.split("<", 1)[1][:-1] in variant.listings[Stage.GLUON]  # as the author wrote it, before any pass


def test_a_coalesced_layout_is_shown_with_the_layout_the_passes_chose():
    from triton.experimental.gluon import language as gl

    if not hasattr(gl, "CoalescedLayout"):
        pytest.skip("this Triton's Gluon has no CoalescedLayout (3.6 and later have it)")
    kernel = resolve_kernel(f"{EXAMPLE}:gluon_add", ADD_SIGNATURE)
    variant = capture(kernel, {"BLOCK": 1024, "layout": "CoalescedLayout()"}, "sm_90")
    found = layout_finding(variant)
    assert found.title == "Gluon layouts: 1 written, 0 kept as written, 1 resolved into 1 the passes made"
    assert found.evidence[:2] == (
        "written, resolved by Gluon's passes: #gluon.coalesced_encoding",
        f"made by Gluon's passes: {WRITTEN}",  # the coalescing Triton would give a Triton kernel: 4 a thread
    )
    assert "#gluon.coalesced_encoding" in variant.listings[Stage.GLUON]
    assert "#gluon.coalesced_encoding" not in variant.listings[Stage.TTGIR]


def test_a_triton_kernel_has_no_gluon_layouts():
    variant = capture("add_kernel", {"BLOCK_SIZE": 1024}, "sm_90")
    assert not [f for f in findings(variant) if f.kind == "gluon-layouts"]


def test_encodings_spell_out_aliases_and_inline_slices():
    text = (
        "#blocked = #ttg.blocked<{sizePerThread = [1, 4]}>\n"
        "%a = tt.make_range : tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>\n"
        "%b = tt.splat : tensor<16x64xf32, #blocked>\n"
        "%c = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>\n"
    )
    assert encodings(text) == [
        "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4]}>}>",
        "#ttg.blocked<{sizePerThread = [1, 4]}>",
        "#shared",
    ]
