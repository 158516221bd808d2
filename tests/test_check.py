"""``irscope check``: a regression gate that fails on each condition a change breaks, and passes when
nothing changed, on real compiles of kernels written for it.

One kernel file, ``scale``, and three later "commits" of it: one that adds a huge register demand
(a [1024, 64] tile: spills, fewer warps, shared memory, a spill warning), one that narrows its load
(an offset of one element: 4-byte loads where there were 16), one that does not compile. Each is
compiled once for the module (the capture cache keeps them) and checked against a baseline of the first.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import triton
from click.testing import CliRunner

from irscope.frontends.triton.environments import tritons_dir

SIGNATURE = "*fp32:16, *fp32:16, i32:16, 1024"

HEADER = """
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
"""
BEFORE = (
    HEADER
    + """
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 2.0, mask=mask)
"""
)
# every thread holds 512 floats of a [1024, 64] tile: ptxas spills at its 255 registers
SPILLS = (
    HEADER
    + """
    x = tl.load(x_ptr + offs, mask=mask)
    tile = tl.load(x_ptr + offs[:, None] * 64 + tl.arange(0, 64)[None, :], mask=mask[:, None])
    y = tile * tl.sum(tile, 1)[:, None]
    tl.store(out_ptr + offs, x * tl.max(y, 1), mask=mask)
"""
)
# one element off: no longer 16-byte aligned, so each thread loads 4 bytes at a time
NARROWS = (
    HEADER
    + """
    x = tl.load(x_ptr + offs + 1, mask=mask)
    tl.store(out_ptr + offs, x * 2.0, mask=mask)
"""
)
BREAKS = (
    HEADER
    + """
    x = tl.load(x_ptr + offs + tl.arange(0, 3), mask=mask)
    tl.store(out_ptr + offs, x * 2.0, mask=mask)
