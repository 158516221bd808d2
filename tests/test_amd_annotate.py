"""AMDGCN in plain words and AMD findings, on kernels written for the tests compiled for AMD targets here.

Every line of every listing has a reading (0 unknown) on gfx942, gfx1100, gfx90a, gfx950 and gfx1201.
Each finding is held to the listing itself: the lines it cites are found again by a plain search of
the text, the spill bytes and the occupancy are the ones LLVM prints in its own comments
(``; ScratchSize:``, ``; Occupancy:``), and each is absent from a kernel without the property.
"""

from __future__ import annotations

import json
import re

import pytest
from amd_reference import llvm_says as llvm_comment
from amd_reference import occupancy_with_launch_lds
from written_kernels import (
    HELD_ROW,
    HELD_ROW_SIGNATURE,
    MM_UNIT_B,
    ROW_SOFTMAX,
    ROW_SOFTMAX_SIGNATURE,
    SCALED_ADD,
    TILE_MM,
)

from irscope.annotating import annotate
from irscope.arch import wave_size
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.stages import Stage

ARCHS = ("gfx942", "gfx1100", "gfx90a", "gfx950", "gfx1201")
MM = {"BM": "64", "BN": "64", "BK": "32"}
# name -> (source, signature, config, on which archs)
KERNELS = {
    "scaled_add": (SCALED_ADD, "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32", {"BLOCK": "1024"}),
    "row_softmax": (ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE, {"BLOCK": "1024"}),
    "tile_mm": (TILE_MM, MM_UNIT_B, MM),
    "held_row": (HELD_ROW, HELD_ROW_SIGNATURE, {"BLOCK": "4096", "num_warps": "1"}),
}


def spill_config(arch: str) -> dict[str, str]:
    """waves_per_eu that caps held_row's VGPRs below the 64 (CDNA) or 128 (RDNA) floats a lane holds."""
    return {"waves_per_eu": "8" if wave_size(arch) == 64 else "16"}


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    """``{(kernel, arch, spills): variant}``; held_row twice, with and without the waves_per_eu that spills."""
    folder = tmp_path_factory.mktemp("amd-annotate")
    out = {}
    for name, (source, signature, config) in KERNELS.items():
        path = folder / f"{name}.py"
        path.write_text(source)
        kernel = resolve_kernel(f"{path}:{name}", signature)
        for arch in ARCHS:
            extras = [{}, spill_config(arch)] if name == "held_row" else [{}]
            for extra in extras:
                variant = capture(kernel, {**config, **extra}, arch, compile_timeout=None)
                assert variant.ok, variant.error
                out[name, arch, bool(extra)] = variant
    return out


def listing(variant) -> list[str]:
    return variant.listings[Stage.AMDGCN].splitlines()


def llvm_says(variant, what: str) -> int:
    """A number from LLVM's own summary comments at the end of the listing: ``; Occupancy: 6``."""
    return llvm_comment(variant.listings[Stage.AMDGCN], what)


def found(variant, kind: str):
    return [f for f in annotate(variant, Stage.AMDGCN).findings if f.kind == kind]


@pytest.mark.parametrize("arch", ARCHS)
def test_every_line_of_every_listing_has_a_reading(variants, arch):
    for (name, target, _), variant in variants.items():
        if target != arch:
            continue
        result = annotate(variant, Stage.AMDGCN)
        assert len(result.lines) == len(listing(variant))
        assert [line.text for line in result.unknown()] == [], name
        instructions = [line for line in result.lines if line.explanation.kind == "instruction"]
        assert len(instructions) > 20 and all(line.explanation.summary for line in instructions)


def test_matrix_instructions_are_decoded_with_their_shapes(variants):
    for arch, opcode in (("gfx942", "v_mfma_f32_32x32x8_f16"), ("gfx90a", "v_mfma_f32_32x32x8f16")):
        variant = variants["tile_mm", arch, False]
        result = annotate(variant, Stage.AMDGCN)
        line = next(x for x in result.lines if x.text.split() and x.text.split()[0] == opcode)
        assert "a 32x32 f32 tile += (32x8 f16) x (8x32 f16), 8192 multiply-adds" in line.explanation.summary
        assert line.explanation.category == "matrix"
        accumulator = next(p for p in line.explanation.parts if p.token.startswith("a["))
        assert "16 consecutive accumulation registers (AGPRs) a0..a15" in accumulator.text
    rdna = annotate(variants["tile_mm", "gfx1100", False], Stage.AMDGCN)
    wmma = next(x for x in rdna.lines if x.text.strip().startswith("v_wmma_f32_16x16x16_f16"))
    assert "a 16x16 f32 tile += (16x16 f16) x (16x16 f16)" in wmma.explanation.summary


