"""``irscope repro`` writes a session's data into a Python file: only the kernel's stored source may become
code there. Every other value is a checked literal (an identifier, a type name, a scalar through ``repr``);
one that is not is refused in one line (exit 5) before anything is written."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from expect import one_line_error

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def twice(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)
"""
CANARY = "__import__('pathlib').Path('CANARY').touch()"


def _invoke(*args: str):
    from irscope.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repro-data")
    (root / "k.py").write_text(textwrap.dedent(KERNEL))
    out = root / "session"
    result = _invoke("sweep", f"{root / 'k.py'}:twice", "-S", "*fp32:16, *fp32:16, 128", "-s", "num_warps=1",
                     "-o", str(out))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


def _edited(session: Path, tmp_path: Path, change) -> Path:
    copy = tmp_path / "session"
    shutil.copytree(session, copy, symlinks=True)
    (variant_json,) = copy.glob("variants/*/variant.json")
    data = json.loads(variant_json.read_text())
    change(data)
    variant_json.write_text(json.dumps(data))
    return copy


def _literals(text: str) -> dict:
    tree = ast.parse(text)
    return {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id != "TARGET"
    }


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda d: d["compile_info"]["signature"].update(x_ptr=f"*fp32'); {CANARY}; ('"), "the type of x_ptr"),
        (lambda d: d["compile_info"]["signature"].update({f"x); {CANARY}; (": "i32"}), "an argument name"),
        (lambda d: d["compile_info"]["options"].update({"num_warps": [CANARY]}), "the option num_warps"),
        (lambda d: d["compile_info"].update(compiler=f"triton 3.6.0'; {CANARY}; '"), "the Triton version"),
        (lambda d: d["compile_info"]["heuristics"].update(BLOCK=float("nan")), "the constexpr BLOCK"),
    ],
)
def test_a_value_that_is_no_literal_is_refused_before_anything_is_written(session, tmp_path, change, fragment):
    copy = _edited(session, tmp_path, change)
    out = tmp_path / "repro.py"
    one_line_error(_invoke("repro", str(copy), "-o", str(out)), 5, fragment)
    assert not out.exists()


def test_quotes_and_code_in_values_stay_strings_and_never_run(session, tmp_path, monkeypatch):
    payload = f'\'"""; {CANARY} #\n'

    def change(data):
        data["compile_info"]["heuristics"]["BLOCK"] = payload  # a heuristic's value: a constexpr of the file
        data["kernel"]["file"] = f"/tmp/x{payload}.py"

    copy = _edited(session, tmp_path, change)
    result = _invoke("repro", str(copy))
    assert result.exit_code == 0, result.stderr
    literals = _literals(result.stdout)
    assert literals["CONSTEXPRS"] == {"BLOCK": payload} and literals["SOURCE_FILE"] == f"/tmp/x{payload}.py"
    repro = tmp_path / "repro.py"
    repro.write_text(result.stdout)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "cache")
    ran = subprocess.run([sys.executable, "-I", str(repro)], capture_output=True, text=True, cwd=tmp_path,
                         env=env, timeout=300)  # fmt: skip
    assert ran.returncode != 0  # Triton refuses a string for BLOCK: the payload was a value, never code
    assert not (tmp_path / "CANARY").exists()


def test_an_output_that_is_a_link_is_refused(session, tmp_path):
    victim = tmp_path / "victim.py"
    victim.write_text("keep")
    (tmp_path / "repro.py").symlink_to(victim)
    one_line_error(_invoke("repro", str(session), "-o", str(tmp_path / "repro.py")), 2, "repro.py")
    assert victim.read_text() == "keep"


CUDA_KERNEL = """\
#ifndef SCALE
#define SCALE 2.0f
#endif
__global__ void scale(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] * SCALE; }
"""


@pytest.fixture(scope="module")
def cuda_session(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repro-cuda")
    (root / "k.cu").write_text(CUDA_KERNEL)
    result = _invoke("sweep", f"{root / 'k.cu'}:scale", "-s", "SCALE=3.0", "-o", str(root / "session"))
    assert result.exit_code == 0, result.stderr
    return root / "session"


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda d: d["kernel"].update(file='/tmp/k.cu"\n#include "/etc/passwd'), "#line directive"),
        (lambda d: d["compile_info"]["options"].update(entry=f"_Z5scale'); {CANARY}; ('"), "the PTX entry"),
        (lambda d: d["config"]["constexprs"].update(SCALE=f"1); {CANARY}; (1"), "SCALE must be"),
        (lambda d: d["config"]["options"].update(maxrregcount="32; touch CANARY"), "maxrregcount must be"),
        (lambda d: d["compile_info"].update(compiler=f"nvcc V13.0'; {CANARY}; '"), "not nvcc"),
    ],
)
def test_a_cuda_value_that_is_no_token_is_refused_before_anything_is_written(cuda_session, tmp_path, change, fragment):
    copy = _edited(cuda_session, tmp_path, change)
    out = tmp_path / "repro.py"
    one_line_error(_invoke("repro", str(copy), "-o", str(out)), 5, fragment)
    assert not out.exists() and not (tmp_path / "CANARY").exists()


