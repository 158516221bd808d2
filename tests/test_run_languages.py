"""``irscope run`` of a program that compiles a Triton kernel, a CuTe DSL kernel and TileLang kernels, on this
CPU machine (the stand-in card): each becomes a session of its own language, its stages those the language's
frontend captures, its PTX byte for byte the one the program's own compile kept, its lines the program's.

The program is written for the test; it keeps its own compiles' PTX as each language's documentation says
(Triton's compiled kernel's ``asm``, the DSL's ``CUTE_DSL_KEEP=ptx`` with ``CUTE_DSL_LINEINFO=1``, TileLang's
``export_ptx`` of a compile with ``tl.emit_line_directives``), so nothing is compiled a third time. Real
compiles throughout; one run shared by every test (TileLang's first compile alone takes ~45 s here).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import pytest
from test_run import irscope
from test_tilelang import CU_FILE

from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("cutlass") is None or importlib.util.find_spec("tilelang") is None,
    reason="needs nvidia-cutlass-dsl and tilelang (pip install irscope[cute,tilelang])",
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "run_languages.py"  # docs/run.md's program
PROGRAM = EXAMPLE.read_text()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("languages")
    (folder / "prog.py").write_text(PROGRAM)
    kept = folder / "kept"
    (kept / "cute").mkdir(parents=True)
    import os

    # The DSL's own switches for the program's compile, as tests/test_cute.py's reference sets them.
    env = {"CUTE_DSL_ARCH": "sm_90a", "CUTE_DSL_KEEP": "ptx", "CUTE_DSL_LINEINFO": "1"}
    env["CUTE_DSL_DUMP_DIR"] = str(kept / "cute")
    env["TILELANG_CACHE_DIR"] = str(folder / "tilelang-cache")  # TileLang's cache keeps another run's paths
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", str(kept), cwd=folder)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return folder, result


def line_of(text: str) -> int:
    return next(i + 1 for i, t in enumerate(PROGRAM.splitlines()) if text in t)


def session_variant(folder: Path, name: str):
    from irscope.session import Session

    session = Session.open(folder / "out" / "kernels" / name)
    (entry,) = session.entries
    return session, session.variant(entry)


def test_each_language_is_a_session_of_its_own(recorded):
    folder, result = recorded
    assert result.returncode == 0, result.stderr
    assert "program finished" in result.stdout
    index = json.loads((folder / "out" / "run.json").read_text())
    kernels = {k["name"]: k for k in index["kernels"]}
    assert set(kernels) == {"add_one_kernel", "scale", "double", "negate"}
    assert kernels["scale"]["frontend"] == "cute" and kernels["double"]["frontend"] == "tilelang"
    assert all(k["session"] == f"kernels/{k['name']}" for k in kernels.values())
    assert index["not_recorded"] == []
    assert kernels["add_one_kernel"]["frontend"] == "triton"
    # each language named, the most kernels first (ties as the table lists them)
    assert "2 TileLang kernels, 1 Triton kernel, 1 CuTe DSL kernel, " in result.stdout


def test_the_cute_session_is_what_the_frontend_captures_and_its_ptx_the_dsls(recorded):
    from irscope.frontends.cute.stages import CUTE_IR, CUTE_LOWERED

    folder, _ = recorded
    session, variant = session_variant(folder, "scale")
    assert session.frontend == "cute" and variant.frontend == "cute" and variant.ok
    assert variant.config.constexprs == {"tile": 64} and variant.arch == "sm_90"
    # The runtime arguments as -S describes them, from the program's own: the session resumes from them.
    assert session.signature == "float32[128,256]:16, float32[128,256]:16, float32"
    assert {Stage.SOURCE, CUTE_IR, CUTE_LOWERED, Stage.PTX, Stage.SASS} <= set(variant.listings)
    (kept,) = (folder / "kept" / "cute").glob("*.sm_90a.ptx")
    assert variant.listings[Stage.PTX] == kept.read_text()
    smap = SourceMap(variant)
    ptx = variant.listings[Stage.PTX].splitlines()
    mul = next(i for i, t in enumerate(ptx) if "mul.f32" in t)
    assert smap.source_line(Stage.PTX, mul) == line_of("# the CuTe DSL multiply")


def test_the_tilelang_sessions_are_what_the_frontend_captures_and_their_ptx_tilelangs(recorded):
    from irscope.frontends.tilelang.stages import CUDA, LOWERED_TIR, TIR

    folder, _ = recorded
    session, variant = session_variant(folder, "double")
    assert session.frontend == "tilelang" and variant.ok
    assert variant.config.constexprs == {"N": 2048, "block": 256}
    assert {Stage.SOURCE, TIR, LOWERED_TIR, CUDA, Stage.PTX, Stage.SASS} <= set(variant.listings)
    # Two of TileLang's own compiles differ only in the .file naming the temporary .cu its nvcc call compiled, and
    # in the DWARF strings after the code that spell it (tests/test_tilelang.py compares the same way).
    ours, theirs = variant.listings[Stage.PTX], (folder / "kept" / "double.ptx").read_text()
    assert CU_FILE.search(ours) and CU_FILE.search(theirs)
    assert (
        CU_FILE.sub("", ours).split("\t.section\t.debug_str")[0]
        == CU_FILE.sub("", theirs).split("\t.section\t.debug_str")[0]
    )
    smap = SourceMap(variant)
    ptx = variant.listings[Stage.PTX].splitlines()
    add = next(i for i, t in enumerate(ptx) if "add.f32" in t)
    assert smap.source_line(Stage.PTX, add) == line_of("# the TileLang add")
    # A PrimFunc handed to tilelang.compile as it is: no parameters, its own session, its lines the program's.
    _, plain = session_variant(folder, "negate")
    assert plain.ok and plain.config.constexprs == {}
    neg = next(i for i, t in enumerate(plain.listings[Stage.PTX].splitlines()) if "neg.f32" in t)
    assert SourceMap(plain).source_line(Stage.PTX, neg) == line_of("# the TileLang negation")


def test_the_triton_kernel_beside_them_is_the_jits(recorded):
    folder, _ = recorded
    _, variant = session_variant(folder, "add_one_kernel")
    assert variant.frontend == "triton" and variant.listings[Stage.PTX] == (folder / "kept" / "triton.ptx").read_text()


FAILING = textwrap.dedent("""
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_tensor


    @cute.kernel
    def copy_kernel(gA: cute.Tensor, gC: cute.Tensor):
        tx, _, _ = cute.arch.thread_idx()
        gC[tx] = gA[tx]


    @cute.jit
    def copy(mA: cute.Tensor, mC: cute.Tensor, threads: cutlass.Constexpr = 64):
        copy_kernel(mA, mC).launch(grid=(1, 1, 1), block=(threads, 1, 1))


    @cute.jit
    def broken(mA: cute.Tensor):
        cute.no_such_operation(mA)


    a = make_fake_compact_tensor(cutlass.Float32, (64,))
    try:
        cute.compile(broken, a, options="--gpu-arch sm_90a")
    except Exception as exc:
        print("the program's compile failed:", type(exc).__name__)
    strided = make_fake_tensor(cutlass.Float32, (64,), stride=(2,))
    cute.compile(copy, strided, strided, options="--gpu-arch sm_90a")
    print("program finished")
