"""The stage registry is the one place a stage is declared: every spec must be complete,
and the CLI, the TUI and the help derive their stage lists from it."""

from __future__ import annotations

import pickle

import pytest

from irscope.stages import Stage, StageSpec, specs
from irscope.types import Config

SAMPLE = {
    Stage.SOURCE: "import triton\n",
    Stage.HELION_TRITON: "@triton.jit\ndef _helion_k(x):\n    # src[k.py:7]: y = x + 1\n    y = tl.load(x) + 1\n",
    Stage.TTIR: "module {\n  tt.func public @k() {\n    tt.return loc(#loc1)\n  } loc(#loc)\n} loc(#loc)\n"
    '#loc = loc("/k.py":1:0)\n#loc1 = loc("/k.py":2:4)\n',
    Stage.TTGIR: "#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], "
    "order = [0]}>\nmodule {\n}\n",
    Stage.GLUON: "#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], "
    'order = [0]}>\nmodule attributes {"ttg.num-warps" = 4 : i32} {\n}\n',
    Stage.LLIR: "define void @k() !dbg !3 {\n  ret void, !dbg !5\n}\n",
    Stage.PTX: ".version 8.7\n.target sm_90a\n\tld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];\n",
    Stage.SASS: "        /*0000*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n",
    Stage.AMDGCN: '\t.file\t1 "/" "k.py"\n\t.loc\t1 2 4 prologue_end ; k.py:2:4\n'
    "\tglobal_load_dwordx4 v[2:5], v[0:1], off\n",
}


# One listing per dialect, as its compiler writes it; a dialect registered without one fails below.
DIALECT_SAMPLE = {
    "python": "import triton\n\n@triton.jit\ndef k(x_ptr):\n    x = tl.load(x_ptr)  # one load\n",
    "cuda": "#include <cuda_fp16.h>\n__global__ void k(float* x) {\n  x[threadIdx.x] *= 2.0f;  // one store\n}\n",
    "cuda_lines": '#include <cuda.h>\nextern "C" __global__ void k(float* x) {\n#line 12 "/k.py"\n  x[threadIdx.x] *= 2.0f;\n}\n',
    "tir": '# from tvm.script import tirx as T\n@T.prim_func\ndef main(A: T.Buffer((128,), "float32")):\n    T.fill(A, 0)\n',
    "mlir": SAMPLE[Stage.TTIR] + SAMPLE[Stage.TTGIR],
    "llvm": "define void @k(ptr %0) !dbg !3 {\n  %2 = load float, ptr %0, align 4, !dbg !5\n  ret void, !dbg !5\n}\n",
    "ptx": SAMPLE[Stage.PTX] + "\t.loc\t1 2 4\n\tadd.s32 \t%r5, %r1, %r2;\n\tst.global.b32 \t[%rd1+0], %r5;\n",
    "sass": SAMPLE[Stage.SASS] + "        /*0010*/                   IADD3 R5, R4, R5, RZ ;\n"
    "        /*0020*/                   STG.E desc[UR4][R2.64], R5 ;\n",
    "amdgcn": SAMPLE[Stage.AMDGCN] + "\tv_add_f32_e32 v2, v2, v3\n\ts_waitcnt vmcnt(0)\n"
    "\tglobal_store_dword v[0:1], v2, off\n",
}


def _dialects():
    from irscope.ir.dialects import DIALECTS

    return list(DIALECTS.values())


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.key)
def test_every_stage_spec_is_complete_and_names_a_registered_dialect(spec: StageSpec):
    from irscope.capturing.pipeline import DERIVED
    from irscope.ir.dialects import DIALECTS, dialect_of

    assert spec.key and spec.label and spec.description and spec.provided_by
    assert spec.file_extension("/k/square.py")
    assert spec.dialect in DIALECTS, f"{spec.key} names the dialect {spec.dialect!r}, which nobody registered"
    assert dialect_of(spec.stage) is DIALECTS[spec.dialect]
    assert (spec.stage in DERIVED) == bool(spec.derived_from), f"{spec.key}: derived_from and DERIVED disagree"


def test_sass_is_a_stage_derived_from_the_cubin():
    assert Stage.SASS.spec.derived_from == "cubin"
    assert [s for s in Stage.all() if s.spec.derived_from] == [Stage.SASS]


WORK = ("locations", "normalise", "stats", "lexer", "names", "web lexer", "explainer")


