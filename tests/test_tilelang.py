"""TileLang kernels beside Triton's: real TileLang lowerings and nvcc compiles for sm_90a, without a GPU.

The kernels (examples/tilelang_kernels.py) are written for these tests in TileLang's idioms: an elementwise add (``T.Parallel``), a row
reduction (``T.reduce_max`` over a fragment) and a tiled matmul (``T.Pipelined`` over shared tiles and
``T.gemm``), each a ``@tilelang.jit`` factory whose parameters (sizes, block sizes, ``num_stages``,
``threads``) are the config's axes. Skipped where ``tilelang`` is not installed, except the test of what
irscope says then.
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

from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage

HAS_TILELANG = importlib.util.find_spec("tilelang") is not None
needs_tilelang = pytest.mark.skipif(not HAS_TILELANG, reason="needs tilelang (pip install irscope[tilelang])")

# The kernels (examples/tilelang_kernels.py, which docs/tilelang.md also uses), compiled from a copy in a folder
# of the test's own.
KERNELS = (Path(__file__).resolve().parent.parent / "examples" / "tilelang_kernels.py").read_text()
LINES = KERNELS.splitlines()
ADD_LINE = next(i + 1 for i, t in enumerate(LINES) if "C[bx * block + i] = A[bx * block + i]" in t)
NAMES = ("add", "row_max", "matmul")

# TileLang's own ahead-of-time compile, as its documentation drives it, nothing of irscope's imported: a JIT
# kernel for the arch (with the same line-directive pass config irscope asks for), and its own exports.
REFERENCE = textwrap.dedent("""
    import importlib.util, sys
    import tilelang
    spec = importlib.util.spec_from_file_location("kernels", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in sys.argv[3:]:
        kernel = tilelang.compile(
            getattr(module, name).get_tir(),
            target={"kind": "cuda", "arch": "sm_90a"},
            pass_configs={"tl.emit_line_directives": True},
        )
        with open(f"{sys.argv[2]}/{name}.cu", "w") as f:
            f.write(kernel.get_kernel_source())
        kernel.export_ptx(f"{sys.argv[2]}/{name}.ptx")
        kernel.export_sass(f"{sys.argv[2]}/{name}.sass")
""")
# .file	1 "/tmp/tmpab12cd/tvm_kernels.cu"   (the temporary file TileLang's nvcc call compiles, a new one each time)
CU_FILE = re.compile(r'^\t\.file\t1 "[^"]*tvm_kernels[^"]*\.cu"$', re.MULTILINE)


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tilelang") / "tl_kernels.py"
    path.write_text(KERNELS)
    return path


@pytest.fixture(scope="module")
def variants(kernels_file):
    """The three kernels with their default parameters, compiled in this process for sm_90 (TileLang imported
    once), uncached."""
    from irscope.capturing import capture

    out = {}
    for name in NAMES:
        v = capture(resolve_kernel(f"{kernels_file}:{name}"), {}, "sm_90", compile_timeout=None, use_cache=False)
        assert v.ok, v.error
        out[name] = v
    return out


@needs_tilelang
def test_a_tilelang_kernel_gives_its_tir_cuda_ptx_and_sass_mapped_to_its_python_lines(variants, kernels_file):
    from irscope.frontends.tilelang.stages import CUDA, LOWERED_TIR, TIR

    v = variants["add"]
    assert v.frontend == "tilelang" and v.compile_info.compiler.startswith("tilelang 0.")
    tir, lowered, cuda, ptx, sass = (v.listings[s] for s in (TIR, LOWERED_TIR, CUDA, Stage.PTX, Stage.SASS))
    assert "@T.prim_func" in tir and "T.Parallel" not in tir and "T.parallel(256)" in tir
    assert "main_kernel" in lowered and "threadIdx.x" in lowered
    assert f'#line {ADD_LINE} "{kernels_file}"' in cuda
    assert ".target sm_90a" in ptx and f'.file\t2 "{kernels_file}"' in ptx
    assert v.compile_info.options["gpu_arch"] == "sm_90a" and v.compile_info.threads_per_block == 256
    smap = SourceMap(v)
    add = next(i for i, t in enumerate(ptx.splitlines()) if "add.f32" in t)
    assert smap.source_line(Stage.PTX, add) == ADD_LINE
    fadd = next(i for i, t in enumerate(sass.splitlines()) if " FADD " in t)
    assert smap.source_line(Stage.SASS, fadd) == ADD_LINE
    # The generated CUDA's own statement maps through its #line directive; its TIR names no line at all.
    store = next(i for i, t in enumerate(cuda.splitlines()) if t.lstrip().startswith("C["))
    assert smap.source_line(CUDA, store) == ADD_LINE
    assert not any(smap.source_line(TIR, i) for i in range(len(tir.splitlines())))
    # The reduction's and the matmul's copies out map to their lines; the reduction itself and the gemm are
    # TileLang's macros, whose spans (and so #line directives) name TileLang's own Python, not the call.
    rv, mv = variants["row_max"], variants["matmul"]
    copies = {line_of("T.copy(X["), line_of("T.copy(best, Y[")}
    assert copies <= set(SourceMap(rv).own_lines(Stage.PTX))
    assert from_tilelang(rv, "max.f32") == {"language/reduce_op.py"}
    assert line_of("T.copy(C_local, C[") in set(SourceMap(mv).own_lines(Stage.PTX))
    assert from_tilelang(mv, "wgmma.mma_async") == {"cuda/intrinsics/macro/wgmma_macro_generator.py"}


@needs_tilelang
def test_the_matmuls_shared_tiles_are_its_dynamic_shared_memory(variants):
    """num_stages copies of the A and B tiles (fp16), asked for at launch: the lowered function's
    dyn_shared_memory_buf, which ptxas never sees; 256 threads, the 128 asked for and TileLang's producer warps."""
    mv = variants["matmul"]
    assert mv.resources.shared == 2 * (64 * 32 + 32 * 64) * 2
    assert mv.compile_info.threads_per_block == 256 and ".maxntid 256, 1, 1" in mv.listings[Stage.PTX]
    assert variants["add"].resources.shared == 0


@needs_tilelang
def test_the_python_api_takes_a_tilelang_jit_factory(kernels_file):
    import irscope
    from irscope.frontends.files import import_file

    module = import_file(kernels_file, "test_tilelang", "kernel file")
    v = irscope.capture(module.add, {"block": 128}, arch="sm_90")
    assert v.ok and v.frontend == "tilelang", v.error
    assert ".maxntid 128, 1, 1" in v.listings[Stage.PTX]
    assert (
        SourceMap(v).source_line(
            Stage.PTX, next(i for i, t in enumerate(v.listings[Stage.PTX].splitlines()) if "add.f32" in t)
        )
        == ADD_LINE
    )


def sections(listing: str) -> dict[str, str]:
    """nvdisasm's listing of a cubin, by section (``.text.main_kernel``: the machine code)."""
    parts = re.split(r"(?m)^(?=\t*\.section\t)", listing)
    return {part.split()[1].split(",")[0]: part for part in parts[1:]} | {"": parts[0]}


def line_of(text: str) -> int:
    return next(i + 1 for i, t in enumerate(LINES) if text in t)


def from_tilelang(variant, instruction: str) -> set[str]:
    """The file each PTX line holding ``instruction`` came from (its outermost frame), relative to TileLang's
    installed package (a file outside it is named whole)."""
    import tilelang

    package = str(Path(tilelang.__file__).parent) + "/"
    smap, out = SourceMap(variant), set()
    for i, text in enumerate(variant.listings[Stage.PTX].splitlines()):
        loc = smap.loc(Stage.PTX, i) if instruction in text else None
        if loc is not None:
            out.add((loc.callers[-1] if loc.callers else loc).file.removeprefix(package))
    return out


@pytest.fixture(scope="module")
def reference(kernels_file, tmp_path_factory):
    """TileLang's own compile of the three kernels for sm_90a: its CUDA, its export_ptx, its export_sass."""
    from irscope.nvidia.sass import nvdisasm_path

    folder = tmp_path_factory.mktemp("tilelang-own")
    tools = str(Path(nvdisasm_path()).parent)  # export_sass looks for nvdisasm on PATH
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "TILELANG_CACHE_DIR": str(folder / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", REFERENCE, str(kernels_file), str(folder), *NAMES],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@needs_tilelang
@pytest.mark.parametrize("name", NAMES)
def test_cuda_ptx_and_sass_are_byte_equal_to_tilelangs_own_compile_for_sm_90a(variants, reference, name, tmp_path):
    """The PTX's one line that differs is the ``.file`` naming the temporary .cu TileLang's nvcc call compiled
    (two of TileLang's own compiles differ there too); nvcc spells that path, hashed, into the DWARF strings
    of inlined functions after the code, so those are left out as well. SASS: TileLang's export_sass is
    nvdisasm of its cubin; nvdisasm of irscope's gives every section byte for byte (the machine code, its
    .nv.info, constants) but the debug sections, which spell that path too."""
    from irscope.frontends.tilelang.stages import CUDA
    from irscope.nvidia.sass import nvdisasm_path

    ours = variants[name]
    assert ours.listings[CUDA] == (reference / f"{name}.cu").read_text()
    theirs = (reference / f"{name}.ptx").read_text()
    ptx = ours.listings[Stage.PTX]
    assert CU_FILE.search(ptx) and CU_FILE.search(theirs)

    def code(text: str) -> str:
        return CU_FILE.sub("", text).split("\t.section\t.debug_str")[0]

    assert code(ptx) == code(theirs)
    cubin = tmp_path / f"{name}.cubin"
    cubin.write_bytes(ours.cubin)
    # as export_sass runs it: nvdisasm's warnings (stderr) and its listing in one stream
    sass = subprocess.run(
        [nvdisasm_path(), str(cubin)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True
    ).stdout
    ours_by, theirs_by = sections(sass), sections((reference / f"{name}.sass").read_text())
    assert ours_by.keys() == theirs_by.keys() and any(k.startswith(".text.") for k in ours_by)
    differ = {k for k in ours_by if ours_by[k] != theirs_by[k]}
    # the debug sections spell the temporary .cu's path: its line tables, the PTX kept in the cubin, DWARF strings
    assert differ <= {".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt", ".debug_str"}, differ


@needs_tilelang
@pytest.mark.parametrize("name", NAMES)
def test_registers_come_from_the_cubin_as_cuobjdump_reads_them(variants, name, tmp_path):
    """nvcc runs without ptxas's report in TileLang's calls: the cubin's .nv.info says, as it does to
    ``cuobjdump -res-usage``."""
    from irscope.nvidia.sass import nvdisasm_path

    v = variants[name]
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
    assert v.resources.registers > 0


@needs_tilelang
def test_factory_parameters_are_the_configs_axes_swept_and_diffed(kernels_file, run_irscope, tmp_path):
    kernel = resolve_kernel(f"{kernels_file}:matmul")
    table = kernel.parameter_table()
    assert list(table) == ["M", "N", "K", "block_M", "block_N", "block_K", "num_stages", "threads"]
    assert table["num_stages"] == {"default": 2, "sweep": [2], "kind": "constexpr"}
    session = tmp_path / "add-blocks"
    swept = run_irscope("sweep", f"{kernels_file}:add", "-s", "block=128,512", "-o", str(session), timeout=900)
    assert swept.returncode == 0, swept.stderr
    code = (
        "import sys; from irscope.session.store import Session; s = Session.open(sys.argv[1]); "
        "vs = [s.variant(e) for e in s.entries]; "
        "print(json.dumps(sorted([v.config.constexprs['block'], 'tilelang_cuda' in v.listings, "
        "v.compile_info.threads_per_block] for v in vs)))"
    )
    done = subprocess.run([sys.executable, "-c", "import json; " + code, str(session)], capture_output=True, text=True)
    assert json.loads(done.stdout) == [[128, True, 128], [512, True, 512]], done.stderr
    diff = run_irscope("diff", str(session), "-a", "block=128", "-b", "block=512")
    assert diff.returncode == 0, diff.stderr
    assert ".maxntid 128, 1, 1" in diff.stdout and ".maxntid 512, 1, 1" in diff.stdout
    assert re.search(rf"^\s*\*?\s*{ADD_LINE}\s+C\[bx \* block \+ i\]", diff.stdout, re.MULTILINE), diff.stdout


@needs_tilelang
def test_sm_100_compiles_without_a_gpu(kernels_file):
    from irscope.capturing import capture

    v = capture(resolve_kernel(f"{kernels_file}:add"), {}, "sm_100", compile_timeout=None, use_cache=False)
    assert v.ok, v.error
    assert ".target sm_100a" in v.listings[Stage.PTX] and " FADD " in v.listings[Stage.SASS]


def test_a_missing_parameter_is_one_line(tmp_path, cli):
    path = tmp_path / "needs.py"
    path.write_text("import tilelang\n\n@tilelang.jit\ndef k(N, block=128):\n    pass\n")
    done = cli("dump", f"{path}:k")
    assert done.exit_code == 2 and done.stderr.startswith("irscope: error: constexpr 'N' of k has no value; set it")
    assert len(done.stderr.splitlines()) == 1


# As where tilelang is not installed, for irscope and its workers alike: the import system finds no tilelang.
HIDE = textwrap.dedent("""
    import sys

    class _NoTileLang:
        def find_spec(self, name, path=None, target=None):
            if name == "tilelang" or name.startswith("tilelang."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _NoTileLang())
""")


def test_without_tilelang_one_line_names_the_extra(kernels_file, run_irscope, tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(HIDE)
    hidden = {"PYTHONPATH": str(hide), "IRSCOPE_CACHE_DIR": str(tmp_path / "cache")}
    done = run_irscope("dump", f"{kernels_file}:add", env=hidden)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == "irscope: error: dump needs tilelang, which is not installed: pip install irscope[tilelang]\n"
    # The kernel is found and its axes read with ast alone: that needs no TileLang.
    kernel = resolve_kernel(f"{kernels_file}:add")
    assert kernel.frontend == "tilelang" and list(kernel.parameter_table()) == ["N", "block", "dtype"]


def test_line_directives_are_read_as_the_preprocessor_counts_them():
    """The line after ``#line N "f"`` is line N of f, the next N + 1 (what nvcc's line table records, and so the
    PTX's .loc); the directives, blank lines and what comes before the first directive name nothing."""
    from irscope.ir.locations import line_directive_locations

    text = (
        'extern "C" __global__ void k() {\n#line 12 "/k.py"\n  for (;;) {\n\n    x = 1;\n#line 3 "/lib.py"\n  y;\n}\n'
    )
    found = [(loc.file, loc.line) if loc else None for loc in line_directive_locations(text)]
    assert found == [None, None, ("/k.py", 12), None, ("/k.py", 14), None, ("/lib.py", 3), ("/lib.py", 4)]
