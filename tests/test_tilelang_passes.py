"""TileLang's lowering, pass by pass: the passes irscope records are those TileLang's own ``TL_LOWER_TRACE`` lists.

The reference runs in a process of its own with nothing of irscope imported: ``TL_LOWER_TRACE=terminal`` (its
trace folder set with ``tilelang.tools.lower_trace.enable``, one per kernel) around ``tilelang.lower`` for
sm_90a, as irscope lowers; it prints one line per pass (``[lower_trace] phase/NN_Name: CHANGED``, NN the order
the passes started) and keeps each pass's TIR after it in ``.run_records/<run>/<phase>/NN_Name_after.tir``. Those are compared with
irscope's record of the same compile: the names in order, and the TIR after every pass byte for byte (with the
newline a listing ends with). The
kernels: the three of examples/tilelang_kernels.py and a scaled transpose written here. Skipped without
tilelang.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HAS_TILELANG = importlib.util.find_spec("tilelang") is not None
pytestmark = pytest.mark.skipif(not HAS_TILELANG, reason="needs tilelang (pip install irscope[tilelang])")

KERNELS = (Path(__file__).resolve().parent.parent / "examples" / "tilelang_kernels.py").read_text()
OWN = textwrap.dedent("""
    @tilelang.jit
    def scaled_transpose(M=256, N=256, block=64, threads=128):
        @T.prim_func
        def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((N, M), "float32")):
            with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=threads) as (bx, by):
                tile = T.alloc_shared((block, block), "float32")
                T.copy(X[by * block, bx * block], tile)
                for i, j in T.Parallel(block, block):
                    Y[bx * block + i, by * block + j] = tile[j, i] * 2.0

        return main
