"""No file a session, a downloaded folder or a Python file's syntax names is run to compile its kernel.

Three ways a kernel's frontend used to run code it was only pointed at:

- a session's ``kernel.frontend`` and ``kernel.file``: every frontend value a session
  can hold (triton, cuda, numba, inductor, one irscope does not know) is tried, with
  and without a stored signature, against a file whose import creates a canary;
- ``<stem>_spec.py`` beside a ``.cu``: imported by every command that opened the file;
- a ``load_inline`` call whose ``cuda_sources`` is not written out as a string: the
  file was imported (as a Triton file) to find the kernel.

Each payload would create its canary; none may. The controls take the old path
(import the file, the spec, compile what it defines) and show that each one runs.
Real compiles, no mocks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from expect import one_line_error

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def touch(canary: Path) -> str:
    return f'__import__("pathlib").Path("{canary}").touch()'


TRITON_PY = """import triton
import triton.language as tl

{P}


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""

NUMBA_PY = """from numba import cuda

{P}


@cuda.jit("void(float32[:])")
def k(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * 2
"""

GLUON_PY = """from triton.experimental import gluon
from triton.experimental.gluon import language as gl

{P}


@gluon.jit
def k(x_ptr, n, BLOCK: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=gl.BlockedLayout([1], [32], [4], [0]))
    gl.store(x_ptr + offs, gl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""

CUTE_PY = """{P}
import cutlass
import cutlass.cute as cute


@cute.jit
def k(mA: cute.Tensor, BLOCK: cutlass.Constexpr = 128):
    pass
