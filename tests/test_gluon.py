"""Gluon kernels (``@gluon.jit``) compiled without a GPU: every stage, each equal byte for byte to Triton's own
compile of the same kernel, mapped to the Python lines; layout constexprs from -c, -s, a spec and the API.

The kernels are written for these tests (gluon_kernels.py): an elementwise add over a 1-D BlockedLayout, a row
sum whose rows live in a SliceLayout, and a copy staged through shared memory in a SwizzledSharedLayout or an
NVMMASharedLayout. Triton's own compile is ``triton.compile(GluonASTSource(...))`` on the file imported apart,
with the layouts built as Python objects, in a cache folder of its own.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
from expect import one_line_error
from gluon_kernels import (
    ADD_SIGNATURE,
    BLOCKED_1D,
    BLOCKED_1D_WIDE,
    BLOCKED_2D,
    COPY_SIGNATURE,
    GLUON_KERNELS,
    GLUON_SPEC,
    MATMUL,
    MATMUL_SIGNATURE,
    NVMMA,
    ROW_SUM_SIGNATURE,
    ROWS_OF_2D,
    SWIZZLED,
)

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon (3.5 or newer)")

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

# kernel -> (-S signature, constexprs as irscope takes them, which Python line a test maps)
CASES = {
    "gluon_add": (ADD_SIGNATURE, {"BLOCK": 1024, "layout": BLOCKED_1D}),
    "gluon_row_sum": (ROW_SUM_SIGNATURE, {"ROWS": 16, "COLS": 64, "layout": BLOCKED_2D, "rows_layout": ROWS_OF_2D}),
    "gluon_staged_copy": (COPY_SIGNATURE, {"ROWS": 64, "COLS": 64, "layout": BLOCKED_2D, "shared": SWIZZLED}),
    "gluon_staged_copy/nvmma": (COPY_SIGNATURE, {"ROWS": 64, "COLS": 64, "layout": BLOCKED_2D, "shared": NVMMA}),
    "gluon_matmul": (MATMUL_SIGNATURE, MATMUL),
}
HOPPER_ONLY = {"gluon_matmul"}  # warpgroup_mma is Hopper's instruction: sm_100a has none (tcgen05 instead)
COMPARED = {"source": Stage.GLUON, "ttgir": Stage.TTGIR, "llir": Stage.LLIR, "ptx": Stage.PTX}


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("gluon") / "gluon_kernels_here.py"
    path.write_text(GLUON_KERNELS)
    return path


@pytest.fixture(scope="module")
def variants(kernels_file):
    """Each case captured once, for sm_90 and sm_100a."""
    out = {}
    for case, (signature, constexprs) in CASES.items():
        kernel = resolve_kernel(f"{kernels_file}:{case.partition('/')[0]}", signature)
        for arch in ("sm_90",) if case in HOPPER_ONLY else ("sm_90", "sm_100a"):
            out[case, arch] = capture(kernel, constexprs, arch)
    return out


def imported(path, module_name: str) -> Any:
    """The kernel file imported apart from irscope (as its own module)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def triton_own_compile(path, name: str, signature: str, constexprs: dict, capability: int | str, cache):
    """Triton's compile of the kernel, with nothing of irscope's: the file imported apart, layouts as objects."""
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    fn = getattr(imported(path, f"own_{name}_{capability}"), name)
    layouts = {"gl": gl}
    given = {
        k: eval(v, layouts, {n: getattr(gl, n) for n in dir(gl)}) if isinstance(v, str) else v
        for k, v in constexprs.items()
    }
    types = [t.strip() for t in signature.split(",")]
    sig, consts, attrs = {}, {}, {}
    for i, param in enumerate(fn.arg_names):
        if param in given:
            sig[param], consts[(i,)] = "constexpr", given[param]
        else:
            kind, _, hint = types[i].partition(":")
            sig[param] = kind
            attrs[(i,)] = [["tt.divisibility", 16]] if hint == "16" else []
    with knobs.cache.scope():
        knobs.cache.dir = str(cache)
        target = GPUTarget("hip", capability, 64) if isinstance(capability, str) else GPUTarget("cuda", capability, 32)
        return triton.compile(GluonASTSource(fn, sig, consts, attrs), target=target)


