"""Normalising listings and diffing variants."""

from __future__ import annotations

import re

import pytest

from irscope.capturing import capture
from irscope.diffing import diff_variants
from irscope.ir.dialects import normalize
from irscope.types import Stage

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

KERNELS: list[tuple[str, dict[str, int]]] = [("square_kernel", {}), ("softmax_kernel", {}), ("matmul_kernel", {})]
# The stages a built-in Triton kernel has (the Gluon IR is a Gluon kernel's: tests/test_gluon.py)
TRITON_STAGES = [s for s in Stage.compiled() if any(s.spec.made_for(v, "triton") for v in ("nvidia", "amd"))]


def _variant(name, overrides, arch="sm_90"):
    return capture(name, overrides, arch=arch)


def _variant_with(stage, name, overrides):
    """The built-in compiled for a GPU whose compile has ``stage``: gfx942 for AMDGCN, else sm_90."""
    return _variant(name, overrides, "gfx942" if stage.spec.vendor == "amd" else "sm_90")


def _renumber(stage: Stage, text: str) -> str:
    """A copy of ``text`` with every SSA value, register and label renamed and every location moved."""
    if stage is Stage.PTX:
        text = re.sub(r"%(r|rd|p|f|rs|fd)(\d+)\b", lambda m: f"%{m[1]}{int(m[2]) * 3 + 7}", text)
        text = re.sub(r"\$L__BB0_(\d+)", lambda m: f"$L__BB0_{int(m[1]) + 40}", text)
        return re.sub(r"\.loc\t(\d+) (\d+) (\d+)", lambda m: f".loc\t{m[1]} {int(m[2]) + 5} {m[3]}", text)
    if stage in (Stage.TTIR, Stage.TTGIR):
        text = re.sub(r"%(\d+)\b", lambda m: f"%{int(m[1]) + 100}", text)
        text = re.sub(r"%([a-z_]+)_(\d+)\b", lambda m: f"%{m[1]}_{int(m[2]) + 9}", text)
        return re.sub(r'":(\d+):(\d+)\)', lambda m: f'":{int(m[1]) + 3}:{m[2]})', text)
    if stage is Stage.LLIR:
        text = re.sub(r"%(\d+)\b", lambda m: f"%{int(m[1]) + 1000}", text)
        text = re.sub(r"^(\d+):", lambda m: f"{int(m[1]) + 1000}:", text, flags=re.M)
        return re.sub(r"!dbg !(\d+)", lambda m: f"!dbg !{int(m[1]) + 50}", text)
    if stage is Stage.AMDGCN:  # physical registers, shifted as a register allocator might (ranges too)
        text = re.sub(r"(?<![\w.])([vs])(\d+)\b", lambda m: f"{m[1]}{int(m[2]) + 40}", text)
        text = re.sub(r"(?<![\w.])([vs])\[(\d+):(\d+)\]", lambda m: f"{m[1]}[{int(m[2]) + 40}:{int(m[3]) + 40}]", text)
        text = re.sub(r"\.LBB0_(\d+)", lambda m: f".LBB0_{int(m[1]) + 40}", text)
        text = re.sub(r"\.Ltmp(\d+)", lambda m: f".Ltmp{int(m[1]) + 7}", text)
        return re.sub(r"\.loc\t(\d+) (\d+) (\d+)", lambda m: f".loc\t{m[1]} {int(m[2]) + 5} {m[3]}", text)
    if stage is Stage.SASS:
        text = re.sub(r"\bR(\d+)\b", lambda m: f"R{(int(m[1]) + 17) % 256}", text)
        text = re.sub(r"\.L_x_(\d+)", lambda m: f".L_x_{int(m[1]) + 11}", text)
        return re.sub(r"line (\d+)", lambda m: f"line {int(m[1]) + 2}", text)
    raise AssertionError(stage)


@pytest.mark.parametrize("name, overrides", KERNELS)
@pytest.mark.parametrize("stage", TRITON_STAGES)
def test_normalising_is_idempotent(name, overrides, stage):
    text = _variant_with(stage, name, overrides).listings[stage]
    once = "\n".join(line.text for line in normalize(stage, text))
    twice = "\n".join(line.text for line in normalize(stage, once))
    assert once == twice


@pytest.mark.parametrize("name, overrides", KERNELS)
@pytest.mark.parametrize("stage", TRITON_STAGES)
def test_a_listing_diffed_against_a_renumbered_copy_of_itself_is_empty(name, overrides, stage):
    from dataclasses import replace

    v = _variant_with(stage, name, overrides)
    copy = replace(v, listings={**v.listings, stage: _renumber(stage, v.listings[stage])})
    assert copy.listings[stage] != v.listings[stage]
    assert not diff_variants(v, copy, stage, summary_stages=()).changed
    assert diff_variants(v, copy, stage, raw=True, summary_stages=()).changed


