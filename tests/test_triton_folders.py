"""Triton's own folders opened as sessions (interop/triton_cache.py): its cache and TRITON_KERNEL_DUMP's folder,
as a program compiling two kernels left them (tests/triton_folders.py: real compiles, under the Triton the
tests run with). Each stage a variant holds is checked against the file Triton wrote, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from triton_folders import KERNELS

from irscope.named import open_named
from irscope.stages import Stage

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

FILES = {Stage.TTIR: "ttir", Stage.TTGIR: "ttgir", Stage.LLIR: "llir", Stage.PTX: "ptx"}


def _irscope(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irscope", *args], capture_output=True, text=True, cwd=cwd, env=os.environ, timeout=300
    )


def _compile_folder(root: Path, variant) -> Path:
    """The folder of Triton's that holds the variant's PTX (each compile folder holds one)."""
    found = [
        p.parent for p in root.glob(f"*/{variant.kernel.name}.ptx") if p.read_text() == variant.listings[Stage.PTX]
    ]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("which", ["cache", "dump"])
def test_each_kernel_is_a_session_of_the_stages_triton_wrote(triton_folders, which):
    root = getattr(triton_folders, which)
    named = open_named(str(root), several=True)
    assert {s.kernel.name: len(s) for s in named.sessions} == KERNELS
    for session in named.sessions:
        for variant in session:
            folder = _compile_folder(root, variant)
            for stage, ext in FILES.items():
                assert variant.listings[stage] == (folder / f"{variant.kernel.name}.{ext}").read_text(), stage
            assert variant.arch == "sm_90" and variant.resources.registers > 0  # ptxas on the PTX
            assert "ISETP" in variant.listings[Stage.SASS]  # nvdisasm on the cubin Triton wrote (not kept after)


def test_a_compiles_options_come_from_its_metadata_or_a_dumps_ttgir(triton_folders):
    cache = {s.kernel.name: s for s in open_named(str(triton_folders.cache), several=True).sessions}
    dump = {s.kernel.name: s for s in open_named(str(triton_folders.dump), several=True).sessions}
    # the cache's metadata: num_warps and num_stages; the dump's TTGIR: num_warps (num_stages is not in it)
    assert sorted(v.config.options["num_warps"] for v in cache["add_kernel"]) == [4, 8]
    assert {v.config.options["num_stages"] for v in cache["add_kernel"]} == {3}
    assert sorted(v.config.label() for v in dump["add_kernel"]) == ["num_warps=4", "num_warps=8"]
    # two compiles with the same options: told apart by the first characters of Triton's hash, their folder's name
    for session, root in ((cache["scale_kernel"], triton_folders.cache), (dump["scale_kernel"], triton_folders.dump)):
        labels = sorted(v.config.options["compile"] for v in session)
        assert len(set(labels)) == 2
        for v in session:
            assert _compile_folder(root, v).name.startswith(v.config.options["compile"])
    # the file the kernel came from is named (from the TTIR's locations), never read
    assert cache["add_kernel"].kernel.file.endswith("triton_folders.py")


def test_the_cli_opens_a_folder_and_a_kernel_of_it(triton_folders):
    cache = str(triton_folders.cache)
    several = _irscope("dump", cache)
    assert several.returncode == 2 and several.stderr.count("\n") == 1
    assert (
        "add_kernel" in several.stderr and "scale_kernel" in several.stderr and f"{cache}:add_kernel" in several.stderr
    )
    ptx = _irscope("dump", f"{cache}:add_kernel", "-c", "num_warps=8", "--stage", "ptx")
    assert ptx.returncode == 0, ptx.stderr
    folder = next(p.parent for p in triton_folders.cache.glob("*/add_kernel.json") if '"num_warps": 8' in p.read_text())
    assert ptx.stdout == (folder / "add_kernel.ptx").read_text()
    diff = _irscope("diff", f"{cache}:add_kernel", "-a", "num_warps=4", "-b", "num_warps=8", "--stage", "ttgir")
    assert diff.returncode == 0 and "warpsPerCTA = [4]" in diff.stdout and "warpsPerCTA = [8]" in diff.stdout
    held = _irscope("sweep", f"{triton_folders.dump}:add_kernel", "--json")
    assert held.returncode == 0 and "nothing compiled" in held.stderr
    rows = [json.loads(line) for line in held.stdout.splitlines()]
    assert sorted(r["num_warps"] for r in rows) == [4, 8] and all(r["registers"] > 0 for r in rows)
    # new configs need the kernel's file: the line names it, and nothing is imported
    more = _irscope("sweep", f"{cache}:add_kernel", "-s", "num_warps=2,4")
    assert more.returncode == 2 and more.stderr.count("\n") == 1 and "triton_folders.py:add_kernel" in more.stderr
    # one compile folder alone is a folder of one kernel
    one = _irscope("dump", str(folder), "--stage", "ttir")
    assert one.returncode == 0 and one.stdout == (folder / "add_kernel.ttir").read_text()


async def test_the_tui_opens_a_cache_folder(triton_folders):
    from irscope.tui.factory import make_app

    app = make_app(str(triton_folders.cache))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert {row.kernel for row in app.model.rows} == set(KERNELS)


# ------------------------------------------------------------------ MLIR_ENABLE_DUMP's output


def test_a_pass_dump_log_gives_each_compile_the_passes_irscope_records_itself(triton_folders):
    """Every pass of the log's second compile (add_kernel, BLOCK=1024, 8 warps) against irscope's own record of the
    same compile: the same passes and stages, and the same IR after each, byte for byte; only the last (never printed
    after) is left out. A log with MLIR_ENABLE_DUMP=1 also shows a pass nested in a function that irscope's own
    record, filtered to the kernel's name, does not (Triton 3.9: canonicalize-llvm-ir in llvm.func); the pass before
    such a one prints its IR as the nested pass's dump does, so only its name is compared."""
    import difflib

    from irscope.interop.mlir_log import read_log
    from irscope.ir.passes import ir_after

    compiles = read_log(triton_folders.mlir_log)
    assert [(c.kernel, c.num_warps) for c in compiles] == [
        ("add_kernel", 4),
        ("add_kernel", 8),
        ("scale_kernel", 4),
        ("scale_kernel", 4),
    ]
    logged = compiles[1].log
    kernel = f"{Path(__file__).parent.parent / 'examples' / 'triton_folders.py'}:add_kernel"
    named = open_named(kernel, signature="*fp32, *fp32, *fp32, i32, -")
    own = named.variant({"BLOCK": "1024", "num_warps": "8"}, None, passes=True).passes
    assert compiles[1].dropped.startswith(own.steps[-1].name)
    a = [(s.name, s.arg, s.stage, s.scope) for s in own.steps[:-1]]
    b = [(s.name, s.arg, s.stage, s.scope) for s in logged.steps]
    compared = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            assert tag == "insert" and all(step[3] for step in b[j1:j2]), (tag, a[i1:i2], b[j1:j2])
            continue
        for i, j in zip(range(i1, i2), range(j1, j2)):
            if j + 1 < len(b) and j + 1 >= j2 and (j + 1) not in range(j1, j2) and b[j + 1][3] and b[j + 1] not in a:
                continue  # followed by a nested pass only the log shows
            assert ir_after(own, i + 1) == ir_after(logged, j + 1), (i + 1, a[i])
            compared += 1
    assert compared >= len(a) - 2 and {s.stage for s in logged.steps} == {Stage.TTIR, Stage.TTGIR, Stage.LLIR}


