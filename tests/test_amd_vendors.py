"""One Triton kernel built for NVIDIA (sm_90) and AMD (gfx942): the diff meets at TTGIR, and its summary sets
each vendor's machine code side by side per Python line, every count held to its own listing."""

from __future__ import annotations

import re

import pytest
from written_kernels import MM_UNIT_B, TILE_MM

from irscope.capturing import capture
from irscope.diffing import diff_variants
from irscope.frontends import resolve_kernel
from irscope.stages import Stage

MM = {"BM": "64", "BN": "64", "BK": "32"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("vendors") / "tile_mm.py"
    path.write_text(TILE_MM)
    kernel = resolve_kernel(f"{path}:tile_mm", MM_UNIT_B)
    return path, [capture(kernel, MM, arch, compile_timeout=None) for arch in ("sm_90", "gfx942")]


def test_each_vendors_machine_code_per_python_line_is_its_own_listings(built):
    _, (nvidia, amd) = built
    d = diff_variants(nvidia, amd, Stage.TTGIR)
    assert d.across is not None and (d.across.stage_a, d.across.stage_b) == (Stage.SASS, Stage.AMDGCN)
    rows = {row.line: row for row in d.across.lines}
    source = nvidia.listings[Stage.SOURCE].splitlines()
    loads = [n for n in rows if "tl.load(" in source[n - 1]]
    dot = next(n for n in rows if "tl.dot(" in source[n - 1])
    assert len(loads) == 2
    # AMD: every global load of the listing sits on the two tl.load lines, every v_mfma on the tl.dot line
    amd_text = amd.listings[Stage.AMDGCN]
    amd_loads = len(re.findall(r"^\t(?:global|buffer)_load_dwordx4 ", amd_text, re.M))
    assert (
        sum(int(x.rsplit("x", 1)[1]) for n in loads for x in rows[n].access_b if x.startswith("load 16 B")) == amd_loads
    )
    mfma = len(re.findall(r"^\tv_mfma_f32_32x32x8_f16 ", amd_text, re.M))
    assert rows[dot].matrix_b == (f"v_mfma_f32_32x32x8_f16 x{mfma}",) and mfma > 0
    # NVIDIA: Hopper's warpgroup MMA, counted where the SASS's own line table puts it
    hgmma = len(re.findall(r"\bHGMMA\.64x64x16\.F32\b", nvidia.listings[Stage.SASS]))
    assert sum(int(x.rsplit("x", 1)[1]) for row in rows.values() for x in row.matrix_a) == hgmma > 0
    summary = d.summary()
    assert "across vendors, by Python line (sass of A -> amdgcn of B" in summary
    assert re.search(r"#mma\s+A: nvidia_mma .*\n\s+B: amd_mfma .*instrShape=\[32, 32, 8\]", summary)


def test_diff_across_vendors_defaults_to_ttgir(built, run_irscope):
    path, _ = built
    args = ["diff", f"{path}:tile_mm", "-S", MM_UNIT_B, "-c", "BM=64", "-c", "BN=64", "-c", "BK=32"]
    done = run_irscope(*args, "-a", "arch=sm_90", "-b", "arch=gfx942")
    assert done.returncode == 0, done.stderr
    assert "across vendors, by Python line" in done.stdout and "matrix: none -> v_mfma_f32_32x32x8_f16" in done.stdout
    assert re.search(r"^--- A tile_mm .* · sm_90 \(ttgir, normalised\)$", done.stdout, re.M)