""")
NAMES = ("add", "row_max", "matmul", "scaled_transpose")

REFERENCE = textwrap.dedent("""
    import importlib.util, sys
    import tilelang
    from tilelang import tvm
    from tilelang.tools import lower_trace
    spec = importlib.util.spec_from_file_location("kernels", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    for name in sys.argv[3:]:
        lower_trace.enable(mode="terminal", trace_dir=f"{sys.argv[2]}/{name}")
        print(f"=== {name}", flush=True)
        with tvm.transform.PassContext(opt_level=3, config={"tl.emit_line_directives": True}), target:
            tilelang.lower(getattr(module, name).get_tir(), target=target)
        print(flush=True)
""")
# [lower_trace] pipeline_cuda/24_LayoutInference: CHANGED     (colours around the verdict; a diff printed before
# it in terminal mode ends with no newline, so a line may start anywhere)
# .file	1 "/tmp/tmpab12cd/tvm_kernels.cu"   (the temporary file TileLang's nvcc call compiles)
CU_FILE = re.compile(r'^\t\.file\t1 "[^"]*tvm_kernels[^"]*\.cu"$', re.MULTILINE)
TRACE_LINE = re.compile(r"\[lower_trace\] (?P<phase>[\w.-]+)/(?P<index>\d+)_(?P<name>[^\s:]+): ")


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tilelang_passes") / "tl_pass_kernels.py"
    path.write_text(KERNELS + "\n" + OWN)
    return path


@pytest.fixture(scope="module")
def traced(kernels_file, tmp_path_factory):
    """TileLang's own trace of each kernel: ``{name: [(name, TIR after it), ...]}``, codegen's step left out."""
    return traced_passes(REFERENCE, tmp_path_factory.mktemp("lower_trace"), str(kernels_file), *NAMES)


def traced_passes(script: str, out: Path, kernels: str, *args: str) -> dict[str, list[tuple[str, str]]]:
    """Run a REFERENCE-shaped ``script`` (``kernels`` file, ``out`` folder, ``args``) in a process of its own and
    read its trace: ``{kernel: [(pass, TIR after it), ...]}`` from its output (``=== NAME`` before each kernel's
    trace) and its trace folders under ``out``; codegen's step left out."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TL_LOWER_TRACE")}
    env["TILELANG_CACHE_DIR"] = str(out / "cache")  # TileLang's own compiles, where the script makes any
    run = subprocess.run(
        [sys.executable, "-c", script, kernels, str(out), *args],
        capture_output=True,
        text=True,
        cwd=out,
        env=env,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    traces: dict[str, list[tuple[str, str]]] = {}
    for part in run.stdout.split("=== ")[1:]:
        kernel = part.split("\n", 1)[0]
        (run_dir,) = (out / kernel).glob("*/.run_records/run_*")
        # printed as each pass ends (a nested pass before the one it ran in); numbered as each starts
        printed = sorted((int(m["index"]), m["phase"], m["name"]) for m in TRACE_LINE.finditer(part))
        traces[kernel] = [
            (name, (run_dir / phase / f"{index:02d}_{name}_after.tir").read_text(encoding="utf-8"))
            for index, phase, name in printed
            if phase != "codegen"
        ]
    return traces


@pytest.fixture(scope="module")
def recorded(kernels_file):
    """Each kernel captured with its passes, in this process (TileLang imported once), uncached; and the
    matmul with three pipeline stages, for the divergence."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel

    out = {}
    for name, overrides in [(n, {}) for n in NAMES] + [("matmul_3", {"num_stages": 3})]:
        kernel = resolve_kernel(f"{kernels_file}:{name.split('_3')[0]}")
        v = capture(kernel, overrides, "sm_90", compile_timeout=None, use_cache=False, passes=True)
        assert v.ok, v.error
        out[name] = v
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_passes_are_tilelangs_own_trace_in_order_with_the_tir_after_each(recorded, traced, name):
    from irscope.frontends.tilelang.stages import LOWERED_TIR
    from irscope.ir.passes import ir_after_each

    log = recorded[name].passes
    reference = traced[name]
    assert len(reference) > 70  # the CUDA pipeline, the host/device split and codegen's preparation
    assert [s.name for s in log.steps] == [n for n, _ in reference]
    texts = ir_after_each(log)
    assert texts[1:] == [tir + "\n" for _, tir in reference]  # a listing's last newline added (TVMScript has none)
    # The lowered TIR stage is the device module lower() hands on: the IR after the device Filter (the last
    # one); the passes after it (LowerIntrin, Simplify, ...) prepare it for the code generator.
    last_filter = max(s.index for s in log.steps if s.name == "Filter")
    assert texts[last_filter] == recorded[name].listings[LOWERED_TIR] + "\n"
    # A pass nested in another (HoistIfThenElse's three) starts from its parent's IR, not from the IR the
    # pass listed before it left: the step keeps where it started, and the diff of a pass is against that.
    nested = [s for s in log.steps if s.scope]
    assert {s.scope for s in nested} >= {"HoistIfThenElse", "SplitHostDevice"}
    device_filter = log.steps[last_filter - 1]
    assert device_filter.rebase is not None  # it starts from the module the host Filter also started from
    assert device_filter.lines_removed > 0 and device_filter.lines_added == 0  # and only drops the host's code


def test_recording_the_passes_changes_nothing_the_compile_makes(recorded, kernels_file):
    """The same kernel compiled without recording: its TIR, lowered TIR and CUDA byte-equal, its PTX too but
    for the ``.file`` naming the temporary ``.cu`` TileLang's nvcc call compiles (a new one each time)."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.types import Stage

    plain = capture(
        resolve_kernel(f"{kernels_file}:scaled_transpose"), {}, "sm_90", compile_timeout=None, use_cache=False
    )
    v = recorded["scaled_transpose"]
    assert plain.passes is None and v.passes is not None
    tilelang_stages = [s for s in v.listings if s.value.startswith("tilelang_")]
    assert len(tilelang_stages) == 3
    assert all(plain.listings[s] == v.listings[s] for s in tilelang_stages)
    assert CU_FILE.sub("", plain.listings[Stage.PTX]) == CU_FILE.sub("", v.listings[Stage.PTX])
    assert plain.resources == v.resources


def _masked(text: str) -> list[str]:
    """The test's own reading of two configs' TIR: every integer read as #, blank and comment lines out."""
    lines = (re.sub(r"(?<![\w#.])\d+\b", "#", ln).strip() for ln in text.splitlines())
    return [ln for ln in lines if ln and not ln.startswith("#")]


def test_the_first_divergence_of_two_configs_is_the_pass_where_their_tir_first_differs(recorded):
    from irscope.diffing.passes import first_divergence
    from irscope.ir.passes import ir_after_each

    a, b = recorded["matmul"].passes, recorded["matmul_3"].passes
    texts_a, texts_b = ir_after_each(a), ir_after_each(b)
    assert texts_a[0] != texts_b[0]  # num_stages is in the TIR before any pass, as a number
    found = first_divergence(a, b)
    mine = next(n for n in range(len(texts_a)) if _masked(texts_a[n]) != _masked(texts_b[n]))
    assert found.index == mine and mine > 0
    assert found.step_a.name == a.steps[mine - 1].name
    assert found.between  # A's TIR against B's after that pass


@pytest.fixture(scope="module")
def session(recorded, tmp_path_factory):
    """A session of the two matmul variants with their passes, written by irscope's own writer."""
    from irscope.frontends import resolve_kernel
    from irscope.session import Session

    v = recorded["matmul"]
    kernel = resolve_kernel(f"{v.kernel.file}:matmul")
    out = tmp_path_factory.mktemp("tl_pass_session") / "s"
    s = Session.create(out, v.kernel, kernel.source(), kernel.parameter_table(), frontend="tilelang")
    s.data["request"] = {"sweep": {"num_stages": [2, 3]}, "fixed": {}, "arch": "sm_90"}
    for variant in (v, recorded["matmul_3"]):
        s.add(variant)
    s.save()
    return out


def test_irscope_passes_prints_them_and_the_first_divergence_from_a_session(cli, session, recorded):
    from irscope.diffing.passes import first_divergence

    log = recorded["matmul"].passes
    result = cli("passes", str(session), "-c", "num_stages=2")
    assert result.exit_code == 0, result.stderr
    rows = [ln for ln in result.stdout.splitlines() if re.match(r"^\s*\d+\s", ln)]
    assert len(rows) == len(log.steps)
    assert [row.split()[1] for row in rows] == [s.name for s in log.steps]  # the argument is cut to fit
    assert f"{len(log.steps)} passes" in result.stderr
    # the stage column fits tilelang_device_tir: every pass's -/+ lines end under the header's (before, 13 past it)
    header = next(ln for ln in result.stdout.splitlines() if "lines -/+" in ln)
    end = header.index("lines -/+") + len("lines -/+")
    for row, step in zip(rows, log.steps):
        assert row[header.index("stage") :].startswith(step.stage.value + " "), row
        if step.changed:
            assert row[:end].endswith(f"{step.lines_removed}/{step.lines_added}"), row
    after = cli("passes", str(session), "-c", "num_stages=2", "--after", "LayoutInference")
    assert after.exit_code == 0 and "T.prim_func" in after.stdout
    # the device Filter's diff is against the module it started from: host functions dropped, nothing added
    diff = cli("passes", str(session), "-c", "num_stages=2", "--diff", "Filter#2")
    assert diff.exit_code == 0, diff.stderr
    changes = [ln for ln in diff.stdout.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert changes and all(ln.startswith("-") for ln in changes)
    diverged = cli("passes", str(session), "--first-divergence", "-a", "num_stages=2", "-b", "num_stages=3", "--json")
    assert diverged.exit_code == 0, diverged.stderr
    data = json.loads(diverged.stdout)
    found = first_divergence(log, recorded["matmul_3"].passes)
    assert data["index"] == found.index and data["pass"]["name"] == found.step_a.name