def test_irscope_passes_reads_a_log(triton_folders):
    log = str(triton_folders.mlir_log)
    several = _irscope("passes", log)
    assert several.returncode == 2 and several.stderr.count("\n") == 1 and f"{log}:N" in several.stderr
    table = _irscope("passes", f"{log}:2")
    assert table.returncode == 0 and "ConvertTritonToTritonGPU" in table.stdout and "── llir" in table.stdout
    assert "is not shown" in table.stderr
    after = _irscope("passes", f"{log}:2", "--after", "tritongpu-coalesce")
    assert after.returncode == 0 and "warpsPerCTA = [8]" in after.stdout
    as_json = json.loads(_irscope("passes", f"{log}:scale_kernel", "--json").stdout or "{}")
    assert as_json == {}  # scale_kernel has two compiles: named by number
    data = json.loads(_irscope("passes", f"{log}:3", "--json").stdout)
    assert data["kernel"] == "scale_kernel" and data["compile"] == 3 and len(data["passes"]) > 40
    beyond = _irscope("passes", f"{log}:9")
    assert beyond.returncode == 2 and "compiles 1 to 4" in beyond.stderr


# ------------------------------------------------------------------ the autotuner's records and printed lines


def test_the_autotuners_cache_records_give_every_configs_figures_and_its_pick(triton_autotuning):
    from triton_folders import AUTOTUNED

    result = _irscope("autotune", str(triton_autotuning.cache), "--json")
    assert result.returncode == 0, result.stderr
    decisions = {int(d["key"].strip("()").split(",")[0]): d for d in map(json.loads, result.stdout.splitlines())}
    assert set(decisions) == set(AUTOTUNED)
    for n, (figures, picked) in AUTOTUNED.items():
        d = decisions[n]
        assert d["kernel"] == "clamp_kernel" and d["picked"] == picked
        assert [c["values"]["TILE"] for c in d["configs"]] == [128, 512, 2048]
        assert [c["ms"][0] for c in d["configs"]] == pytest.approx(figures)
    table = _irscope("autotune", str(triton_autotuning.cache))
    picked_rows = [line for line in table.stdout.splitlines() if line.startswith("*")]
    assert len(picked_rows) == 2 and "0.0120" in picked_rows[0] + picked_rows[1]