"""

K_CU = """// doubles x: written for the tests
__global__ void k(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""

K_SPEC = """{P}
from irscope.spec import CudaSpec, Tensor, Tunable, cdiv

k = CudaSpec("k", source="k.cu", sizes=dict(n=4096), tensors=dict(x=Tensor("float32", "n", output=True)),
             args=lambda a: (a.x, a.n), block=Tunable("256", ("128", "256")),
             grid=lambda a: (cdiv(a.n, a.block_x),), reference=lambda a: a.x * 2)
"""


def kernel_file(tmp_path: Path, frontend: str, canary: Path) -> Path:
    """The file the session names, in a folder of its own: importing it (or its spec) creates ``canary``."""
    folder = tmp_path / "theirs"
    folder.mkdir(exist_ok=True)
    if frontend == "cuda":
        (folder / "k_spec.py").write_text(K_SPEC.format(P=touch(canary)))
        path = folder / "k.cu"
        path.write_text(K_CU)
        return path
    path = folder / "k.py"
    template = {"numba": NUMBA_PY, "gluon": GLUON_PY, "cute": CUTE_PY}.get(frontend, TRITON_PY)
    path.write_text(template.format(P=touch(canary)))
    return path


def stored_signature(frontend: str):
    """What a session of ``frontend`` stores as its kernel's signature (Numba: its own string)."""
    if frontend == "numba":
        return "void(float32[:])"
    if frontend == "cute":
        return "float32[128]"
    return [
        {"type": "*fp32", "hint": 16, "value": None},
        {"type": "i32", "hint": None, "value": None},
        {"type": None, "hint": None, "value": None},
    ]


def crafted_session(tmp_path: Path, frontend: str, canary: Path, signed: bool) -> Path:
    """A session written by irscope's own writer, naming a hostile kernel file and ``frontend``."""
    from irscope.session import Session
    from irscope.types import KernelId

    file = kernel_file(tmp_path, frontend, canary)
    table = {"BLOCK": {"default": 128, "sweep": [128], "kind": "constexpr"}}
    out = tmp_path / "session"
    session = Session.create(
        out,
        KernelId("k", str(file), "0" * 64),
        file.read_text(),
        table,
        signature=stored_signature(frontend) if signed else None,
        frontend=frontend,
    )
    session.data["request"] = {"sweep": {}, "fixed": {}, "arch": "sm_90"}
    session.save()
    return out


FRONTENDS = ["triton", "gluon", "cuda", "numba", "cute", "inductor", "no-such-frontend"]
# frontend -> (exit code, what the one line says), for `irscope sweep SESSION` with a stored signature
REFUSED = {
    "cuda": (2, "irscope does not import a kernel file a session names"),
    "numba": (2, "irscope does not import a kernel file a session names"),
    "cute": (2, "irscope does not import a kernel file a session names"),
    "inductor": (5, "frontend 'inductor' is none irscope knows"),
    "no-such-frontend": (5, "frontend 'no-such-frontend' is none irscope knows"),
}


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("signed", [True, False], ids=["with a signature", "without"])
def test_resuming_a_session_runs_nothing_its_kernel_file_holds_whatever_frontend_it_names(
    cli, tmp_path, frontend, signed
):
    canary = tmp_path / "ran"
    session = crafted_session(tmp_path, frontend, canary, signed)
    result = cli("sweep", str(session), "--json")
    if frontend in ("triton", "gluon") and signed:  # rebuilt from the session's copy: only the def, no import
        assert result.exit_code == 0, result.stderr
        (row,) = [json.loads(line) for line in result.stdout.splitlines()]
        assert row["status"] == "ok"
    elif signed:
        one_line_error(result, *REFUSED[frontend])
    else:
        code = 5 if frontend in ("inductor", "no-such-frontend") else 2
        one_line_error(result, code)
        assert code == 5 or f"name the file yourself: irscope sweep {session.parent}/theirs/k." in result.stderr
    assert not canary.exists()


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("command", ["dump", "annotate", "diff"])
def test_reading_a_session_runs_nothing_its_kernel_file_holds(cli, tmp_path, frontend, command):
    canary = tmp_path / "ran"
    session = crafted_session(tmp_path, frontend, canary, signed=True)
    args = ["-a", "BLOCK=128", "-b", "BLOCK=64"] if command == "diff" else []
    result = cli(command, str(session), *args)
    one_line_error(result, 5, "has no variant")  # the session holds none: nothing to read, nothing compiled
    assert not canary.exists()


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_the_control_each_sessions_kernel_file_runs_its_payload_the_old_way(tmp_path, frontend):
    """Not vacuous: importing the file (or the spec beside it), as the old path did, creates the canary."""
    from irscope import frontends
    from irscope.arch import CaptureMode, Target
    from irscope.frontends.cubin import import_specs
    from irscope.types import Config

    canary = tmp_path / "ran"
    file = kernel_file(tmp_path, frontend, canary)
    if frontend == "cuda":
        import_specs(file.with_name("k_spec.py"))
    elif frontend == "numba":
        pytest.importorskip("numba.cuda", reason="needs numba-cuda")
        handle = frontends.KernelHandle("numba", str(file), "k", {"signature": stored_signature("numba")})
        frontends.load(handle).compile(Config({}, {}, {}), Target(90, CaptureMode.AOT))
    elif frontend == "cute":  # the payload runs before the file imports the DSL: no DSL needed to show it
        handle = frontends.KernelHandle("cute", str(file), "k", {"signature": stored_signature("cute")})
        frontends.load(handle).compile(Config({}, {}, {}), Target(90, CaptureMode.AOT))
    else:
        frontends.frontend(frontend if frontend == "gluon" else "triton").resolve(file, "k", "*fp32:16, i32, 128")
    assert canary.exists()


@pytest.mark.parametrize("named", ["no-such-frontend", "os", "irscope.frontends.cute.stages", "../theirs/k"])
def test_a_frontend_a_session_names_imports_no_module_of_that_name(tmp_path, monkeypatch, named):
    """Opening a session registers its frontend's own stages (``register_stages``): only a module an installed
    frontend's description names is imported, never one the session's header names."""
    import sys

    from irscope.frontends import register_stages

    canary = tmp_path / "ran"
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "k.py").write_text(touch(canary))
    (tmp_path / "no-such-frontend.py").write_text(touch(canary))
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    register_stages(named)
    assert not canary.exists() and not {m for m in set(sys.modules) - before if "theirs" in m or "no-such" in m}
    register_stages("cute")  # the control: the installed CuTe DSL frontend's stages module
    assert "irscope.frontends.cute.stages" in sys.modules


# ---------------------------------------------------------------- a spec beside a .cu runs only when named


@pytest.fixture
def cu_with_spec(tmp_path):
    canary = tmp_path / "ran"
    kernel_file(tmp_path, "cuda", canary)
    return tmp_path / "theirs" / "k.cu", canary


