"""CuTe DSL kernels beside Triton's: real ``cute.compile`` runs for sm_90a and others without a GPU.

The kernels are the shipped examples, written in the DSL's idiom: ``examples/cute_add.py`` (a ``@cute.jit``
host function launching a ``@cute.kernel`` elementwise add, its block a ``tile_m`` x ``tile_n`` tile: two
``cutlass.Constexpr`` parameters, the config's axes) and ``examples/cute_kernels.py`` (a row sum: a tiled copy
of 16-byte vectors, warp shuffles, shared memory across warps; a tiled matmul: cp.async tiled copies to shared
memory and a 2x2-warp tiled MMA of mma.sync 16x8x16 atoms), with ``examples/row_sum.py``, the row sum's Triton
twin. Skipped where ``nvidia-cutlass-dsl`` is not installed, except the tests of what irscope says then.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

HAS_DSL = importlib.util.find_spec("cutlass") is not None
needs_dsl = pytest.mark.skipif(not HAS_DSL, reason="needs nvidia-cutlass-dsl (pip install irscope[cute])")

REPO = Path(__file__).resolve().parent.parent
ADD_FILE = REPO / "examples" / "cute_add.py"  # docs/cute.md's elementwise add, as shipped
KERNELS_FILE = REPO / "examples" / "cute_kernels.py"  # its row sum and tiled matmul
TWIN_FILE = REPO / "examples" / "row_sum.py"  # the row sum's Triton twin
SIGNATURE = "float32[128,256], float32[128,256], float32[128,256]"
ROW_SUM_SIGNATURE = "float32[4096,1024]:16, float32[4096]"
MM_SIGNATURE = "float16[512,256]:16, float16[512,256]:16, float32[512,512]:16"


def line_of(path: Path, text: str) -> int:
    return next(i + 1 for i, t in enumerate(path.read_text().splitlines()) if text in t)


ADD_LINE = line_of(ADD_FILE, "gC[row, col] = gA[row, col] + gB[row, col]")

SCALE = textwrap.dedent("""
    import cutlass
    import cutlass.cute as cute


    @cute.kernel
    def scale_kernel(gA: cute.Tensor, gC: cute.Tensor, factor: cutlass.Float32):
        tx, _, _ = cute.arch.thread_idx()
        bx, _, _ = cute.arch.block_idx()
        i = bx * 128 + tx
        m, n = gA.shape
        gC[i // n, i % n] = gA[i // n, i % n] * factor


    @cute.jit
    def scale(mA: cute.Tensor, mC: cute.Tensor, factor: cutlass.Float32):
        m, n = mA.shape
        scale_kernel(mA, mC, factor).launch(grid=((m * n) // 128, 1, 1), block=(128, 1, 1))
""")

# The DSL's own ahead-of-time compile, as its documentation drives it: the architecture and what to keep in
# environment variables, nothing of irscope's imported; the tensors as from_dlpack(t, assumed_align=16) makes them.
# The module each compile's lowering left (its ir_module) is written by the DSL's own IR writer, save_ir (the one
# CUTE_DSL_KEEP=ir writes with), as lowered_<name>: the DSL has no switch that writes it.
REFERENCE = textwrap.dedent("""
    import importlib.util, os, sys
    import cutlass
    from cutlass.base_dsl.cache_helpers import save_ir
    from cutlass.cute.runtime import make_fake_compact_tensor
    import cutlass.cute as cute
    def load(path):
        spec = importlib.util.spec_from_file_location("kernels", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    def lowered(compiled, name):
        save_ir("cute", compiled.ir_module, "lowered_" + name, output_dir=os.environ["CUTE_DSL_DUMP_DIR"])
    add, kernels = load(sys.argv[1]), load(sys.argv[2])
    a = make_fake_compact_tensor(cutlass.Float32, (128, 256), stride_order=(1, 0))
    for tile_n in (64, 128):
        lowered(cute.compile(add.add, a, a, a, tile_n=tile_n), f"add_{tile_n}")
    x = make_fake_compact_tensor(cutlass.Float32, (4096, 1024), stride_order=(1, 0), assumed_align=16)
    y = make_fake_compact_tensor(cutlass.Float32, (4096,), stride_order=(0,))
    lowered(cute.compile(kernels.row_sum, x, y), "row_sum")
    h = make_fake_compact_tensor(cutlass.Float16, (512, 256), stride_order=(1, 0), assumed_align=16)
    c = make_fake_compact_tensor(cutlass.Float32, (512, 512), stride_order=(1, 0), assumed_align=16)
    lowered(cute.compile(kernels.mm, h, h, c), "mm")
""")


@pytest.fixture(scope="module")
def kernels_file():
    return ADD_FILE


@pytest.fixture(scope="module")
def scale_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cute") / "cute_scale.py"
    path.write_text(SCALE)
    return path


@pytest.fixture(scope="module")
def variant(kernels_file):
    from irscope.capturing import capture

    v = capture(resolve_kernel(f"{kernels_file}:add", signature=SIGNATURE), {}, "sm_90")
    assert v.status is Status.OK, v.error
    return v


@needs_dsl
def test_a_cute_kernel_gives_its_traced_ir_ptx_and_sass_mapped_to_its_python_lines(variant, kernels_file):
    from irscope.frontends.cute.stages import CUTE_IR

    assert variant.frontend == "cute" and variant.compile_info.compiler.startswith("nvidia-cutlass-dsl 4.")
    ir, ptx, sass = (variant.listings[s] for s in (CUTE_IR, Stage.PTX, Stage.SASS))
    assert "cuda.kernel @kernel_cutlass_add_kernel" in ir and f'loc("{kernels_file}":' in ir
    assert ".target sm_90a" in ptx and f'.file\t1 "{kernels_file}"' in ptx
    assert variant.compile_info.options["gpu_arch"] == "sm_90a"
    assert variant.compile_info.threads_per_block == 4 * 64  # .reqntid 64, 4, 1
    smap = SourceMap(variant)
    add = next(i for i, t in enumerate(ptx.splitlines()) if "add.f32" in t)
    assert smap.source_line(Stage.PTX, add) == ADD_LINE
    fadd = next(i for i, t in enumerate(sass.splitlines()) if " FADD " in t)
    assert smap.source_line(Stage.SASS, fadd) == ADD_LINE
    addf = next(i for i, t in enumerate(ir.splitlines()) if "arith.addf" in t)
    assert smap.source_line(CUTE_IR, addf) == ADD_LINE
    # The stage is the CuTe DSL frontend's own: no other frontend's variant is missing it.
    assert variant.made_for_vendor(CUTE_IR) and not replace(variant, frontend="triton").made_for_vendor(CUTE_IR)


@pytest.fixture(scope="module")
def reference(kernels_file, tmp_path_factory):
    """The folder the DSL's own compile of ``add`` (tile_n 64 and 128), ``row_sum`` and ``mm``, for sm_90a, kept its
    PTX and cubin in."""
    folder = tmp_path_factory.mktemp("kept")
    env = {
        **os.environ,
        "CUTE_DSL_ARCH": "sm_90a",
        "CUTE_DSL_KEEP": "ptx,cubin",
        "CUTE_DSL_LINEINFO": "1",
        "CUTE_DSL_DUMP_DIR": str(folder),
    }
    done = subprocess.run(
        [sys.executable, "-c", REFERENCE, str(kernels_file), str(KERNELS_FILE)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return folder


@needs_dsl
@pytest.mark.parametrize("tile_n", [64, 128])
def test_ptx_and_cubin_are_byte_equal_to_the_dsls_own_kept_files_for_sm_90a(kernels_file, variant, reference, tile_n):
    ours = variant if tile_n == 64 else in_process(kernels_file, {"tile_n": tile_n}, "sm_90")
    (ptx,) = reference.glob(f"cutlass_add_*_4_{tile_n}.sm_90a.ptx")  # the file's name ends in the constexprs' values
    (cubin,) = reference.glob(f"cutlass_add_*_4_{tile_n}.sm_90a.cubin")
    assert ours.listings[Stage.PTX].encode() == ptx.read_bytes()
    assert ours.cubin == cubin.read_bytes()
    assert f".reqntid {tile_n}, 4, 1" in ptx.read_text()


@needs_dsl
@pytest.mark.parametrize("name", ["add_64", "row_sum", "mm"])
def test_the_lowered_ir_is_byte_equal_to_the_dsls_own_ir_writer_in_another_process(variant, examples, reference, name):
    """The module the DSL's cute-to-nvvm lowering leaves (compile(...).ir_module): the host function in the LLVM
    dialect, launching the kernels' cubin; as the DSL's own save_ir writes it from a compile driven by its
    environment variables alone, in another process."""
    from irscope.frontends.cute.stages import CUTE_LOWERED

    v = variant if name == "add_64" else examples[name]
    (theirs,) = reference.glob(f"cute_lowered_{name}.mlir")
    lowered = v.listings[CUTE_LOWERED]
    assert lowered.encode() == theirs.read_bytes()
    # lowered: no CuTe operation is left, the launch is the runtime's, the kernels are their cubin
    assert "cute." not in lowered and "llvm.call @_cudaLaunchKernelEx" in lowered
    assert "llvm.mlir.global internal constant @kernels_binary(" in lowered
    # its lines map to the decorators only: the launch to its kernel's @cute.kernel line
    file, kernel = (ADD_FILE, "add_kernel") if name == "add_64" else (KERNELS_FILE, f"{name}_kernel")
    launch = next(i for i, t in enumerate(lowered.splitlines()) if "llvm.call @_cudaLaunchKernelEx" in t)
    assert SourceMap(v).source_line(CUTE_LOWERED, launch) == line_of(file, f"def {kernel}(") - 1
    assert v.made_for_vendor(CUTE_LOWERED) and not replace(v, frontend="triton").made_for_vendor(CUTE_LOWERED)


@needs_dsl
def test_registers_come_from_the_cubin_as_cuobjdump_reads_them(variant, tmp_path):
    """No ptxas report is seen (the DSL assembles inside its library): the cubin's .nv.info says, as it does
    to ``cuobjdump -res-usage``."""
    import re
    from pathlib import Path

    from irscope.nvidia.sass import nvdisasm_path

    cubin = tmp_path / "add.cubin"
    cubin.write_bytes(variant.cubin)
    usage = subprocess.run(
        [str(Path(nvdisasm_path()).parent / "cuobjdump"), "-res-usage", str(cubin)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    registers, stack = re.search(r"REG:(\d+) STACK:(\d+)", usage).groups()
    assert (variant.resources.registers, variant.resources.stack_frame) == (int(registers), int(stack))
    assert variant.resources.registers > 0


def add_kernel(kernels_file):
    return resolve_kernel(f"{kernels_file}:add", signature=SIGNATURE)


def in_process(kernels_file, config, arch):
    """A capture compiled in this process (no worker to start and import the DSL again), uncached."""
    from irscope.capturing import capture

    v = capture(add_kernel(kernels_file), config, arch, compile_timeout=None, use_cache=False)
    assert v.ok, v.error
    return v


@needs_dsl
def test_constexpr_parameters_are_the_configs_axes(kernels_file, variant, cli):
    kernel = add_kernel(kernels_file)
    table = kernel.parameter_table()
    assert table == {
        "tile_m": {"default": 4, "sweep": [4], "kind": "constexpr"},
        "tile_n": {"default": 64, "sweep": [64], "kind": "constexpr"},
    }
    result = cli("dump", f"{kernels_file}:add", "-S", SIGNATURE, "-c", "tile_m=2", "-c", "tile_n=128", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    assert ".reqntid 128, 2, 1" in result.output and "_2_128_0(" in result.output
    assert ".reqntid 64, 4, 1" in variant.listings[Stage.PTX]


@needs_dsl
@pytest.mark.parametrize(("arch", "target"), [("sm_80", "sm_80"), ("sm_100", "sm_100a"), ("sm_120", "sm_120a")])
def test_other_archs_compile_without_a_gpu(kernels_file, arch, target):
    v = in_process(kernels_file, {}, arch)
    assert f".target {target}" in v.listings[Stage.PTX] and v.listings[Stage.SASS].strip()


@pytest.fixture(scope="module")
def add_session(kernels_file, tmp_path_factory):
    """A sweep of the add over tile_n 64 and 128, kept on disk (a folder of its own)."""
    folder = tmp_path_factory.mktemp("add-session")
    args = ("sweep", f"{kernels_file}:add", "-S", SIGNATURE, "-s", "tile_n=64,128", "-o", str(folder))
    swept = subprocess.run([sys.executable, "-m", "irscope", *args], capture_output=True, text=True, cwd=REPO)
    assert swept.returncode == 0, swept.stderr
    return folder


@needs_dsl
def test_a_sweep_session_reads_back_in_a_process_that_never_loaded_the_frontend(add_session):
    """Its variants name the stage cute_ir, which only the CuTe DSL frontend registers: opening the session
    registers the stages of the frontend its header names."""
    code = (
        "import sys; from irscope.session.store import Session; s = Session.open(sys.argv[1]); "
        "vs = [s.variant(e) for e in s.entries]; "
        "print(sorted((v.config.constexprs['tile_n'], 'cute_ir' in v.listings, '.reqntid' in v.listings['ptx']) "
        "for v in vs))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(add_session)], capture_output=True, text=True)
    assert done.stdout.strip() == "[(64, True, True), (128, True, True)]", done.stderr


@needs_dsl
async def test_the_terminal_ui_shows_a_cute_sessions_ir_before_and_after_lowering_in_tabs_of_their_own(add_session):
    import asyncio

    from irscope.tui.factory import make_app

    app = make_app(str(add_session))
    async with app.run_test(size=(140, 40)) as pilot:
        while any(w.is_running for w in app.workers):
            await asyncio.sleep(0.02)
        await pilot.pause()
        keys = [key for key, _ in app.stage_tabs]
        assert "cute_ir" in keys and "amdgcn" not in keys and "gluon" not in keys
        await pilot.press(str(keys.index("cute_ir") + 1))
        await pilot.pause()
        listing = app.query_one("#listing")
        assert listing.stage == "cute_ir"
        assert any("cuda.kernel @kernel_cutlass_add_kernel" in line for line in listing.lines)
        await pilot.press(str(keys.index("cute_lowered") + 1))  # the module after lowering: a tab of its own
        await pilot.pause()
        listing = app.query_one("#listing")
        assert listing.stage == "cute_lowered"
        assert any("llvm.call @_cudaLaunchKernelEx" in line for line in listing.lines)


@needs_dsl
def test_a_dynamic_extent_and_a_scalar_are_runtime_parameters_of_the_kernel(scale_file):
    from irscope.capturing import capture

    kernel = resolve_kernel(f"{scale_file}:scale", signature="float32[?,256], float32[?,256], float32")
    assert kernel.parameter_table() == {}
    v = capture(kernel, {}, "sm_90", compile_timeout=None, use_cache=False)
    assert v.ok, v.error
    params = [t.strip() for t in v.listings[Stage.PTX].splitlines() if t.strip().startswith(".param")]
    # each tensor: its pointer and its dynamic extent (16 bytes, where a static shape leaves 8); then the float
    assert params[0].endswith("_param_0[16],") and params[1].endswith("_param_1[16],")
    assert params[2].startswith(".param .f32 ") and len(params) == 3


@needs_dsl
def test_the_python_api_takes_a_cute_jit_function(kernels_file):
    import irscope
    from irscope.frontends.files import import_file

    module = import_file(kernels_file, "test_cute", "kernel file")
    v = irscope.capture(module.add, {"tile_n": 32}, signature=SIGNATURE, arch="sm_90")
    assert v.frontend == "cute" and ".reqntid 32, 4, 1" in v.listings[Stage.PTX]
    with pytest.raises(irscope.errors.ParameterError, match="describe its runtime arguments"):
        irscope.capture(module.add, arch="sm_90")


def test_a_wrong_signature_is_one_line(kernels_file, cli):
    missing = cli("dump", f"{kernels_file}:add")
    assert missing.exit_code == 2 and "describe its runtime arguments" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    wrong = cli("dump", f"{kernels_file}:add", "-S", "float32[128,256], floot32[4]")
    assert wrong.exit_code == 2 and "cannot read 'floot32[4]'" in wrong.stderr
    few = cli("dump", f"{kernels_file}:add", "-S", "float32[128,256]")
    assert few.exit_code == 2 and "takes 3 runtime argument(s) (mA, mB, mC)" in few.stderr


def test_without_the_dsl_one_line_names_the_extra(kernels_file, run_irscope, tmp_path):
    """As where nvidia-cutlass-dsl is not installed. The installed DSL puts its packages on the path through a
    .pth file that imports ``nvidia_cutlass_dsl`` to find them; an empty package of that name first on the path
    (for irscope and its workers) leaves ``cutlass`` unfound, as it is where the wheel was never installed."""
    stub = tmp_path / "hide" / "nvidia_cutlass_dsl"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("")
    hidden = {"PYTHONPATH": str(stub.parent), "IRSCOPE_CACHE_DIR": str(tmp_path / "cache")}  # nothing cached
    done = run_irscope("dump", f"{kernels_file}:add", "-S", SIGNATURE, env=hidden)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == "irscope: error: dump needs cutlass, which is not installed: pip install irscope[cute]\n"
    # A session's variant is not checked before it compiles: its compile finds the DSL missing, in one line too.
    code = (
        "import sys; from irscope.frontends import resolve_kernel; from irscope.types import Config; "
        f"k = resolve_kernel({str(kernels_file) + ':add'!r}, signature={SIGNATURE!r}); "
        "from irscope.arch import Target; c = k.compile(Config(constexprs={}), Target.for_arch('sm_90')); "
        "print(c.error.stage, '|', c.error.message)"
    )
    compiled = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **hidden}
    )
    assert compiled.stdout.startswith("import | ") and compiled.stdout.strip().endswith(
        "No module named 'cutlass' (pip install irscope[cute])"
    ), compiled.stderr
    # The kernel is found and its axes read with ast alone: that needs no DSL.
    kernel = resolve_kernel(f"{kernels_file}:add", signature=SIGNATURE)
    assert kernel.frontend == "cute" and "tile_n" in kernel.parameter_table()


# --- the row sum and the tiled matmul -------------------------------------------------------------------------

KERNELS = {"row_sum": ROW_SUM_SIGNATURE, "mm": MM_SIGNATURE}


@pytest.fixture(scope="module")
def examples():
    """``row_sum`` and ``mm`` at their defaults for sm_90 (sm_90a), through the compile cache."""
    from irscope.capturing import capture

    out = {}
    for name, signature in KERNELS.items():
        v = capture(resolve_kernel(f"{KERNELS_FILE}:{name}", signature=signature), {}, "sm_90")
        assert v.ok, v.error
        out[name] = v
    return out


def instructions(sass: str) -> list[str]:
    """The instruction lines of a SASS listing (nvdisasm -c -g), without their address comments' spacing."""
    return [" ".join(t.split()) for t in sass.splitlines() if re.match(r"\s+/\*[0-9a-f]{4}\*/", t)]


@needs_dsl
@pytest.mark.parametrize("name", ["row_sum", "mm"])
def test_row_sum_and_matmul_ptx_cubin_and_sass_equal_the_dsls_own_compile(examples, reference, name, tmp_path):
    """PTX and cubin byte for byte; SASS as nvdisasm reads the DSL's own cubin (the DSL's own SASS dump needs
    nvdisasm 12.9, which this machine lacks: Triton's is 12.8)."""
    from irscope.nvidia.sass import nvdisasm_path

    v = examples[name]
    (ptx,) = reference.glob(f"cutlass_{name}_*.sm_90a.ptx")
    (cubin,) = reference.glob(f"cutlass_{name}_*.sm_90a.cubin")
    assert v.listings[Stage.PTX].encode() == ptx.read_bytes()
    assert v.cubin == cubin.read_bytes()
    theirs = subprocess.run([nvdisasm_path(), "-c", "-g", str(cubin)], capture_output=True, text=True, check=True)
    assert instructions(v.listings[Stage.SASS]) == instructions(theirs.stdout) != []


@needs_dsl
def test_the_row_sums_vector_loads_and_shuffles_map_to_their_python_lines(examples):
    v = examples["row_sum"]
    smap = SourceMap(v)
    ptx, sass = v.listings[Stage.PTX].splitlines(), v.listings[Stage.SASS].splitlines()
    copy = line_of(KERNELS_FILE, "cute.copy(tiled_copy, tXgX, tXrX)")
    warp = line_of(KERNELS_FILE, "partial = cute.arch.warp_reduction_sum(partial)")
    loads = [i for i, t in enumerate(ptx) if "ld.global.v4.b32" in t]
    assert len(loads) == 2 and {smap.source_line(Stage.PTX, i) for i in loads} == {copy}
    shuffles = [i for i, t in enumerate(ptx) if "shfl.sync.bfly" in t]
    assert len(shuffles) == 5 and {smap.source_line(Stage.PTX, i) for i in shuffles} == {warp}
    ldg = [i for i, t in enumerate(sass) if "LDG.E.128" in t]
    assert len(ldg) == 2 and {smap.source_line(Stage.SASS, i) for i in ldg} == {copy}


@needs_dsl
def test_the_matmuls_mma_atoms_and_cp_async_copies_map_to_their_python_lines(examples):
    v = examples["mm"]
    smap = SourceMap(v)
    ptx, sass = v.listings[Stage.PTX].splitlines(), v.listings[Stage.SASS].splitlines()
    gemm = line_of(KERNELS_FILE, "cute.gemm(tiled_mma, acc, tCrA, tCrB, acc)")
    copies = {
        line_of(KERNELS_FILE, f"cute.copy(copy_{x}, t{x.upper()}g{x.upper()}[None, None, None, {k}]")
        for x in "ab"
        for k in ("s", "ahead")
    }
    # 64x64 of C over 2x2 warps of 16x8 atoms: 2x4 atoms a warp, for each of tile_k 32 / 16 steps
    mma = [i for i, t in enumerate(ptx) if "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in t]
    assert len(mma) == 16 and {smap.source_line(Stage.PTX, i) for i in mma} == {gemm}
    hmma = [i for i, t in enumerate(sass) if "HMMA.16816.F32" in t]  # the k loop unrolled 8 times by ptxas
    assert len(hmma) == 128 and {smap.source_line(Stage.SASS, i) for i in hmma} == {gemm}
    # two stages: A's and B's first slices copied before the loop, the next one's in it, 2 copies each
    cp = [i for i, t in enumerate(ptx) if "cp.async.ca.shared.global" in t]
    assert len(cp) == 8 and {smap.source_line(Stage.PTX, i) for i in cp} == copies
    assert all(ptx[i].rstrip().endswith("16, 16;") for i in cp)  # 16 bytes a copy: the 128-bit atom
    wait = line_of(KERNELS_FILE, "cute.arch.cp_async_wait_group(stages - 1)")
    (waits,) = [i for i, t in enumerate(ptx) if "cp.async.wait_group" in t]
    assert ptx[waits].split()[-1] == "1;" and smap.source_line(Stage.PTX, waits) == wait


@needs_dsl
@pytest.mark.parametrize("name", ["row_sum", "mm"])
def test_registers_and_findings_agree_with_cuobjdump_and_the_listing(examples, name, tmp_path):
    from irscope.annotating import annotate
    from irscope.nvidia.sass import nvdisasm_path

    v = examples[name]
    cubin = tmp_path / f"{name}.cubin"
    cubin.write_bytes(v.cubin)
    usage = subprocess.run(
        [str(Path(nvdisasm_path()).parent / "cuobjdump"), "-res-usage", str(cubin)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    registers, stack = re.search(r"REG:(\d+) STACK:(\d+)", usage).groups()
    assert (v.resources.registers, v.resources.stack_frame) == (int(registers), int(stack))
    titles = [f.title for f in annotate(v, Stage.SASS).findings]
    sass = v.listings[Stage.SASS]
    assert "global loads are vectorised: 16 bytes per thread" in titles
    if name == "row_sum":
        assert sass.count("LDG.E.128 ") == 2 and "LDGSTS" not in sass
        assert (
            "1 warp reduction by shuffle: 1 over 32 lanes (5 steps), combined across warps in shared memory" in titles
        )
        assert not any("MMA" in t for t in titles)
    else:  # the 16-byte loads are cp.async's, global -> shared
        assert sass.count("LDGSTS.E.128 ") == 32 and "LDG.E" not in sass
        assert "32 asynchronous copies (LDGSTS), 17 commit/wait points" in titles
        assert "tensor cores: 128 MMA instructions" in titles and sass.count("HMMA.16816.F32 ") == 128


@needs_dsl
def test_the_cute_ir_stage_is_a_dump_choice_and_a_tui_tab(run_irscope):
    from irscope.tui.app import stage_tabs

    done = run_irscope(
        "dump", f"{KERNELS_FILE}:row_sum", "-S", ROW_SUM_SIGNATURE, "--arch", "sm_90", "--stage", "cute_ir"
    )
    assert done.returncode == 0, done.stderr
    assert "cuda.kernel @kernel_cutlass_row_sum_kernel" in done.stdout and "cute.copy" in done.stdout
    assert ("cute_ir", "CuTe IR") in stage_tabs({"nvidia"}, {"cute"})
    assert "cute_ir" not in dict(stage_tabs({"nvidia"}, {"triton"}))


@needs_dsl
def test_tile_shapes_are_axes_of_a_sweep_and_a_diff(run_irscope, tmp_path):
    """The matmul's tile_k (16, 32) and pipeline stages (1, 3) swept, then diffed from the session: a k-step of 32
    copies twice the 16-byte vectors a thread (cp.async) and reads twice the shared words into the MMA's
    fragments; three stages copy two slices ahead, before the loop, and commit three groups."""
    swept = run_irscope(
        "sweep", f"{KERNELS_FILE}:mm", "-S", MM_SIGNATURE, "-s", "tile_k=16,32", "-s", "stages=1,3", "--arch", "sm_90",
        "-o", str(tmp_path),
    )  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    done = run_irscope("diff", str(tmp_path), "-a", "tile_k=16", "-b", "tile_k=32", "-c", "stages=1", "--arch", "sm_90")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "A  mm tile_m=64 tile_n=64 tile_k=16 stages=1 · sm_90\nB  mm tile_m=64 tile_n=64 tile_k=32"
    )
    assert re.search(r"cp\.async\.ca\.shared\.global\s+2 -> 4 ", done.stdout), done.stdout[:3000]
    assert re.search(r"ld\.shared\.b32\s+16 -> 32 ", done.stdout)
    copy_a = line_of(KERNELS_FILE, "cute.copy(copy_a, tAgA[None, None, None, ahead]")
    assert re.search(
        rf"\n \*\s+{copy_a}  cute\.copy\(copy_a.*\n\s+global accesses: load 16 B x1 -> load 16 B x2", done.stdout
    )
    staged = run_irscope(
        "diff", str(tmp_path), "-a", "stages=1", "-b", "stages=3", "-c", "tile_k=16", "--arch", "sm_90"
    )
    assert staged.returncode == 0, staged.stderr
    assert re.search(r"cp\.async\.commit_group\s+1 -> 3 ", staged.stdout), staged.stdout[:3000]
    assert re.search(r"cp\.async\.ca\.shared\.global\s+2 -> 6 ", staged.stdout)
    ahead = line_of(KERNELS_FILE, "cute.copy(copy_a, tAgA[None, None, None, s]")
    assert re.search(rf"\n \*\s+{ahead}  cute\.copy\(copy_a.*\n\s+global accesses: none -> load 16 B x2", staged.stdout)


@needs_dsl
def test_a_triton_kernel_and_its_cute_twin_diffed_per_source_line(cli):
    """One operator in two languages: each kernel's SASS per line of its own file, A's above B's."""
    import json

    args = ("diff", f"{TWIN_FILE}:row_sum_kernel", "-b", f"kernel={KERNELS_FILE}:row_sum", "-b")
    result = cli(*args, f"signature={ROW_SUM_SIGNATURE}", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.output
    a, b = json.loads(result.stdout)["across_sources"]
    assert (a["frontend"], a["kernel"], a["stage"]) == ("triton", "row_sum_kernel", "sass")
    assert (b["frontend"], b["kernel"], b["stage"]) == ("cute", "row_sum", "sass")
    rows_a = {r["line"]: r for r in a["lines"]}
    rows_b = {r["line"]: r for r in b["lines"]}
    assert rows_a[line_of(TWIN_FILE, "x = tl.load(")]["accesses"] == ["load 16 B x2"]
    assert rows_b[line_of(KERNELS_FILE, "cute.copy(tiled_copy, tXgX, tXrX)")]["accesses"] == ["load 16 B x2"]
    assert rows_b[line_of(KERNELS_FILE, "gY[row] = total")]["accesses"] == ["store 4 B x1"]
    text = cli(*args, f"signature={ROW_SUM_SIGNATURE}", "--arch", "sm_90").stdout
    assert "by source line of each kernel" in text
    assert text.index("A: triton row_sum_kernel") < text.index("B: cute row_sum") < text.index("cute.copy(tiled_copy")


def test_an_alignment_is_part_of_a_tensors_description():
    from irscope.errors import ParameterError
    from irscope.frontends.shaped_arguments import Argument, parse_arguments

    assert parse_arguments("float32[4096,1024]:16, float32[4096]", "k") == (
        Argument("float32", (4096, 1024), 16),
        Argument("float32", (4096,), None),
    )
    assert Argument("float16", (8, None), 16).spelled() == "float16[8,?]:16"
    for bad in ("float32[4,4]:12", "float32[4,4]:0", "float32:16", "float32[4]:2048"):
        with pytest.raises(ParameterError):
            parse_arguments(bad, "k")


@needs_dsl
def test_compare_puts_the_triton_kernel_and_its_cute_twin_in_one_table(cli):
    twin = f"{KERNELS_FILE}:row_sum"
    args = ("compare", f"{TWIN_FILE}:row_sum_kernel", twin, "-S", f"{twin}={ROW_SUM_SIGNATURE}", "--arch", "sm_90")
    result = cli(*args, "--no-bench", "--json")
    assert result.exit_code == 0, result.output
    import json

    rows = {r["implementation"]: r["structure"] for r in json.loads(result.stdout)["rows"]}
    assert set(rows) == {"Triton row_sum_kernel", "CuTe DSL row_sum"}
    for structure in rows.values():
        assert structure["global_loads"] == {"16": 2} and structure["global_stores"] == {"4": 1}
    bad = cli("compare", f"{TWIN_FILE}:row_sum_kernel", "-S", "elsewhere.py:k=float32")
    assert bad.exit_code == 2 and "give KERNEL=TYPES" in bad.stderr


@needs_dsl
@pytest.mark.parametrize(
    ("name", "config", "shared"), [("row_sum", {}, 16), ("mm", {}, 16384), ("mm", {"stages": 3}, 24576)]
)
def test_shared_memory_is_what_the_host_function_launches_with(examples, name, config, shared):
    """SmemAllocator memory is dynamic (the cubin declares none: cuobjdump's SHARED is 0); the host function's
    launch asks for it: a float a warp (4 warps), and stages x (A's and B's 64x32 fp16 slices, 4 KiB each)."""
    from irscope.capturing import capture

    v = (
        examples[name]
        if not config
        else capture(resolve_kernel(f"{KERNELS_FILE}:{name}", signature=KERNELS[name]), config, "sm_90")
    )
    assert v.resources.shared == shared
    assert ".extern .shared .align 1024 .b8 __dynamic_shmem__0[];" in v.listings[Stage.PTX]  # no static __shared__
    from irscope.annotating import annotate

    titles = [f.title for f in annotate(v, Stage.SASS).findings]
    assert any(t.startswith(f"uses {shared} B of shared memory") for t in titles), titles


# --- a cluster launch ------------------------------------------------------------------------------------------

CLUSTER = textwrap.dedent("""
    import cutlass
    import cutlass.cute as cute


    @cute.kernel
    def double_kernel(gA: cute.Tensor, gC: cute.Tensor):
        tx, _, _ = cute.arch.thread_idx()
        bx, _, _ = cute.arch.block_idx()
        i = bx * 128 + tx
        gC[i] = gA[i] * 2.0


    @cute.jit
    def double(mA: cute.Tensor, mC: cute.Tensor, cluster_m: cutlass.Constexpr = 1):
        n = cute.size(mA)
        double_kernel(mA, mC).launch(grid=(n // 128, 1, 1), block=(128, 1, 1), cluster=(cluster_m, 1, 1))
""")
CLUSTER_SIGNATURE = "float32[4096], float32[4096]"


@pytest.fixture(scope="module")
def clustered(tmp_path_factory):
    """``double`` launched in clusters of 1 and of 2 CTAs, for sm_90 (sm_90a), through the compile cache."""
    from irscope.capturing import capture

    path = tmp_path_factory.mktemp("cute-cluster") / "cute_cluster.py"
    path.write_text(CLUSTER)
    kernel = resolve_kernel(f"{path}:double", signature=CLUSTER_SIGNATURE)
    out = {m: capture(kernel, {"cluster_m": m}, "sm_90") for m in (1, 2)}
    assert all(v.ok for v in out.values()), [v.error for v in out.values()]
    return path, out


def host_cluster(lowered: str) -> list[int]:
    """The x, y, z the host function stores into the {i32, i32, i32} of its launch's cluster attribute, read
    from the lowered IR's text: the constants it stores through the three GEPs into that struct."""
    host = lowered.split("llvm.func @cutlass_double")[1].split("\n  llvm.func ")[0]
    constants = dict(re.findall(r"(%\d+) = llvm\.mlir\.constant\((\d+) : i32\) : i32", host))
    fields = re.findall(r"(%\d+) = llvm\.getelementptr %\d+\[0, \d\] : .*!llvm\.struct<\(i32, i32, i32\)>", host)
    stored = dict((pointer, value) for value, pointer in re.findall(r"llvm\.store (%\d+), (%\d+) : i32", host))
    return [int(constants[stored[f]]) for f in fields]


@needs_dsl
def test_the_cluster_a_kernel_launches_in_is_shown_as_its_host_code_sets_it(clustered, variant, cli):
    """The DSL's PTX requires no cluster (no .reqnctapercluster, and its PTX is the same for 1 and 2): the host
    code sets the shape on the launch (cudaLaunchAttributeClusterDimension), which dump, diff and compare show;
    the add, launched with no ``cluster=``, sets none and shows none."""
    from irscope.frontends.cute.stages import CUTE_LOWERED

    path, by_m = clustered
    for m, v in by_m.items():
        assert host_cluster(v.listings[CUTE_LOWERED]) == [m, 1, 1]
        assert v.resources.cluster == f"{m}x1x1"
        assert ".reqnctapercluster" not in v.listings[Stage.PTX] and ".explicitcluster" not in v.listings[Stage.PTX]
    assert "struct<(i32, i32, i32)>" not in variant.listings[CUTE_LOWERED] and variant.resources.cluster is None
    kernel = f"{path}:double"
    shown = cli("dump", kernel, "-S", CLUSTER_SIGNATURE, "-c", "cluster_m=2", "--arch", "sm_90", "--stage", "ptx")
    assert shown.exit_code == 0, shown.output
    assert " B shared · cluster 2x1x1 · compiled in " in shown.stderr  # the summary line, beside the listing
    plain = cli("dump", f"{ADD_FILE}:add", "-S", SIGNATURE, "--arch", "sm_90", "--stage", "ptx")
    assert plain.exit_code == 0 and " B shared · compiled in " in plain.stderr and "cluster" not in plain.stderr
    diffed = cli("diff", kernel, "-S", CLUSTER_SIGNATURE, "-a", "cluster_m=1", "-b", "cluster_m=2", "--arch", "sm_90")
    assert diffed.exit_code == 0, diffed.output
    assert re.search(r"\ncluster \(CTAs\)\s+1x1x1\s+2x1x1\s+changed\n", diffed.stdout), diffed.stdout[:2000]
    args = (
        "compare",
        kernel,
        f"{ADD_FILE}:add",
        "-S",
        f"{kernel}={CLUSTER_SIGNATURE}",
        "-S",
        f"{ADD_FILE}:add={SIGNATURE}",
    )
    compared = cli(*args, "--arch", "sm_90", "--no-bench")
    assert compared.exit_code == 0, compared.output
    head, one, two = compared.stdout.splitlines()[1:4]
    assert head.split()[-1] == "cluster" and one.split()[-1] == "1x1x1" and two.split()[-1] == "—"