def test_the_printed_lines_give_every_config_and_the_pick(triton_autotuning):
    from triton_folders import AUTOTUNED

    result = _irscope("autotune", str(triton_autotuning.log), "--json")
    assert result.returncode == 0, result.stderr
    decisions = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d["picked"] for d in decisions] == [picked for _, picked in AUTOTUNED.values()]
    assert all(c["ms"] is None for d in decisions for c in d["configs"])  # Triton prints no time per config
    assert decisions[0]["configs"][1]["values"] == {"TILE": 512, "num_warps": 4, "num_stages": 3}
    one = _irscope("autotune", str(triton_autotuning.log), "-k", "other_kernel")
    assert one.returncode == 2 and one.stderr.count("\n") == 1 and "clamp_kernel" in one.stderr


def test_a_pass_dump_log_opens_as_sessions_of_triton_ir(triton_folders):
    """Each compile in the log a variant whose TTIR and TTGIR (the IR after each stage's last pass) are the files
    Triton wrote into its cache for the same compile, byte for byte."""
    log = str(triton_folders.mlir_log)
    folder = next(
        p.parent for p in triton_folders.cache.glob("*/add_kernel.json") if '"num_warps": 8,' in p.read_text()
    )
    for stage in ("ttir", "ttgir"):
        shown = _irscope("dump", f"{log}:2", "--stage", stage)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout == (folder / f"add_kernel.{stage}").read_text()
    named = open_named(log, several=True)
    assert {s.kernel.name: len(s) for s in named.sessions} == KERNELS
    (variant,) = open_named(f"{log}:2").session
    assert variant.passes is not None and len(variant.passes.steps) > 40


async def test_the_tui_opens_a_pass_dump_log(triton_folders):
    from irscope.tui.factory import make_app

    app = make_app(str(triton_folders.mlir_log))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert {row.kernel for row in app.model.rows} == set(KERNELS)