@pytest.mark.parametrize("work", WORK)
@pytest.mark.parametrize("dialect", _dialects(), ids=lambda d: d.key)
def test_every_dialect_does_every_kind_of_work(dialect, work):
    """Each dialect against each kind of work, on a listing of its own: a new dialect that misses one fails here."""
    from irscope.annotating.explain import EXPLAINERS
    from irscope.diffing.canonical import canonical_diff_texts
    from irscope.types import KernelId, Status, Variant

    assert dialect.key in DIALECT_SAMPLE, f"no sample listing of the dialect {dialect.key} in this test"
    text = DIALECT_SAMPLE[dialect.key]
    lines = text.splitlines()
    assert dialect.description and dialect.comment and dialect.label
    if work == "locations":
        assert len(dialect.locations(text, "/k.py")) == len(lines)
    elif work == "normalise":
        normalised = dialect.normalise(text)
        assert normalised and all(0 <= x.index < len(lines) for x in normalised)
    elif work == "stats":
        stats = dialect.stats(Stage.SOURCE, text, True)
        assert stats.stage is Stage.SOURCE
        assert (stats.count > 0) == (dialect.names is not None), "a compiled listing's instructions are counted"
    elif work == "lexer":
        lexer = dialect.lexer()(stripnl=False, ensurenl=False)
        for line in lines:
            assert "".join(value for _, value in lexer.get_tokens(line)) == line
    elif work == "names":
        if dialect.names is None:
            assert dialect.key in ("python", "cuda", "cuda_lines", "tir"), (
                f"{dialect.key}: a diff would pair none of its names"
            )
            return
        found = [n for line in lines for n in dialect.names.pattern.split(line)[1::2]]
        assert found, f"{dialect.key}: its names pattern finds no name in its own listing"
        stage = next(s for s in Stage.all() if s.spec.dialect == dialect.key)
        assert canonical_diff_texts(stage, text, text)
    elif work == "web lexer":
        assert dialect.web_lexer in _report_lexers(), f"report.js has no lexer {dialect.web_lexer!r}"
    elif work == "explainer":
        assert (dialect.key in EXPLAINERS) == dialect.explained
        if dialect.explained:
            stage = next(s for s in Stage.all() if s.spec.dialect == dialect.key)
            variant = Variant(KernelId("k", "/k.py", "0"), Config(), "sm_90", Status.OK, {stage: text})
            explain = EXPLAINERS[dialect.key](variant, stage)
            assert any(explain(line).parts for line in lines if line.strip())


def _report_lexers() -> set[str]:
    """The keys of ``const LEXERS = {...}`` in the report's script."""
    import re
    from importlib.resources import files

    script = files("irscope.report").joinpath("assets/report.js").read_text()
    block = script[script.index("const LEXERS = {") : script.index("\n};", script.index("const LEXERS = {"))]
    return set(re.findall(r"^  (\w+): \[", block, re.M))


def test_the_report_page_lexes_each_stage_by_its_dialect_and_the_source_by_its_language():
    from irscope.report.payload import web_lexers

    assert web_lexers([Stage.TTGIR, Stage.PTX, Stage.AMDGCN], "/k/square.py") == {
        "source": "source",
        "ttgir": "mlir",
        "ptx": "ptx",
        "amdgcn": "amdgcn",
    }
    assert web_lexers([Stage.SASS], "/k/add.cu") == {"source": "cuda", "sass": "sass"}


