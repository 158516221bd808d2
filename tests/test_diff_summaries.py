"""Diff summaries that hold (issue 44, point 6): layouts only renumbered are not changed; a first divergence
is never the canonicalizer merging two constants the configs happen to make equal; a session's fixed
values hold on both sides of a diff.

Independent sources: a real TTGIR whose layout aliases are swapped by hand (the same layouts under other
names); Triton's raw MLIR dumps (MLIR_ENABLE_DUMP, tests/test_passes_raw.py's subprocess), read here with
this file's own value numbering; the session written by ``irscope sweep``.
"""

from __future__ import annotations

import hashlib
import re

from test_passes_raw import KERNELS, _raw_dumps, module_dumps, normalised
from test_triton_axis import PREPARED, RUNNING, needs_another
from written_kernels import TILE_MM

from irscope.capturing import capture
from irscope.diffing import diff_variants
from irscope.diffing.passes import first_divergence
from irscope.diffing.summary import layout_rows, summary_lines
from irscope.frontends import resolve_kernel
from irscope.ir.dialects import stage_stats
from irscope.types import Stage

# ---------------------------------------------------------------- layouts renumbered, not changed


def _swapped(ttgir: str, pairs: list[tuple[str, str]]) -> str:
    """``ttgir`` with each pair of layout aliases exchanged everywhere they stand."""
    for a, b in pairs:
        ttgir = re.sub(rf"{re.escape(a)}\b", "\0", ttgir)
        ttgir = re.sub(rf"{re.escape(b)}\b", a, ttgir)
        ttgir = ttgir.replace("\0", b)
    return ttgir


def test_layouts_under_other_aliases_are_renumbered_and_a_changed_one_is_not(tmp_path):
    (tmp_path / "mm.py").write_text(TILE_MM)
    kernel = resolve_kernel(f"{tmp_path / 'mm.py'}:tile_mm", KERNELS["tile_mm"][1])
    a = capture(kernel, {"BM": 64, "BN": 128, "BK": 32, "num_warps": 4}, "sm_90")
    ttgir = a.listings[Stage.TTGIR]
    names = re.findall(r"^(#(?:blocked|shared)\d*) = ", ttgir, re.M)
    assert {"#blocked", "#blocked1", "#shared", "#shared1"} <= set(names)
    renamed = _swapped(ttgir, [("#blocked", "#blocked1"), ("#shared", "#shared1")])
    la, lb = stage_stats(Stage.TTGIR, ttgir).layouts, stage_stats(Stage.TTGIR, renamed).layouts
    assert {x.describe() for x in la} == {x.describe() for x in lb} and [x.name for x in la] != [x.name for x in lb]
    rows = layout_rows(la, lb)
    assert rows[1] == "layouts (ttgir): 4 renumbered, the same layouts under other aliases"
    assert not any(" A: " in r or " B: " in r for r in rows)
    assert any(r.strip().startswith("#blocked = #blocked1 ") for r in rows)
    # a layout that really changes (num_warps 4 -> 8: warpsPerCTA) is shown on both sides
    b = capture(kernel, {"BM": 64, "BN": 128, "BK": 32, "num_warps": 8}, "sm_90")
    lines = summary_lines(diff_variants(a, b, Stage.TTGIR))
    layouts = lines[lines.index(next(x for x in lines if x.startswith("layouts (ttgir)"))) :]
    assert any(" A: " in r for r in layouts) and any(" B: " in r for r in layouts)


# ---------------------------------------------------------------- first divergence: coincident constants

