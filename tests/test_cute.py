"""CuTe DSL kernels beside Triton's: real ``cute.compile`` runs for sm_90a and others without a GPU.

The kernel is written for these tests in the DSL's idiom: a ``@cute.jit`` host function launching a
``@cute.kernel`` elementwise add, its block a ``tile_m`` x ``tile_n`` tile (two ``cutlass.Constexpr``
parameters, the config's axes). Skipped where ``nvidia-cutlass-dsl`` is not installed, except the
test of what irscope says then.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from dataclasses import replace

import pytest

from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

HAS_DSL = importlib.util.find_spec("cutlass") is not None
needs_dsl = pytest.mark.skipif(not HAS_DSL, reason="needs nvidia-cutlass-dsl (pip install irscope[cute])")

KERNELS = textwrap.dedent("""
    import cutlass
    import cutlass.cute as cute


    @cute.kernel
    def add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor, tile_m: cutlass.Constexpr, tile_n: cutlass.Constexpr):
        tx, ty, _ = cute.arch.thread_idx()
        bx, by, _ = cute.arch.block_idx()
        row = by * tile_m + ty
        col = bx * tile_n + tx
        gC[row, col] = gA[row, col] + gB[row, col]


    @cute.jit
    def add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, tile_m: cutlass.Constexpr = 4, tile_n: cutlass.Constexpr = 64):
        m, n = mA.shape
        add_kernel(mA, mB, mC, tile_m, tile_n).launch(grid=(n // tile_n, m // tile_m, 1), block=(tile_n, tile_m, 1))


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
SIGNATURE = "float32[128,256], float32[128,256], float32[128,256]"
ADD_LINE = next(i + 1 for i, t in enumerate(KERNELS.splitlines()) if "gC[row, col] = gA[row, col] + gB[row, col]" in t)

# The DSL's own ahead-of-time compile, as its documentation drives it: the architecture and what to keep in
# environment variables, nothing of irscope's imported.
REFERENCE = textwrap.dedent("""
    import importlib.util, sys
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor
    import cutlass.cute as cute
    spec = importlib.util.spec_from_file_location("kernels", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = make_fake_compact_tensor(cutlass.Float32, (128, 256), stride_order=(1, 0))
    for tile_n in (64, 128):
        cute.compile(module.add, a, a, a, tile_n=tile_n)
""")


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cute") / "cute_kernels.py"
    path.write_text(KERNELS)
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
    """The folder the DSL's own compile of ``add`` (tile_n 64 and 128, for sm_90a) kept its PTX and cubin in."""
    folder = tmp_path_factory.mktemp("kept")
    env = {
        **os.environ,
        "CUTE_DSL_ARCH": "sm_90a",
        "CUTE_DSL_KEEP": "ptx,cubin",
        "CUTE_DSL_LINEINFO": "1",
        "CUTE_DSL_DUMP_DIR": str(folder),
    }
    done = subprocess.run([sys.executable, "-c", REFERENCE, str(kernels_file)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder


@needs_dsl
@pytest.mark.parametrize("tile_n", [64, 128])
def test_ptx_and_cubin_are_byte_equal_to_the_dsls_own_kept_files_for_sm_90a(kernels_file, variant, reference, tile_n):
    ours = variant if tile_n == 64 else in_process(kernels_file, {"tile_n": tile_n}, "sm_90")
    (ptx,) = reference.glob(f"*_4_{tile_n}.sm_90a.ptx")  # the file's name ends in the constexprs' values
    (cubin,) = reference.glob(f"*_4_{tile_n}.sm_90a.cubin")
    assert ours.listings[Stage.PTX].encode() == ptx.read_bytes()
    assert ours.cubin == cubin.read_bytes()
    assert f".reqntid {tile_n}, 4, 1" in ptx.read_text()


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


@needs_dsl
def test_a_sweep_session_reads_back_in_a_process_that_never_loaded_the_frontend(kernels_file, run_irscope, tmp_path):
    """Its variants name the stage cute_ir, which only the CuTe DSL frontend registers: opening the session
    registers the stages of the frontend its header names."""
    swept = run_irscope("sweep", f"{kernels_file}:add", "-S", SIGNATURE, "-s", "tile_n=64,128", "-o", str(tmp_path))
    assert swept.returncode == 0, swept.stderr
    code = (
        "import sys; from irscope.session.store import Session; s = Session.open(sys.argv[1]); "
        "vs = [s.variant(e) for e in s.entries]; "
        "print(sorted((v.config.constexprs['tile_n'], 'cute_ir' in v.listings, '.reqntid' in v.listings['ptx']) "
        "for v in vs))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert done.stdout.strip() == "[(64, True, True), (128, True, True)]", done.stderr


@needs_dsl
def test_a_dynamic_extent_and_a_scalar_are_runtime_parameters_of_the_kernel(kernels_file):
    from irscope.capturing import capture

    kernel = resolve_kernel(f"{kernels_file}:scale", signature="float32[?,256], float32[?,256], float32")
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