def test_normalising_drops_locations_and_debug_tables_but_keeps_instructions():
    v = _variant("softmax_kernel", {})
    ptx = [line.text for line in normalize(Stage.PTX, v.listings[Stage.PTX])]
    assert not any(t.startswith((".loc", ".file", ".section")) or "//" in t for t in ptx)
    assert any(t.startswith("ld.global") or "ld.global" in t for t in ptx)
    ttgir = [line.text for line in normalize(Stage.TTGIR, v.listings[Stage.TTGIR])]
    assert not any("loc(" in t or t.startswith("#loc") for t in ttgir)
    llir = [line.text for line in normalize(Stage.LLIR, v.listings[Stage.LLIR])]
    assert not any("!dbg" in t or t.startswith("!") for t in llir)


def test_a_local_memory_directive_is_kept_where_location_directives_go():
    """`.local` (a spill's or a local array's stack) starts as `.loc` does: it is a real change and
    stays."""
    from irscope.ir.normalize import clean_ptx

    text = (
        '\t.loc\t1 17 0\n\t.file\t1 "k.py"\n\t.local .align 16 .b8 \t__local_depot0[64];\n'
        "\t.loc 2 3\n\t.locals_are_not_a_directive;\n\tst.local.u32 [%rd1], %r1;\n"
    )
    kept = [".local .align 16 .b8 __local_depot0[64];", ".locals_are_not_a_directive;", "st.local.u32 [%rd1], %r1;"]
    assert [(x.index, x.text) for x in clean_ptx(text)] == list(zip([2, 4, 5], kept))


def test_block_size_changes_vector_width_in_the_summary():
    a = _variant("square_kernel", {"BLOCK_SIZE": 128, "n_cols": 1024})
    b = _variant("square_kernel", {"BLOCK_SIZE": 1024, "n_cols": 1024})
    d = diff_variants(a, b, Stage.PTX)
    sa, sb = d.stats[Stage.PTX]
    assert sa.access_counts("load") == {"ld.global.b32": 1}
    assert sb.access_counts("load") == {"ld.global.v4.b32": 2}
    assert (sa.widest("load"), sb.widest("load")) == (4, 16)
    la, lb = d.stats[Stage.TTGIR][0].layouts, d.stats[Stage.TTGIR][1].layouts
    assert la[0].params["sizePerThread"] == "[1]" and lb[0].params["sizePerThread"] == "[4]"
    line = next(c for c in d.by_line if "tl.load" in c.source)
    assert line.b > line.a


def test_num_warps_changes_vector_width_too():
    a = _variant("square_kernel", {"BLOCK_SIZE": 1024, "num_warps": 8, "n_cols": 1024})
    b = _variant("square_kernel", {"BLOCK_SIZE": 1024, "num_warps": 1, "n_cols": 1024})
    sa, sb = diff_variants(a, b, Stage.PTX).stats[Stage.PTX]
    assert sa.access_counts("load") == {"ld.global.v4.b32": 1}
    assert sb.access_counts("load") == {"ld.global.v4.b32": 8}
    ta, tb = diff_variants(a, b, Stage.TTGIR).stats[Stage.TTGIR]
    assert ta.layouts[0].params["warpsPerCTA"] == "[8]" and tb.layouts[0].params["warpsPerCTA"] == "[1]"


def test_diff_across_archs_shows_mma_becoming_wgmma():
    a = _variant("matmul_kernel", {}, arch="sm_80")
    b = _variant("matmul_kernel", {}, arch="sm_90")
    d = diff_variants(a, b, Stage.PTX)
    ca, cb = d.stats[Stage.PTX][0].opcode_counts(), d.stats[Stage.PTX][1].opcode_counts()
    assert any(op.startswith("mma.sync") for op in ca) and not any(op.startswith("mma.sync") for op in cb)
    assert any(op.startswith("wgmma.mma_async") for op in cb)
    kinds_b = {x.kind for x in d.stats[Stage.TTGIR][1].layouts}
    assert "nvidia_mma" in kinds_b


