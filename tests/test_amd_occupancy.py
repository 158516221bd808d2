"""Waves per SIMD on AMD targets as VGPRs, SGPRs, LDS, the workgroup's size and waves_per_eu allow, held to
LLVM's own ``; Occupancy:`` on kernels written for the tests.

LLVM counts only static LDS, and Triton's is sized at launch, so each variant is checked twice: its
listing's comment against irscope's rule with the LDS LLVM saw (none), and the comment of the same
LLIR compiled again with the launch's LDS made static (amd_llvm.py) against irscope's finding. The
variants include LDS-limited matmuls (big tiles, num_stages 3: 64 KiB) on CDNA3, CDNA4 (160 KiB)
and RDNA3 (128 KiB per WGP), one-wave workgroups, a 16-wave one and a waves_per_eu request.
"""

from __future__ import annotations

import re

import pytest
from amd_reference import compile_llir, llvm_says, metadata, occupancy_with_launch_lds, with_static_lds
from written_kernels import MM_UNIT_B, ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE, SCALED_ADD, TILE_MM

from irscope.annotating import annotate
from irscope.annotating.amd_occupancy import COMPUTE_UNITS, simd_occupancy, workgroup_waves, workgroups_per_cu
from irscope.arch import wave_size
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.stages import Stage

BIG = {"BM": "128", "BN": "128", "BK": "64"}  # num_stages 3: two buffers of A and B, 64 KiB of fp16
SMALL = {"BM": "64", "BN": "64", "BK": "32"}
KERNELS = {
    "tile_mm": (TILE_MM, MM_UNIT_B),
    "scaled_add": (SCALED_ADD, "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32"),
    "row_softmax": (ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE),
}
# (case, kernel, arch, config) -> the finding's title
CASES = {
    ("lds-bound", "tile_mm", "gfx942", "big"): "1 of 8 waves per SIMD, limited by LDS",
    ("lds-bound", "tile_mm", "gfx950", "big"): "2 of 8 waves per SIMD, limited by VGPRs and LDS",
    ("lds-bound", "tile_mm", "gfx1100", "big"): "2 of 16 waves per SIMD, limited by LDS",
    ("lds-bound", "tile_mm", "gfx90a", "small"): "4 of 8 waves per SIMD, limited by LDS",
    ("one-wave", "tile_mm", "gfx942", "small-1"): "1 of 8 waves per SIMD, limited by LDS",
    ("one-wave", "tile_mm", "gfx1201", "small-1"): "2 of 16 waves per SIMD, limited by LDS",
    ("one-wave", "scaled_add", "gfx942", "add-1"): "all 8 waves per SIMD fit: no resource limits occupancy",
    (
        "sixteen-waves",
        "row_softmax",
        "gfx1100",
        "softmax-16",
    ): "all 16 waves per SIMD fit: no resource limits occupancy",
    ("request", "tile_mm", "gfx942", "small-wpe2"): "2 of 8 waves per SIMD, limited by waves_per_eu",
}
CONFIGS = {
    "big": BIG,
    "small": SMALL,
    "small-1": {**SMALL, "num_warps": "1"},
    "small-wpe2": {**SMALL, "waves_per_eu": "2"},
    "add-1": {"BLOCK": "256", "num_warps": "1"},
    "softmax-16": {"BLOCK": "1024", "num_warps": "16"},
}


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    folder = tmp_path_factory.mktemp("amd-occupancy")
    kernels = {}
    for name, (source, signature) in KERNELS.items():
        (folder / f"{name}.py").write_text(source)
        kernels[name] = resolve_kernel(f"{folder / name}.py:{name}", signature)
    out = {}
    for case in CASES:
        _, name, arch, config = case
        variant = capture(kernels[name], CONFIGS[config], arch, compile_timeout=None)
        assert variant.ok, variant.error
        out[case] = variant
    return out


def occupancy_of(variant):
    (finding,) = [f for f in annotate(variant, Stage.AMDGCN).findings if f.kind == "occupancy"]
    return finding


def waves_in(title: str) -> int:
    found = re.match(r"(?:all )?(\d+)", title)
    assert found is not None, title
    return int(found.group(1))


def rule(variant, lds: int) -> int:
    """irscope's rule on the variant's own counts, with ``lds`` bytes per workgroup."""
    text = variant.listings[Stage.AMDGCN]
    info = variant.compile_info
    found = simd_occupancy(
        variant.arch,
        wave_size(variant.arch),
        info.threads_per_block,
        metadata(text, "vgpr_count"),
        metadata(text, "sgpr_count"),
        lds,
        int(info.options.get("waves_per_eu") or 0),
    )
    assert found is not None, "no occupancy for a compiled variant"
    return found.waves