def test_a_cuda_kernels_name_and_source_from_data_stay_strings(cuda_session, tmp_path):
    """The kernel's name (in the docstring and a literal) and its source text (a C string nvcc compiles) carry
    Python; the file is written, runs, and only nvcc sees the text."""
    payload = f'\'"""; {CANARY} #\n'
    copy = _edited(cuda_session, tmp_path, lambda d: d["kernel"].update(name=f"scale{payload}"))
    (source,) = copy.glob("source/*.cu")
    source.write_text(CUDA_KERNEL + f'// """; {CANARY}\n' + f"/* '''; {CANARY} */\n")
    result = _invoke("repro", str(copy))
    assert result.exit_code == 0, result.stderr
    literals = {k: v for k, v in _literals_of(result.stdout).items() if k in ("KERNEL", "SOURCE")}
    assert literals["KERNEL"] == f"scale{payload}" and CANARY in literals["SOURCE"]
    repro = tmp_path / "repro.py"
    repro.write_text(result.stdout)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    ran = subprocess.run([sys.executable, "-I", str(repro)], capture_output=True, text=True, cwd=tmp_path,
                         env=env, timeout=300)  # fmt: skip
    assert ran.returncode == 0, ran.stderr  # nvcc compiled the C, comments and all
    assert ".entry _Z5scalePKfPf" in ran.stdout
    assert not (tmp_path / "CANARY").exists()


def _literals_of(text: str) -> dict:
    tree = ast.parse(text)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # the slicer's regular expressions: code of irscope's own
                continue
    return out


# The stored source with Python in @triton.jit's argument, a decorator that is not @triton.jit, and module-level
# code: the repro runs a bare signature of each @triton.jit def, so none of it runs, and the kernel still compiles
# from its real body. (Python in the def's own header or body is refused by the allowlist: below.)
HOSTILE_SOURCE = f"""
import triton
import triton.language as tl

{CANARY}


@{CANARY.replace(".touch()", ".touch")}
@triton.jit(do_not_specialize=[{CANARY}] and [])
def twice(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)
"""


def _with_source(session: Path, tmp_path: Path, text: str) -> Path:
    copy = tmp_path / "session"
    shutil.copytree(session, copy, symlinks=True)
    (source,) = copy.glob("source/*.py")
    source.write_text(text)
    return copy


def test_python_in_a_defs_header_decorators_or_module_code_never_runs(session, tmp_path):
    copy = _with_source(session, tmp_path, HOSTILE_SOURCE)
    result = _invoke("repro", str(copy))
    assert result.exit_code == 0, result.stderr
    repro = tmp_path / "repro.py"
    repro.write_text(result.stdout)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "cache")
    ran = subprocess.run([sys.executable, "-I", str(repro)], capture_output=True, text=True, cwd=tmp_path,
                         env=env, timeout=300)  # fmt: skip
    assert ran.returncode == 0, ran.stderr  # compiled from the real body
    assert ".visible .entry twice" in ran.stdout
    assert not (tmp_path / "CANARY").exists()


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text + "    tl.core.builtins.exec(\"__import__('pathlib').Path('CANARY').touch()\")\n",
        lambda text: text.replace("def twice(x_ptr,", f"def twice(x_ptr: {CANARY},"),
        lambda text: text.replace("BLOCK: tl.constexpr)", f"BLOCK: tl.constexpr = {CANARY})"),
    ],
    ids=["body", "annotation", "default"],
)
def test_a_def_that_reaches_past_triton_is_refused_before_anything_is_written(session, tmp_path, change):
    copy = _with_source(session, tmp_path, change(textwrap.dedent(KERNEL)))
    out = tmp_path / "repro.py"
    one_line_error(_invoke("repro", str(copy), "-o", str(out)), 5, "repro refuses twice", "refused")
    assert not out.exists() and not (tmp_path / "CANARY").exists()


def _with_header(session: Path, tmp_path: Path, change) -> Path:
    copy = tmp_path / "session"
    shutil.copytree(session, copy, symlinks=True)
    data = json.loads((copy / "session.json").read_text())
    change(data)
    (copy / "session.json").write_text(json.dumps(data))
    return copy


def _launch_key(session: Path) -> str:
    from irscope.frontends.triton.replay import launch_key
    from irscope.session import Session

    return launch_key(Session.open(session)[0].config)


def test_a_recorded_launch_from_data_is_checked_literals_or_left_out(session, tmp_path):
    key = _launch_key(session)
    tensor = {"tensor": f"torch.float32'); {CANARY}; ('", "shape": [128], "stride": [1]}
    copy = _with_header(session, tmp_path, lambda d: d.update(
        recorded_launches={key: {"grid": [1, 1, 1], "arguments": {"x_ptr": tensor}}}))  # fmt: skip
    result = _invoke("repro", str(copy))
    assert result.exit_code == 0, result.stderr
    assert _literals(result.stdout)["LAUNCH"] is None  # a dtype irscope cannot make: no launch, never its text
    assert CANARY not in result.stdout


def test_a_recorded_launch_naming_no_parameter_is_refused(session, tmp_path):
    key = _launch_key(session)
    launch = {"grid": [1, 1, 1], "arguments": {f"x); {CANARY}; (": 1}}
    copy = _with_header(session, tmp_path, lambda d: d.update(recorded_launches={key: launch}))
    out = tmp_path / "repro.py"
    one_line_error(_invoke("repro", str(copy), "-o", str(out)), 5, "no parameter of it")
    assert not out.exists()


def test_a_recorded_binding_outside_triton_is_refused(session, tmp_path):
    from irscope.session import Session

    file = Session.open(session).kernel.file
    closure = {"files": {}, "scopes": {file: {"tl": {"module": "os"}}}}
    copy = _with_header(session, tmp_path, lambda d: d["kernel"].update(rebuild={"closure": closure}))
    out = tmp_path / "repro.py"
    result = _invoke("repro", str(copy), "-o", str(out))
    assert result.exit_code in (2, 5) and not out.exists(), result.stdout
    assert len(result.stderr.strip().splitlines()) == 1 and "os" in result.stderr