def test_memory_waits_and_dual_issue_lines_say_what_they_do(variants):
    cdna = annotate(variants["tile_mm", "gfx942", False], Stage.AMDGCN)
    by_text = {line.text.strip(): line.explanation for line in cdna.lines}
    assert (
        "16 bytes per lane: dwordx4" in by_text[next(t for t in by_text if t.startswith("global_load_dwordx4"))].summary
    )
    wait = by_text["s_waitcnt vmcnt(0)"]
    assert wait.summary.endswith("at most 0 vector memory loads (global, buffer, scratch, flat) still outstanding")
    assert by_text["s_barrier"].category == "barrier"
    lds = next(e for t, e in by_text.items() if t.startswith("ds_write_b128"))
    assert lds.category == "LDS" and "128-bit" in lds.summary
    rdna = annotate(variants["row_softmax", "gfx1100", False], Stage.AMDGCN)
    dual = next(x.explanation for x in rdna.lines if "::" in x.text)
    assert dual.known and dual.summary.startswith("dual issue (VOPD), two operations at once:")
    gfx12 = annotate(variants["row_softmax", "gfx1201", False], Stage.AMDGCN)
    assert any(x.explanation.summary.startswith("wait until at most N LDS operations") for x in gfx12.lines)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_vector_width_of_global_accesses_cites_the_wide_and_the_narrow_lines(variants, arch):
    mm = variants["tile_mm", arch, False]
    wide = {i for i, t in enumerate(listing(mm)) if re.match(r"\t(global|buffer)_load_(dwordx4|b128) ", t)}
    (loads,) = [f for f in found(mm, "vectorization") if "loads" in f.title]
    assert loads.severity == "info" and loads.title == "global loads are vectorised: 16 bytes per lane"
    assert set(loads.lines) == wide
    source = mm.listings[Stage.SOURCE].splitlines()
    for row in loads.evidence:  # one row per tl.load line, naming it
        line = int(re.match(r"line (\d+)", row).group(1))
        assert "tl.load(" in source[line - 1]
    softmax = variants["row_softmax", arch, False]
    narrow = {i for i, t in enumerate(listing(softmax)) if re.match(r"\tbuffer_load_(dword|b32) ", t)}
    (loads,) = [f for f in found(softmax, "vectorization") if "loads" in f.title]
    assert loads.severity == "warn" and loads.title == "global loads are not vectorised (4 bytes per lane)"
    assert set(loads.lines) == narrow


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx90a"])
def test_spills_are_the_metadata_and_the_lines_llvm_marks_as_spills(variants, arch):
    spilling, roomy = variants["held_row", arch, True], variants["held_row", arch, False]
    (spill,) = found(spilling, "spills")
    # scratch_ instructions, and the buffer_ ones LLVM marks as spills (gfx90a has no scratch_ instructions)
    marked = {
        i
        for i, t in enumerate(listing(spilling))
        if t.startswith("\tscratch_") or re.search(r"; \d+-byte Folded (Spill|Reload)", t)
    }
    assert marked and set(spill.lines) == marked
    assert spilling.resources.scratch == llvm_says(spilling, "ScratchSize") > 0
    assert f"({spilling.resources.scratch} bytes per lane)" in spill.title
    assert not found(roomy, "spills") and llvm_says(roomy, "ScratchSize") == 0
    # the spills are not global stores: every global store is still the kernel's one tl.store line's
    (stores,) = [f for f in found(spilling, "vectorization") if "stores" in f.title]
    assert len(stores.evidence) == 1 and "tl.store(" in stores.evidence[0]


def test_occupancy_per_simd_is_the_one_llvm_prints_once_it_sees_the_launchs_lds(variants):
    for (name, arch, _), variant in variants.items():
        (occupancy,) = found(variant, "occupancy")
        waves = int(re.search(r"(\d+) (?:of \d+ )?waves per SIMD", occupancy.title).group(1))
        assert waves == occupancy_with_launch_lds(variant), (name, arch, occupancy.title)
        if not variant.resources.shared:  # no LDS: LLVM's own comment in the listing already says it
            assert waves == llvm_says(variant, "Occupancy"), (name, arch)
    # tile_mm on gfx942: 76 VGPRs (AGPRs included), 80 allocated, 512 // 80 = 6 waves; but its 16 KiB of LDS
    # let a CU hold 4 workgroups of 4 waves: 4 per SIMD
    mm = variants["tile_mm", "gfx942", False]
    assert found(mm, "occupancy")[0].title == "4 of 8 waves per SIMD, limited by LDS"
    assert "a gfx942 SIMD's file of 512 holds 6 such waves" in found(mm, "occupancy")[0].detail


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_matrix_cores_and_lds_are_found_where_the_listing_has_them_and_only_there(variants, arch):
    mm, add = variants["tile_mm", arch, False], variants["scaled_add", arch, False]
    (matrix,) = found(mm, "tensor-cores")
    assert set(matrix.lines) == {i for i, t in enumerate(listing(mm)) if re.match(r"\tv_(mfma|wmma)_", t)}
    assert ("MFMA" if arch == "gfx942" else "WMMA") in matrix.title
    (lds,) = found(mm, "shared-memory")
    shared = 2 * (64 * 32 + 32 * 64) * 2  # two buffers (num_stages 3) of the A and B tiles, fp16
    assert lds.title.startswith(f"uses {shared} B of LDS per workgroup and 4 barriers")
    ds = {i for i, t in enumerate(listing(mm)) if re.match(r"\t(ds_(read|write|load|store)\w*|s_barrier)\b", t)}
    assert set(lds.lines) == ds
    assert not found(add, "tensor-cores") and not found(add, "shared-memory")
    assert not any(re.match(r"\t(v_mfma|v_wmma|ds_)", t) for t in listing(add))


def test_annotate_cli_explains_the_amdgcn_of_a_gfx_target(variants, run_irscope):
    variant = variants["held_row", "gfx942", True]
    kernel = f"{variant.kernel.file}:held_row"
    args = ["annotate", kernel, "-S", HELD_ROW_SIGNATURE, "-c", "BLOCK=4096", "-c", "num_warps=1"]
    done = run_irscope(*args, "-c", "waves_per_eu=8", "--arch", "gfx942", "--stage", "amdgcn", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["arch"] == "gfx942" and all(line["known"] for line in result["lines"])
    assert "registers spill to scratch" in {f["title"].split(" (")[0] for f in result["findings"]}