@pytest.mark.parametrize("case", list(CASES), ids=["-".join(c) for c in CASES])
def test_occupancy_is_llvms_both_with_the_lds_it_sees_and_with_the_launchs(variants, case):
    variant = variants[case]
    text = variant.listings[Stage.AMDGCN]
    # what LLVM saw: the static group segment only (0: Triton asks all of it at launch)
    static = metadata(text, "group_segment_fixed_size")
    assert static == llvm_says(text, "LDSByteSize") == 0
    assert rule(variant, static) == llvm_says(text, "Occupancy")
    # the launch: LLVM counts Triton's LDS once it is static, and agrees with the finding
    finding = occupancy_of(variant)
    assert finding.title == CASES[case]
    assert waves_in(finding.title) == occupancy_with_launch_lds(variant)


def test_the_limit_is_said_in_words_with_the_numbers_it_rests_on(variants):
    mi300 = occupancy_of(variants["lds-bound", "tile_mm", "gfx942", "big"])
    assert variants["lds-bound", "tile_mm", "gfx942", "big"].resources.shared == 65536
    assert "LDS: each workgroup of 4 waves asks 65536 B; a CU's 64 KiB holds 1 of them, 4 waves over 4 SIMDs" in (
        mi300.detail
    )
    assert mi300.severity == "warn" and "at most 32768 B of LDS each" in mi300.detail
    mi355 = occupancy_of(variants["lds-bound", "tile_mm", "gfx950", "big"])
    assert "a CU's 160 KiB holds 2 of them, 8 waves over 4 SIMDs: 2 per SIMD" in mi355.detail
    rdna = occupancy_of(variants["lds-bound", "tile_mm", "gfx1100", "big"])
    assert "a WGP's 128 KiB holds 2 of them" in rdna.detail and "SGPRs" not in rdna.detail  # no SGPR limit on RDNA
    one = occupancy_of(variants["one-wave", "tile_mm", "gfx942", "small-1"])
    assert "each workgroup of 1 wave asks 16384 B; a CU's 64 KiB holds 4 of them, 4 waves over 4 SIMDs" in one.detail
    wide = occupancy_of(variants["sixteen-waves", "row_softmax", "gfx1100", "softmax-16"])
    assert "512 threads, 16 waves of 32; a WGP's 64 wave slots and 32 barriers allow 16 waves per SIMD" in wide.detail
    request = occupancy_of(variants["request", "tile_mm", "gfx942", "small-wpe2"])
    assert "waves_per_eu=2: LLVM holds the kernel to 2 waves per SIMD" in request.detail


# up to what one workgroup may address (more is an LLVM error): 64 KiB, 160 KiB on gfx950
LDS_SIZES = {"gfx942": (1000, 20000, 40000, 65536), "gfx1100": (1000, 20000, 40000, 65536)}
LDS_SIZES["gfx950"] = (1000, 40000, 100000, 163840)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1100"])
def test_the_rule_is_llvms_over_lds_sizes_waves_per_eu_and_workgroup_sizes(tmp_path, arch):
    """The LLIR of a row softmax (4 and 16 warps) compiled again with static LDS of several sizes and other
    waves_per_eu requests: irscope's rule on each compile's own counts is LLVM's comment every time."""
    (tmp_path / "row_softmax.py").write_text(ROW_SOFTMAX)
    kernel = resolve_kernel(f"{tmp_path}/row_softmax.py:row_softmax", ROW_SOFTMAX_SIGNATURE)
    checked = 0
    for warps in ("4", "16"):
        variant = capture(kernel, {"BLOCK": "1024", "num_warps": warps}, arch, compile_timeout=None)
        for lds in LDS_SIZES[arch]:
            for request in (0, 3):
                text = compile_llir(with_static_lds(variant.listings[Stage.LLIR], lds, request), arch)
                ours = simd_occupancy(
                    arch,
                    wave_size(arch),
                    int(warps) * wave_size(arch),
                    metadata(text, "vgpr_count"),
                    metadata(text, "sgpr_count"),
                    llvm_says(text, "LDSByteSize"),
                    request,
                )
                assert ours.waves == llvm_says(text, "Occupancy"), (warps, lds, request)
                checked += 1
    assert checked == 2 * len(LDS_SIZES[arch]) * 2


def test_the_words_workgroups_fit_is_llvms_range_rule_for_tritons_workgroup_sizes():
    """The finding says "a CU holds N workgroups of W waves, N*W over 4 SIMDs"; LLVM's rule counts workgroup
    sizes from 1 to W. For Triton's sizes (1 to 16 waves) the two agree at every LDS size."""
    for arch, cu in COMPUTE_UNITS.items():
        lanes = wave_size(arch)
        for waves in (1, 2, 4, 8, 16):
            if waves * lanes > 1024:
                continue
            for lds in range(0, 170000, 512):
                groups = min(cu.lds // max(lds, 1), workgroups_per_cu(cu, lanes, waves * lanes))
                fixed = min(max(-(-groups * waves // cu.simds), 1), cu.max_waves)
                assert fixed == workgroup_waves(cu, lanes, lds, waves * lanes), (arch, waves, lds)