"""
)


def _invoke(*args: str):
    from irscope.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _kernel(root: Path, name: str, source: str) -> str:
    folder = root / name
    folder.mkdir()
    (folder / "k.py").write_text(textwrap.dedent(source))
    return f"{folder / 'k.py'}:scale"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    root = tmp_path_factory.mktemp("check")
    return {
        name: _kernel(root, name, src)
        for name, src in [("before", BEFORE), ("spills", SPILLS), ("narrows", NARROWS), ("breaks", BREAKS)]
    }


@pytest.fixture(scope="module")
def baseline(kernels, tmp_path_factory):
    path = tmp_path_factory.mktemp("baseline") / "scale.check.json"
    result = _invoke("check", kernels["before"], "-S", SIGNATURE, "--write-baseline", str(path))
    assert result.exit_code == 0, result.stderr
    assert "wrote the facts of 1 variant" in result.stderr
    return path


def _rows(result) -> dict[str, dict]:
    data = json.loads(result.stdout)
    return {r["condition"]: r for r in data["rows"]}


def _check(kernel: str, *args: str):
    return _invoke("check", kernel, "-S", SIGNATURE, "--json", *args)


ALL_STAGES = ("--unchanged", "ttir", "--unchanged", "ttgir", "--unchanged", "llir", "--unchanged", "ptx")


def test_the_baseline_file_holds_the_facts_of_the_variant(baseline):
    data = json.loads(baseline.read_text())
    assert data["format"] == "irscope-check-baseline/1" and data["kernel"] == "scale"
    (row,) = data["variants"]
    assert row["arch"] == "sm_90" and row["config"]["constexprs"] == {"BLOCK": 1024}
    facts = row["facts"]
    assert facts["ok"] and facts["spills"] == 0 and facts["shared"] == 0 and facts["warps_per_sm"] == 64
    assert facts["load_widths"] == [16] and facts["store_widths"] == [16] and facts["findings"] == []
    assert facts["compiler"] == f"triton {triton.__version__}"
    assert set(facts["listings"]) >= {"ttir", "ttgir", "llir", "ptx"}


def test_nothing_changed_passes_every_condition(kernels, baseline):
    result = _check(
        kernels["before"], "--baseline", str(baseline), "--max-registers", "+0", "--max-shared", "+0", *ALL_STAGES
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    rows = _rows(result)
    assert {name: r["verdict"] for name, r in rows.items()} == {
        name: "passed"
        for name in ["compiles", "registers", "spills", "shared", "occupancy", "access-width", "findings"]
        + ["listing:ttir", "listing:ttgir", "listing:llir", "listing:ptx"]
    }
    assert json.loads(result.stdout)["ok"] is True


def test_the_same_kernel_in_another_folder_has_the_same_listings(kernels, baseline, tmp_path):
    # a baseline written on a laptop checks in CI's checkout: the kernel's path is a location, normalised away
    moved = _kernel(tmp_path, "elsewhere", BEFORE)
    assert _check(moved, "--baseline", str(baseline), *ALL_STAGES).exit_code == 0


def test_a_change_that_spills_fails_spills_occupancy_registers_shared_and_a_new_warning(kernels, baseline):
    result = _check(
        kernels["spills"],
        "--baseline",
        str(baseline),
        "--max-registers",
        "+16",
        "--max-shared",
        "0",
        "--unchanged",
        "ptx",
    )
    assert result.exit_code == 1, result.stderr
    rows = _rows(result)
    failed = {name for name, r in rows.items() if r["verdict"] == "failed"}
    assert failed == {"registers", "spills", "shared", "occupancy", "findings", "listing:ptx"}
    assert rows["spills"]["baseline"] == "0 B" and int(rows["spills"]["current"].split()[0]) > 0
    assert rows["registers"]["current"] == "255" and "above the bound 34" in rows["registers"]["detail"]
    assert rows["occupancy"]["baseline"] == "64 warps/SM"
    assert "spills: registers spill to local memory" in rows["findings"]["detail"]
    assert rows["access-width"]["verdict"] == "passed"


def test_a_change_that_narrows_a_load_fails_access_width_and_a_new_warning(kernels, baseline):
    result = _check(kernels["narrows"], "--baseline", str(baseline))
    assert result.exit_code == 1
    rows = _rows(result)
    assert {n for n, r in rows.items() if r["verdict"] == "failed"} == {"access-width", "findings"}
    assert rows["access-width"]["detail"] == "narrower global loads 16 B -> 4 B"
    assert "vectorization: global loads are not vectorised (N bytes per thread)" in rows["findings"]["detail"]
    # the same check, left to the bounds a baseline does not set, passes: each condition is its own
    assert (
        _check(
            kernels["narrows"], "--baseline", str(baseline), "--ignore", "access-width", "--ignore", "findings"
        ).exit_code
        == 0
    )


def test_a_change_that_does_not_compile_fails_compiles(kernels, baseline):
    result = _check(kernels["breaks"], "--baseline", str(baseline))
    assert result.exit_code == 1
    rows = _rows(result)
    assert list(rows) == ["compiles"]
    assert rows["compiles"]["baseline"] == "ok" and "arange" in rows["compiles"]["detail"]


def test_the_human_table_names_each_broken_condition_and_the_count(kernels, baseline):
    result = _invoke("check", kernels["narrows"], "-S", SIGNATURE, "--baseline", str(baseline))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any("access-width" in line and "FAIL" in line and "16 B" in line for line in lines)
    assert lines[-1] == f"1 variant, 5 conditions against {baseline}: 2 broke"


def test_bounds_alone_need_no_baseline(kernels):
    assert _check(kernels["before"], "--max-registers", "64", "--max-spills", "0").exit_code == 0
    result = _check(kernels["before"], "--max-registers", "16")
    assert result.exit_code == 1
    assert _rows(result)["registers"]["detail"] == "above the bound 16 (16)"


def test_junit_xml_and_github_annotations_carry_each_failure(kernels, baseline, tmp_path, monkeypatch):
    monkeypatch.chdir(Path(kernels["narrows"].rpartition(":")[0]).parent.parent)  # the checkout CI runs in
    junit = tmp_path / "check.xml"
    result = _invoke(
        "check", kernels["narrows"], "-S", SIGNATURE, "--baseline", str(baseline), "--github", "--junit", str(junit)
    )
    assert result.exit_code == 1
    suites = ET.fromstring(junit.read_text())
    assert suites.get("tests") == "5" and suites.get("failures") == "2"
    failed = {case.get("name") for case in suites.iter("testcase") if case.find("failure") is not None}
    assert failed == {"access-width", "findings"}
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 2
    assert annotations[0].startswith("::error file=narrows/k.py,title=")
    assert "title=irscope check%3A access-width (scale)::scale BLOCK=1024" in annotations[0]


def test_a_session_is_a_baseline_and_a_sweep_checks_each_config(kernels, tmp_path):
    session = tmp_path / "session"
    sweep = _invoke("sweep", kernels["before"], "-S", SIGNATURE, "-s", "num_warps=4,8", "-o", str(session))
    assert sweep.exit_code == 0, sweep.stderr
    same = _check(kernels["before"], "-s", "num_warps=4,8", "--baseline", str(session))
    assert same.exit_code == 0 and json.loads(same.stdout)["variants"] == 2
    narrowed = _check(kernels["narrows"], "-s", "num_warps=4,8", "--baseline", str(session))
    assert narrowed.exit_code == 1
    rows = json.loads(narrowed.stdout)["rows"]
    assert sorted(r["config"] for r in rows if r["condition"] == "access-width" and r["verdict"] == "failed") == [
        "BLOCK=1024 num_warps=4 num_stages=3",
        "BLOCK=1024 num_warps=8 num_stages=3",
    ]
    # the session itself is checked, with no compile, when it is KERNEL
    assert _check(str(session), "--baseline", str(session)).exit_code == 0


def test_a_variant_the_baseline_lacks_fails(kernels, baseline):
    result = _check(kernels["before"], "-c", "num_warps=8", "--baseline", str(baseline))
    assert result.exit_code == 1
    assert _rows(result)["baseline"]["verdict"] == "failed"


def test_runtime_is_skipped_without_a_gpu(kernels, baseline, no_gpu):
    result = _check(kernels["before"], "--baseline", str(baseline), "--runtime-tolerance", "5")
    assert result.exit_code == 0
    assert _rows(result)["runtime"] == {**_rows(result)["runtime"], "verdict": "skipped", "detail": "no GPU here"}


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("--max-registers", "+4"), "--max-registers compares with a baseline"),
        ((), "nothing to check"),
        (("--max-spills", "0", "--json", "--github"), "choose one"),
        (("--max-spills", "lots"), "is not N or +N"),
        (("--max-spills", "99999999999"), "is not N or +N"),
    ],
)
def test_a_check_asked_wrongly_is_one_line_and_exit_2(kernels, args, fragment):
    from expect import one_line_error

    one_line_error(_invoke("check", kernels["before"], "-S", SIGNATURE, *args), 2, fragment)


OTHERS = [v for v in ("3.5.1", "3.7.1", "3.8.0", "3.9.0") if v != triton.__version__]
PREPARED = [v for v in OTHERS if (tritons_dir() / v / "triton" / "__init__.py").is_file()]


@pytest.mark.skipif(not PREPARED, reason="no other Triton prepared in $IRSCOPE_TRITONS (.ci/run makes them)")
def test_a_triton_upgrade_is_checked_against_the_baseline_of_the_triton_before(kernels, baseline):
    newest = PREPARED[-1]
    result = _check(kernels["before"], "-c", f"triton={newest}", "--baseline", str(baseline), *ALL_STAGES)
    rows = _rows(result)
    assert "baseline" not in rows  # paired with the running Triton's variant of the same config
    changed = [n for n, r in rows.items() if r["verdict"] == "failed"]
    assert changed and all(n.startswith("listing:") for n in changed), rows
    assert f"(triton {triton.__version__} -> triton {newest})" in rows[changed[0]]["detail"]
    assert result.exit_code == 1