# operations without side effects, which CSE merges where they are alike
PURE: tuple[str, ...] = ("arith.", "math.", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range")
PURE += ("tt.addptr", "tt.get_program_id", "tt.reshape", "tt.trans", "ttg.convert_layout")


def _merged(lines: list[str]) -> list[str]:
    """The raw dump's normalised lines compared up to CSE: each pure value named by what it computes (its
    operation over its operands' names), its definition left out; every other value named in the order
    it first appears; the shared memory allocated and its offsets read as # (they follow from the tile
    shapes, which are the config's own numbers)."""
    names: dict[str, str] = {}
    # How many of names' values are %n ones, kept as they change: counting them at each use was quadratic
    # (123 million generator steps, 55 s of CPU over both configs' 136 dumps here; now 1.4 s, the same lines)
    numbered = 0

    def name(m: re.Match) -> str:
        nonlocal numbered
        found = names.get(m[0])
        if found is None:
            found = names[m[0]] = f"%n{numbered}"
            numbered += 1
        return found

    out = []
    for line in lines:
        line = re.sub(r"\b(allocation\.offset|ttg\.shared) = \d+", r"\1 = #", line.strip())
        m = re.match(r"^(%v\d+) = ([\w.]+)(.*)$", line)
        if m and m[2].startswith(PURE):
            body = re.sub(r"%v\d+", name, m[2] + m[3])
            if names.get(m[1], "").startswith("%n"):  # used before its definition: no longer a %n name
                numbered -= 1
            names[m[1]] = "%=" + hashlib.sha1(body.encode()).hexdigest()[:12]
            continue
        out.append(re.sub(r"%v\d+", name, line))
    return out


def test_configs_whose_block_sizes_coincide_do_not_part_at_the_canonicalizer(tmp_path):
    """A: BM = BN = 64, one constant and one range where B (BM = 128) has two; the canonicalizer merges
    them in A. The first pass after which the IR differs beyond that is what the raw dumps say, read up to
    CSE by this file's own numbering, and it is not canonicalize."""
    a, b = {"BM": 64, "BN": 64, "BK": 32}, {"BM": 128, "BN": 64, "BK": 32}
    dumps_a, dumps_b = (module_dumps(_raw_dumps(tmp_path, "tile_mm", c)) for c in (a, b))
    assert [x for x, _ in dumps_a] == [x for x, _ in dumps_b]
    # without CSE in view the dumps part at once (the inliner and the canonicalizer merge A's constants)
    plain = next(k for k in range(1, len(dumps_a)) if normalised(dumps_a[k][1]) != normalised(dumps_b[k][1]))
    assert dumps_a[plain - 1][0] in ("inline", "canonicalize")
    truth = next(
        (k for k in range(1, len(dumps_a)) if _merged(normalised(dumps_a[k][1])) != _merged(normalised(dumps_b[k][1]))),
        None,
    )
    assert truth is not None and truth > plain and dumps_a[truth - 1][0] not in ("inline", "canonicalize")
    (tmp_path / "mm.py").write_text(TILE_MM)
    kernel = resolve_kernel(f"{tmp_path / 'mm.py'}:tile_mm", KERNELS["tile_mm"][1])
    va, vb = (capture(kernel, {**c, "num_warps": 4, "num_stages": 3}, "sm_90", passes=True) for c in (a, b))
    found = first_divergence(va.passes, vb.passes)
    module_level = [s for s in va.passes.steps[: found.index] if not s.scope]
    assert module_level[-1].arg == dumps_a[truth - 1][0]
    assert sum(s.arg == module_level[-1].arg for s in module_level) == sum(
        x == dumps_a[truth - 1][0] for x, _ in dumps_a[:truth]
    )


# ---------------------------------------------------------------- a session's fixed values

SCALE = """\
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
"""


def _sweep(cli, tmp_path, sweep: str) -> str:
    (tmp_path / "scale.py").write_text(SCALE)
    out = tmp_path / "s"
    result = cli(
        "sweep", f"{tmp_path / 'scale.py'}:scale", "-S", "*fp32:16, *fp32:16, i32",
        "-c", "BLOCK=1024", "-s", sweep, "--arch", "sm_90", "-o", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return str(out)


def test_a_sessions_fixed_values_hold_on_both_sides_of_a_diff(cli, tmp_path):
    session = _sweep(cli, tmp_path, "num_warps=4,8")
    result = cli("diff", session, "-a", "num_warps=4", "-b", "num_warps=8")
    assert result.exit_code == 0, result.output
    assert "BLOCK=1024 num_warps=4" in result.output and "BLOCK=1024 num_warps=8" in result.output
    assert "has no value" not in result.output


@needs_another
def test_a_session_swept_over_triton_versions_diffs_by_version(cli, tmp_path):
    other = PREPARED[-1]
    session = _sweep(cli, tmp_path, f"triton={RUNNING},{other}")
    result = cli("diff", session, "-a", f"triton={RUNNING}", "-b", f"triton={other}", "--stage", "ttgir")
    assert result.exit_code == 0, result.output
    assert "has no value" not in result.output