@needs_nvcc
@pytest.mark.parametrize("command", ["dump", "annotate", "sweep", "diff"])
def test_a_spec_beside_a_cu_is_not_imported_by_commands_that_compile_it(cli, cu_with_spec, command):
    cu, canary = cu_with_spec
    args = {
        "dump": ["--stage", "ptx"],
        "annotate": ["--findings"],
        "sweep": ["-c", "fast_math=false", "--json"],
        "diff": ["-a", "fast_math=false", "-b", "fast_math=true"],
    }[command]
    result = cli(command, f"{cu}:k", "--arch", "sm_90", *args)
    assert result.exit_code == 0, result.stderr
    assert not canary.exists()


def test_a_cu_without_its_spec_named_cannot_launch_and_says_how_to_name_it(cu_with_spec):
    from irscope.frontends import resolve_kernel

    cu, canary = cu_with_spec
    ref = resolve_kernel(f"{cu}:k")
    assert not ref.can_launch and "block" not in ref.parameter_table()
    reason = ref.no_launch_reason()
    assert "\n" not in reason and f"--spec {cu.with_name('k_spec.py')}" in reason and "there is one" in reason
    assert not canary.exists()


@needs_nvcc
def test_the_control_naming_the_spec_imports_it_and_gives_the_launch_shape(cli, cu_with_spec):
    cu, canary = cu_with_spec
    result = cli(
        "dump",
        f"{cu}:k",
        "--spec",
        str(cu.with_name("k_spec.py")),
        "--arch",
        "sm_90",
        "-c",
        "block=128",
        "--stage",
        "ptx",
    )
    assert result.exit_code == 0, result.stderr
    assert canary.exists()


def test_a_builtin_cu_keeps_its_own_spec():
    from irscope.frontends import resolve_kernel

    ref = resolve_kernel("square_matrix_kernel")
    assert ref.can_launch and ref.parameter_table()["block"]["default"] == "16x16"


@pytest.mark.parametrize(
    "kernel, fragment",
    [
        ("square_kernel", "--spec names a spec for a CUDA C++ kernel; square_kernel is a triton kernel"),
        ("{session}", "--spec goes with a kernel file, not a session"),
        ("{cu}:k", "no such spec file"),
    ],
)
def test_spec_where_it_does_not_apply_is_one_line(cli, tmp_path, cu_with_spec, kernel, fragment):
    cu, canary = cu_with_spec
    session = crafted_session(tmp_path, "cuda", canary, signed=False)
    result = cli("dump", kernel.format(session=session, cu=cu), "--spec", str(tmp_path / "nowhere_spec.py"))
    one_line_error(result, 2, fragment)
    assert not canary.exists()


# ---------------------------------------------------------------- load_inline sources that only running gives

INLINE = """import pathlib
from torch.utils.cpp_extension import load_inline

SOURCE = "__global__ void sq(float* x) {{ x[threadIdx.x] *= x[threadIdx.x]; }}"


def made():
    {P}
    return SOURCE


{BEFORE}
ext = load_inline(name="ext", cpp_sources="", cuda_sources={SOURCES}, functions=[])
"""
# how cuda_sources is spelled -> (a line before the call, the argument), put in as they are;
# each calls made() (the canary) only when the file runs
NOT_WRITTEN_OUT = {
    "a call": ("", "[made()]"),
    "a call, not in a list": ("", "made()"),
    "a name bound to a call": ("BUILT = made()", "BUILT"),
    "concatenation with a call": ("", "[SOURCE + made()]"),
    "an f-string with an expression": ("", 'f"{made()}"'),
    "a comprehension": ("", "[s for s in [made()]]"),
    "a subscript": ("TABLE = {'a': made()}", "[TABLE['a']]"),
    "an attribute": ("", "[pathlib.Path(made()).name]"),
}


def inline_file(tmp_path: Path, spelled: str, canary: Path) -> Path:
    before, sources = NOT_WRITTEN_OUT[spelled]
    path = tmp_path / "built.py"
    path.write_text(INLINE.format(P=touch(canary), BEFORE=before, SOURCES=sources))
    return path


@pytest.mark.parametrize("spelled", sorted(NOT_WRITTEN_OUT))
def test_load_inline_sources_that_only_running_the_file_gives_are_refused_with_file_and_line(cli, tmp_path, spelled):
    canary = tmp_path / "ran"
    path = inline_file(tmp_path, spelled, canary)
    result = cli("dump", f"{path}:sq", "--arch", "sm_90")
    line = path.read_text().splitlines().index(next(ln for ln in path.read_text().splitlines() if "load_inline(" in ln))
    one_line_error(result, 2, f"{path}:{line + 1}: load_inline's cuda_sources is `", "not a string written in the file")
    assert not canary.exists()