def test_a_jit_helpers_symbol_loses_its_specialisation_so_a_block_size_change_is_not_a_renamed_call(cli, tmp_path):
    """tl.sum/tl.max over a BLOCK-long tensor calls a helper whose symbol spells BLOCK (and, by Triton
    version, spells it differently): before inlining, a block size change renamed every call, and
    passes --first-divergence answered "before the first pass"."""
    path = tmp_path / "norm.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.jit\ndef row_norm(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=0.0)\n"
        "    tl.store(out_ptr + tl.program_id(0), tl.sum(x * x, axis=0) / tl.max(tl.abs(x), axis=0))\n"
    )
    result = cli(
        "passes",
        f"{path}:row_norm",
        "-S",
        "*fp32, *fp32, i32, -",
        "--arch",
        "sm_90",
        "--first-divergence",
        "-a",
        "BLOCK=256",
        "-b",
        "BLOCK=1024",
    )
    assert result.exit_code == 0, result.stderr
    first = next(line for line in result.stdout.splitlines() if line.startswith("first divergence"))
    assert "before the first pass" not in first, first
    assert "pass " in first, first


def test_the_diff_header_shows_where_two_sessions_signatures_differ(cli, tmp_path):
    """One config of one kernel, captured with stride_bn declared the constant 1 and declared an i32."""
    import json

    from written_kernels import MM_STRIDED_B, MM_UNIT_B, TILE_MM

    path = tmp_path / "tile_mm.py"
    path.write_text(TILE_MM)
    config = ["-c", "BM=64", "-c", "BN=64", "-c", "BK=32"]
    for name, signature in (("unit", MM_UNIT_B), ("strided", MM_STRIDED_B)):
        swept = cli("sweep", f"{path}:tile_mm", "-S", signature, *config, "-o", str(tmp_path / name))
        assert swept.exit_code == 0, swept.stderr
    sides = [str(tmp_path / "unit"), *config, "-b", f"session={tmp_path / 'strided'}"]
    sides += ["-b", "BM=64", "-b", "BN=64", "-b", "BK=32"]
    shown = cli("diff", *sides)
    assert shown.exit_code == 0, shown.stderr
    header = shown.stdout.split("\n\n")[0].splitlines()
    assert header[0][3:] == header[1][3:]  # the same kernel and config: the titles alone tell nothing apart
    assert re.split(r"\s+", header[2]) == ["signature", "differs", "A", "B"]
    assert header[3].split() == ["stride_bn", "constexpr", "i32"] and len(header) == 4
    as_json = json.loads(cli("diff", *sides, "--json").stdout)
    assert as_json["a"]["signature"]["stride_bn"] == "constexpr" and as_json["b"]["signature"]["stride_bn"] == "i32"
    assert as_json["a"]["signature"]["a_ptr"] == as_json["b"]["signature"]["a_ptr"] == "*fp16:16"
    # Triton's own TTIR agrees: the constant is no argument of A's function, an argument of B's.
    ttir = [cli("dump", str(tmp_path / s), *config, "--stage", "ttir").stdout for s in ("unit", "strided")]
    heads = [next(line for line in t.splitlines() if "tt.func public @tile_mm" in line) for t in ttir]
    assert "%stride_bn" not in heads[0] and "%stride_bn: i32" in heads[1]


@pytest.mark.parametrize("form", ["comma", "repeated"])
def test_diff_and_passes_take_a_config_in_the_same_forms(cli, tmp_path, form):
    a = ["-a", "BLOCK_SIZE=128,num_warps=4"] if form == "comma" else ["-a", "BLOCK_SIZE=128", "-a", "num_warps=4"]
    b = ["-b", "BLOCK_SIZE=1024,num_warps=8"] if form == "comma" else ["-b", "BLOCK_SIZE=1024", "-b", "num_warps=8"]
    shown = cli("diff", "square_kernel", *a, *b, "-c", "n_cols=1024")
    assert shown.exit_code == 0, shown.stderr
    titles = shown.stdout.splitlines()[:2]
    assert titles == [
        "A  square_kernel BLOCK_SIZE=128 num_warps=4 num_stages=3 · sm_90",
        "B  square_kernel BLOCK_SIZE=1024 num_warps=8 num_stages=3 · sm_90",
    ]
    divergence = cli("passes", "square_kernel", "--first-divergence", *a, *b, "-c", "n_cols=1024")
    assert divergence.exit_code == 0, divergence.stderr
    assert "BLOCK_SIZE=128" in divergence.stdout and "num_warps=8" in divergence.stdout


def test_a_comma_in_a_session_folders_name_stays_in_it(cli, tmp_path):
    folder = tmp_path / "runs,square"
    assert cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,1024", "-o", str(folder)).exit_code == 0
    shown = cli("diff", "square_kernel", "-a", f"session={folder},BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024")
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout.startswith("A  square_kernel BLOCK_SIZE=128 ")