""")


def test_a_compile_that_fails_or_cannot_be_described_is_listed_with_why_and_the_exit_says_so(tmp_path):
    """The program's own failed compile (it catches the error and goes on), and a compile of a strided tensor,
    which ``-S`` (row-major tensors) cannot describe: each listed with why; the run exits 1."""
    (tmp_path / "prog.py").write_text(FAILING)
    result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert "program finished" in result.stdout and "the program's compile failed" in result.stdout
    assert result.returncode == 1, result.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    assert index["kernels"] == [] and index["exit_code"] == 0
    why = {lost["kernel"]: lost["why"] for lost in index["not_recorded"]}
    assert set(why) == {"broken", "copy"}
    assert why["broken"].startswith("its compile failed in the program: ") and "no_such_operation" in why["broken"]
    assert why["copy"].startswith("irscope could not describe this compile: ")
    assert "not the row-major tensor -S" in why["copy"] and "float32[64]" in why["copy"]
    assert "broken (" in result.stderr and "was launched but not recorded" in result.stderr


def test_the_arch_a_tilelang_target_names_is_read_as_tilelang_spells_it():
    from irscope.frontends.tilelang.listen import target_arch

    assert target_arch({"kind": "cuda", "arch": "sm_90a"}) == "sm_90a"
    assert target_arch("cuda -arch=sm_100a") == "sm_100a"
    assert target_arch('{"kind": "cuda", "arch": "sm_80"}') == "sm_80"
    assert target_arch("cuda") is None and target_arch("{not json") is None and target_arch(None) is None
    # an AMD GPU's: TileLang's HIP target names it as mcpu (and normalises a dict into a TVM Target)
    from tilelang.backend.target import determine_target

    hip = {"kind": "hip", "mcpu": "gfx942"}
    assert target_arch(hip) == target_arch(json.dumps(hip)) == "gfx942"
    assert target_arch(determine_target(hip, return_object=True)) == "gfx942"
    assert target_arch({"kind": "hip"}) is None