@pytest.mark.parametrize("spelled", sorted(NOT_WRITTEN_OUT))
def test_the_control_each_load_inline_file_runs_its_payload_when_imported(tmp_path, spelled):
    from irscope import frontends

    canary = tmp_path / "ran"
    path = inline_file(tmp_path, spelled, canary)
    try:
        frontends.frontend("triton").resolve(path, "sq")  # the old path: a .py no frontend claimed was imported
    except Exception:
        pass
    assert canary.exists()


@needs_nvcc
def test_load_inline_sources_bound_to_module_level_names_are_read_without_running_the_file(cli, tmp_path):
    canary = tmp_path / "ran"
    path = tmp_path / "named.py"
    path.write_text(INLINE.format(P=touch(canary), BEFORE=f"{touch(canary)}\nSOURCES = [SOURCE]", SOURCES="SOURCES"))
    result = cli("dump", f"{path}:sq", "--arch", "sm_90", "--stage", "ptx")
    assert result.exit_code == 0, result.stderr
    assert ".entry _Z2sqPf" in result.stdout
    assert not canary.exists()


# cuda_sources hidden where only running the file finds it, or given by position
HIDDEN = {
    "a ** mapping": 'ext = load_inline(name="ext", cpp_sources="", **{{"cuda_sources": [made()]}}, functions=[])',
    "a * tuple": 'ext = load_inline(*("ext", "", [made()]), functions=[])',
    "third by position": 'ext = load_inline("ext", "", [made()], functions=[])',
}


@pytest.mark.parametrize("spelled", sorted(HIDDEN))
def test_cuda_sources_behind_a_splat_or_by_position_are_read_as_syntax_or_refused(cli, tmp_path, spelled):
    canary = tmp_path / "ran"
    path = tmp_path / "hidden.py"
    text = INLINE.format(P=touch(canary), BEFORE="", SOURCES="[]").replace(
        'ext = load_inline(name="ext", cpp_sources="", cuda_sources=[], functions=[])', HIDDEN[spelled].format()
    )
    path.write_text(text)
    result = cli("dump", f"{path}:sq", "--arch", "sm_90")
    one_line_error(result, 2, f"{path}:", "not a string written in the file")
    assert not canary.exists()


def test_cuda_sources_given_third_by_position_as_a_string_compile(cli, tmp_path):
    path = tmp_path / "positional.py"
    path.write_text(
        "from torch.utils.cpp_extension import load_inline\n\n"
        'SOURCE = "__global__ void sq(float* x) { x[threadIdx.x] *= x[threadIdx.x]; }"\n'
        'ext = load_inline("ext", "", [SOURCE], functions=[])\n'
    )
    result = cli("dump", f"{path}:sq", "--arch", "sm_90", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    assert "mul.f32" in result.output


# A file that names load_inline is read as one, however it is asked for (review of issue 27)
NAMED = """{P}
{IMPORT}
src = "__global__ void k(float* x) {{ x[0] = 1.0f; }}"
m = {CALL}(name="a", cpp_sources="", cuda_sources=src)
"""
SPELLINGS = {
    "plain": ("from torch.utils.cpp_extension import load_inline", "load_inline"),
    "an alias": ("from torch.utils.cpp_extension import load_inline as build", "build"),
    "getattr": ("import torch.utils.cpp_extension as ce", "getattr(ce, 'load_inline')"),
}


@pytest.mark.parametrize("kernel", ["", ":nope", ":k"])
@pytest.mark.parametrize("spelled", sorted(SPELLINGS))
def test_a_load_inline_file_is_never_imported_with_no_name_an_unknown_name_or_an_aliased_call(
    cli, tmp_path, spelled, kernel
):
    canary = tmp_path / "ran"
    imported, call = SPELLINGS[spelled]
    path = tmp_path / "inline_file.py"
    path.write_text(NAMED.format(P=touch(canary), IMPORT=imported, CALL=call))
    result = cli("dump", f"{path}{kernel}", "--arch", "sm_90", "--stage", "ptx")
    assert not canary.exists()
    readable = spelled != "getattr" and kernel != ":nope"
    if readable:
        assert result.exit_code == 0, result.output
        assert ".entry" in result.output
    else:
        one_line_error(result, 2, "load_inline")