def test_a_new_stage_of_a_known_dialect_is_one_entry(tmp_path):
    """A stage registered with one StageSpec (as a frontend would: a Gluon or CuTe DSL IR is MLIR) is parsed,
    normalised, counted, highlighted and diffed by its dialect, with nothing else added."""
    import subprocess
    import sys

    code = f"""
from irscope.stages import Stage, StageSpec, register
stage = register(StageSpec("new_ir", "New IR", "mlir", "mlir", "a new language's IR", "its compile"))
from irscope.ir.dialects import locations, normalize, stage_stats
from irscope.ir.highlight import highlight_line
from irscope.diffing.canonical import canonical_diff_texts
text = {SAMPLE[Stage.TTIR]!r}
assert locations(stage, text, "/k.py")[2].line == 2
assert normalize(stage, text) and stage_stats(stage, text).stage is stage
assert "".join(p for _, p in highlight_line(stage, text.splitlines()[1])) == text.splitlines()[1]
ssa = "%0 = arith.constant 1 : i32\\n%1 = arith.addi %0, %0 : i32\\ntt.return %1 : i32\\n"
a, b, ops = canonical_diff_texts(stage, ssa, ssa.replace("%1", "%7").replace("%0", "%4"))
assert [x.text for x in a] == [x.text for x in b] and all(op[0] == "equal" for op in ops)
from irscope.cli.options import ALL_STAGES
assert "new_ir" in ALL_STAGES and "cute_ir" in ALL_STAGES
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.key)
def test_every_stage_parses_highlights_normalises_and_counts_a_listing(spec: StageSpec):
    from irscope.ir.dialects import locations, normalize, stage_stats
    from irscope.ir.highlight import highlight_line

    stage = spec.stage
    text = SAMPLE[stage]
    assert len(locations(stage, text, "/k.py")) == len(text.splitlines())
    assert normalize(stage, text)
    assert stage_stats(stage, text).stage is stage
    first = text.splitlines()[0]
    assert "".join(part for _, part in highlight_line(stage, first)) == first


def test_a_stage_is_its_name_interned_and_survives_pickling():
    assert Stage("ptx") is Stage.PTX and Stage.PTX == "ptx"
    assert pickle.loads(pickle.dumps(Stage.SASS)) is Stage.SASS
    assert Stage("python") is Stage.SOURCE  # what sessions written before the rename call it
    with pytest.raises(ValueError):
        Stage("no-such-stage")


def test_the_source_stage_is_stored_with_the_kernel_files_own_extension():
    assert Stage.SOURCE.file_name("/x/square.py") == "source.py"
    assert Stage.SOURCE.file_name("/x/kernels.cu") == "source.cu"
    assert Stage.LLIR.file_name("/x/square.py") == "llir.ll"


def test_cli_choices_tui_tabs_and_help_come_from_the_registry():
    """In a process of its own: a frontend registers its own stages when it is first loaded (CuTe DSL's IR), so in
    this one the registry may have grown; the CLI's lists are read when first parsed, with every built-in
    frontend's stages registered, and the TUI's tabs when a screen opens."""
    import subprocess
    import sys

    code = """
from irscope.cli.options import ALL_STAGES, EXPLAINED_STAGES, STAGE_CHOICES
from irscope.stages import specs
from irscope.tui.app import all_stage_tabs
from irscope.tui.screens.help import help_text

assert "cute_ir" not in [spec.key for spec in specs()]  # nothing of the CuTe DSL frontend loaded yet
assert "cute_ir" in STAGE_CHOICES
keys = [spec.key for spec in specs()]
assert ALL_STAGES == keys and STAGE_CHOICES == keys[1:]
assert EXPLAINED_STAGES == ["ptx", "sass", "amdgcn"]
assert [k for k, _ in all_stage_tabs()] == keys + ["chart", "passes"]
assert ", ".join(spec.label for spec in specs()) in help_text()
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_languages_sessions_offer_exactly_the_stages_its_compile_makes():
    # The TUI's tabs, dump's choices and capture's checks ask StageSpec.made_for; each Kernel class says what its
    # compile makes. They must agree: a TileLang or CuTe DSL session offered TTIR/TTGIR/LLIR tabs that could
    # only say "not captured". The vendor's own stages (PTX, SASS, AMDGCN) follow the arch, not the language.
    from irscope.frontends.cuda.kernel import CudaKernel
    from irscope.frontends.cute.kernel import CuteKernel
    from irscope.frontends.gluon.kernel import GluonKernel
    from irscope.frontends.helion.kernel import HelionKernel
    from irscope.frontends.numba.kernel import NumbaKernel
    from irscope.frontends.tilelang.kernel import TileLangKernel
    from irscope.frontends.triton.kernel import TritonKernel
    from irscope.tui.app import stage_tabs

    by_vendor = {Stage.SOURCE, Stage.PTX, Stage.SASS, Stage.AMDGCN}
    kinds = (TritonKernel, GluonKernel, HelionKernel, CuteKernel, TileLangKernel, NumbaKernel, CudaKernel)
    for kind in kinds:
        frontend = kind.frontend
        offered = {s for s in Stage.all() if any(s.spec.made_for(v, frontend) for v in ("nvidia", "amd"))}
        assert offered - by_vendor == set(kind.stages) - by_vendor, frontend
    tabs = {f: dict(stage_tabs({"nvidia"}, {f})) for f in ("triton", "gluon", "tilelang", "cute", "cuda")}
    assert "ttir" in tabs["triton"] and "ttir" not in tabs["gluon"] and "ttgir" in tabs["gluon"]
    assert not {"ttir", "ttgir", "llir"} & (set(tabs["tilelang"]) | set(tabs["cute"]) | set(tabs["cuda"]))
    assert "tilelang_cuda" in tabs["tilelang"] and "cute_lowered" in tabs["cute"] and "ptx" in tabs["cuda"]