@pytest.mark.parametrize("arch", ["sm_90", "sm_100a"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_stage_equals_tritons_own_compile_byte_for_byte(variants, kernels_file, tmp_path, case, arch):
    if (case, arch) not in variants:
        pytest.skip(f"{case} is written for Hopper (warpgroup_mma)")
    variant = variants[case, arch]
    assert variant.status is Status.OK, variant.error
    assert variant.frontend == "gluon" and variant.source_language == "python"
    signature, constexprs = CASES[case]
    own = triton_own_compile(
        kernels_file, case.partition("/")[0], signature, constexprs, 90 if arch == "sm_90" else 100, tmp_path
    )
    for key, stage in COMPARED.items():
        assert variant.listings[stage] == own.asm[key], f"{case} {arch}: {stage} differs from Triton's {key}"
    assert variant.cubin == own.asm["cubin"]  # so the SASS irscope disassembles is that of Triton's cubin
    assert Stage.SASS in variant.listings and Stage.TTIR not in variant.listings
    # The Gluon IR is before Gluon's passes: the layouts as written, nothing resolved or inlined yet.
    assert variant.listings[Stage.GLUON] != variant.listings[Stage.TTGIR]
    assert ("sm_90a" if arch == "sm_90" else "sm_100a") in variant.listings[Stage.PTX]


def test_an_amd_target_compiles_a_gluon_kernel_as_tritons_own_compile_does(kernels_file, tmp_path):
    """gfx942 (64-lane waves: the layout says so): Gluon IR, TTGIR, LLIR and AMDGCN equal Triton's HIP compile."""
    constexprs = {"BLOCK": 1024, "layout": "BlockedLayout([4], [64], [4], [0])"}
    variant = capture(resolve_kernel(f"{kernels_file}:gluon_add", ADD_SIGNATURE), constexprs, "gfx942")
    assert variant.status is Status.OK, variant.error
    own = triton_own_compile(kernels_file, "gluon_add", ADD_SIGNATURE, constexprs, "gfx942", tmp_path)
    for key, stage in {"source": Stage.GLUON, "ttgir": Stage.TTGIR, "llir": Stage.LLIR, "amdgcn": Stage.AMDGCN}.items():
        assert variant.listings[stage] == own.asm[key], f"gfx942: {stage} differs from Triton's {key}"
    assert variant.cubin == own.asm["hsaco"] and Stage.PTX not in variant.listings


def test_the_gluon_ir_holds_the_layouts_the_author_wrote(variants):
    staged = variants["gluon_staged_copy", "sm_90"].listings[Stage.GLUON]
    assert "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>" in staged
    nvmma = variants["gluon_staged_copy/nvmma", "sm_90"].listings[Stage.GLUON]
    assert "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>" in nvmma
    matmul = variants["gluon_matmul", "sm_90"]
    assert matmul.listings[Stage.GLUON].count("#ttg.nvmma_shared<{swizzlingByteWidth = 128") >= 1
    assert "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1]" in matmul.listings[Stage.GLUON]
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in matmul.listings[Stage.PTX]
    rows = variants["gluon_row_sum", "sm_90"].listings[Stage.GLUON]
    assert "#ttg.slice<{dim = 1, parent = #blocked}>" in rows
    assert "sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]" in rows


def test_each_stage_maps_to_the_python_line_it_came_from(variants):
    variant = variants["gluon_row_sum", "sm_90"]
    line = next(i + 1 for i, t in enumerate(GLUON_KERNELS.splitlines()) if "total = gl.sum(x, axis=1)" in t)
    smap = SourceMap(variant)
    # Before Gluon's passes the sum is still a call of Triton's ``sum``; after them, the reduction inlined.
    markers = ((Stage.GLUON, "tt.call @\"triton.language.standard.sum"), (Stage.TTGIR, "tt.reduce"),
               (Stage.LLIR, "shfl.sync.bfly"), (Stage.PTX, "shfl.sync.bfly"))  # fmt: skip
    for stage, marker in markers:
        lines = variant.listings[stage].splitlines()
        index = next(i for i, t in enumerate(lines) if marker in t)
        assert smap.source_line(stage, index) == line, (stage, lines[index])
    sass = variant.listings[Stage.SASS].splitlines()
    shuffles = [i for i, t in enumerate(sass) if "SHFL.BFLY" in t]
    assert shuffles and all(smap.source_line(Stage.SASS, i) == line for i in shuffles)


def test_a_gluon_file_is_the_gluon_frontends_and_its_kernels_are_named_without_running_it(tmp_path):
    from irscope.frontends import frontend

    canary = tmp_path / "ran"
    path = tmp_path / "k.py"
    path.write_text(GLUON_KERNELS + f"\nopen({str(canary)!r}, 'w').close()\n")
    gluon = frontend("gluon")
    names = ["gluon_add", "gluon_row_sum", "gluon_staged_copy", "gluon_matmul", "gluon_tile_store"]
    assert gluon.kernel_names(path) == names
    assert gluon.claims(path, "gluon_add") and not gluon.claims(path, "other")
    assert not frontend("triton").claims(path, "gluon_add") and not canary.exists()


def test_layouts_on_the_command_line_dump_each_stage(cli, kernels_file):
    result = cli(
        "dump", f"{kernels_file}:gluon_row_sum", "-S", ROW_SUM_SIGNATURE, "-c", "ROWS=16,COLS=64",
        "-c", f"layout={BLOCKED_2D}", "-c", f"rows_layout={ROWS_OF_2D}", "--stage", "gluon", "--source",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "layout=BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])" in result.stderr
    assert "tt.reduce" in result.stdout and "total = gl.sum(x, axis=1)" in result.stdout


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("BlockedLayout([4], [32], [4])", "refused by Triton"),
        ("Blocked([4], [32], [4], [0])", "is not a Gluon layout"),
        ("BlockedLayout(x, [32], [4], [0])", "is not a layout argument"),
        ("BlockedLayout([4], [32], [4], [0]", "does not parse"),
    ],
)
def test_a_bad_layout_is_one_line_and_exit_2(cli, kernels_file, value, fragment):
    result = cli("dump", f"{kernels_file}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024", "-c", f"layout={value}")
    one_line_error(result, 2, fragment)


def test_a_sweep_over_two_layouts_and_a_diff_between_them(cli, kernels_file, tmp_path):
    session = tmp_path / "session"
    two = f"layout={BLOCKED_1D},{BLOCKED_1D_WIDE}"
    result = cli("sweep", f"{kernels_file}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024", "-s", two,
                 "-o", str(session), "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert sorted(r["layout"] for r in rows) == [
        "BlockedLayout([4], [32], [4], [0])",
        "BlockedLayout([8], [32], [4], [0])",
    ]
    stored = json.loads((session / "session.json").read_text())
    assert stored["kernel"]["frontend"] == "gluon"
    # The session keeps each layout as text: data, never a pickled or evaluated object.
    assert BLOCKED_1D_WIDE.replace(" ", "") in json.dumps(stored).replace(" ", "")
    pair = ("-c", "BLOCK=1024", "-a", f"layout={BLOCKED_1D}", "-b", f"layout={BLOCKED_1D_WIDE}")
    diff = cli("diff", str(session), *pair, "--stage", "gluon")
    assert diff.exit_code == 0, diff.stderr
    assert "sizePerThread = [4]" in diff.stdout and "sizePerThread = [8]" in diff.stdout
    ptx = cli("diff", str(session), *pair, "--stage", "ptx")
    assert ptx.exit_code == 0, ptx.stderr
    changed = [line for line in ptx.stdout.splitlines() if line.startswith(("+", "-"))]
    assert any(line.startswith("+") for line in changed) and any(line.startswith("-") for line in changed)


def test_a_spec_declares_layouts_as_objects_and_sweeps_them(tmp_path):
    import irscope

    path = tmp_path / "gluon_spec_here.py"
    path.write_text(GLUON_SPEC)
    kernel = resolve_kernel(f"{path}:spec_add")
    table = kernel.parameter_table()
    assert (
        table["layout"]["default"]
        == "BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0])"
    )
    assert len(table["layout"]["sweep"]) == 2 and all(isinstance(v, str) for v in table["layout"]["sweep"])
    session = irscope.sweep(f"{path}:spec_add", {"layout": table["layout"]["sweep"]}, out=tmp_path / "s")
    assert len(session) == 2 and all(e.status is Status.OK for e in session.entries)


def test_the_api_takes_a_layout_object_and_a_gluon_function(kernels_file):
    from triton.experimental.gluon import language as gl

    import irscope

    module = imported(kernels_file, "api_gluon_kernels")
    layout = gl.BlockedLayout([4], [32], [4], [0])
    by_name = irscope.capture(f"{kernels_file}:gluon_add", {"BLOCK": 1024, "layout": layout}, signature=ADD_SIGNATURE,
                              arch="sm_90")  # fmt: skip
    by_object = irscope.capture(module.gluon_add, {"BLOCK": 1024, "layout": layout}, signature=ADD_SIGNATURE,
                                arch="sm_90")  # fmt: skip
    assert by_name.frontend == by_object.frontend == "gluon"
    assert by_name.config.constexprs["layout"].startswith("BlockedLayout(size_per_thread=[4]")
    assert by_name.listings[Stage.PTX] == by_object.listings[Stage.PTX]


OWN_COMPILE = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

path, name, signature, constexprs, capability, out = sys.argv[1:]
spec = importlib.util.spec_from_file_location("own_kernels", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, name)
layouts = {n: getattr(gl, n) for n in dir(gl)}
given = {k: eval(v, layouts) if isinstance(v, str) else v for k, v in json.loads(constexprs).items()}
types = [t.strip() for t in signature.split(",")]
sig, consts, attrs = {}, {}, {}
for i, param in enumerate(fn.arg_names):
    if param in given:
        sig[param], consts[(i,)] = "constexpr", given[param]
    else:
        kind, _, hint = types[i].partition(":")
        sig[param] = kind
        attrs[(i,)] = [["tt.divisibility", 16]] if hint == "16" else []
compiled = triton.compile(GluonASTSource(fn, sig, consts, attrs), target=GPUTarget("cuda", int(capability), 32))
json.dump({k: v for k, v in compiled.asm.items() if isinstance(v, str)}, open(out, "w"))
"""


def _prepared_tritons() -> list[str]:
    import triton

    from irscope.frontends.triton.environments import tritons_dir

    others = [v for v in ("3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0") if v != triton.__version__]
    return [v for v in others if (tritons_dir() / v / "triton" / "__init__.py").is_file()]


@pytest.mark.parametrize("case", ["gluon_row_sum", "gluon_matmul"])
@pytest.mark.parametrize("version", _prepared_tritons() or [None])
def test_each_other_triton_compiles_a_gluon_kernel_as_its_own_compile_does(kernels_file, tmp_path, version, case):
    """``-c triton=X``: the Gluon kernel compiled by Triton X in a worker equals X's own compile, stage for stage."""
    import os
    import subprocess
    import sys

    if version is None:
        pytest.skip("no other Triton prepared in $IRSCOPE_TRITONS (.ci/run makes them)")
    from irscope.frontends.triton.environments import tritons_dir

    signature, constexprs = CASES[case]
    kernel = resolve_kernel(f"{kernels_file}:{case}", signature)
    variant = capture(kernel, {**constexprs, "triton": version}, "sm_90")
    assert variant.status is Status.OK, variant.error
    assert variant.compile_info is not None and variant.compile_info.compiler == f"triton {version}"
    out = tmp_path / "own.json"
    env = {**os.environ, "PYTHONPATH": str(tritons_dir() / version), "TRITON_CACHE_DIR": str(tmp_path / "cache")}
    argv = [str(kernels_file), case, signature, json.dumps(constexprs), "90", str(out)]
    done = subprocess.run([sys.executable, "-c", OWN_COMPILE, *argv], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    own = json.loads(out.read_text())
    for key, stage in COMPARED.items():
        assert variant.listings[stage] == own[key], f"triton {version}: {stage} differs from Triton's {key}"


def test_the_gluon_ir_is_a_tab_and_a_diff_row_of_gluon_variants_only(variants):
    from irscope.diffing import diff_variants
    from irscope.tui.app import stage_tabs

    assert "gluon" in dict(stage_tabs({"nvidia"}, {"gluon"}))
    assert "gluon" not in dict(stage_tabs({"nvidia"})) and "gluon" not in dict(stage_tabs({"nvidia"}, {"cuda"}))
    variant = variants["gluon_add", "sm_90"]
    assert variant.made_for_vendor(Stage.GLUON)
    triton_add = capture("add_kernel", {"BLOCK_SIZE": 1024}, "sm_90")
    assert not triton_add.made_for_vendor(Stage.GLUON)
    assert Stage.GLUON not in diff_variants(triton_add, triton_add, Stage.PTX).stats


def test_the_gluon_ir_normalises_and_diffs_as_mlir(variants):
    from irscope.diffing import diff_variants
    from irscope.ir.dialects import normalize

    variant = variants["gluon_row_sum", "sm_90"]
    text = variant.listings[Stage.GLUON]
    once = "\n".join(line.text for line in normalize(Stage.GLUON, text))
    assert once == "\n".join(line.text for line in normalize(Stage.GLUON, once))
    assert not diff_variants(variant, variant, Stage.GLUON, summary_stages=()).changed
    wide = variants["gluon_staged_copy", "sm_90"], variants["gluon_staged_copy/nvmma", "sm_90"]
    changed = diff_variants(*wide, Stage.GLUON)
    assert changed.changed and Stage.GLUON in changed.stats
