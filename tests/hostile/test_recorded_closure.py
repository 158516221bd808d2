"""A recorded closure is data: a session or a run naming a module, a global or a helper never imports anything.

``irscope run`` records what a kernel reads beyond its file (frontends/triton/closure.py) so that its
session rebuilds it later without the program. Here that record is crafted: each binding names a
module on the import path (``canary_pkg``, whose import would leave a marker), a chain through
Triton's modules to Python's ``exec``, a helper whose file's module-level code would leave a marker,
a helper whose body calls ``open``, a path outside the session, values that are not values. Every
one is refused in one line or rebuilt without running it; the marker never appears and
``canary_pkg`` is never imported. Real rebuilds and compiles, no mocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

KERNEL = """\
import triton
import triton.language as tl

_SCALE: tl.constexpr = tl.constexpr(2)


@triton.jit
def scaled_copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, helper(tl.load(src + offs, mask=mask)) * _SCALE, mask=mask)
"""
SIGNATURE: list[dict[str, Any]] = [
    {"type": "*fp32", "hint": 16, "value": None},
    {"type": "*fp32", "hint": 16, "value": None},
    {"type": "i32", "hint": None, "value": None},
    {"type": None, "hint": None, "value": None},
]


def helper_text(marker: Path, body: str = "return x + 1") -> str:
    """A helper module whose module-level code would import canary_pkg and leave the marker, were it run."""
    return (
        "import triton\n"
        "import triton.language as tl\n"
        f"import canary_pkg\n__import__('pathlib').Path({str(marker)!r}).touch()\n\n\n"
        f"@triton.jit\ndef helper(x):\n    {body}\n"
    )


@pytest.fixture
def canary(tmp_path, monkeypatch):
    """``canary_pkg`` on the import path: importing it would leave ``marker``."""
    marker = tmp_path / "imported"
    package = tmp_path / "site" / "canary_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"__import__('pathlib').Path({str(marker)!r}).touch()\ndef boom(x): return x\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "canary_pkg", raising=False)
    yield marker
    assert not marker.exists(), "something imported canary_pkg or ran a recorded module's code"
    assert "canary_pkg" not in sys.modules


def session_with(tmp_path: Path, binding: dict, helper: str | None = None, files: dict | None = None) -> Path:
    """A session of ``scaled_copy`` whose closure gives ``helper`` (and ``_SCALE``) as ``binding`` says."""
    from irscope.session import Session
    from irscope.types import KernelId

    kernel_file = str(tmp_path / "lib" / "copy.py")
    helper_file = str(tmp_path / "lib" / "helpers.py")
    scope = {"_SCALE": {"constexpr": 2}, "helper": binding}
    closure = {
        "texts": {helper_file: helper} if helper is not None else {},
        "scopes": {kernel_file: scope, helper_file: {}},
    }
    table = {"BLOCK": {"default": 256, "sweep": [256], "kind": "constexpr"}}
    folder = tmp_path / "session"
    Session.create(
        folder,
        KernelId("scaled_copy", kernel_file, "recorded-0"),
        KERNEL,
        table,
        SIGNATURE,
        rebuild={"heuristics": "recorded", "closure": closure},
    )
    if files is not None:  # a hand-edited session.json: the closure's files where the editor says
        data = json.loads((folder / "session.json").read_text())
        data["kernel"]["rebuild"]["closure"]["files"] = files
        (folder / "session.json").write_text(json.dumps(data))
    return folder


def rebuild(folder: Path):
    from irscope.named import session_kernel
    from irscope.session import Session

    return session_kernel(Session.open(folder))


REFUSED = {
    "a module outside Triton": ({"module": "canary_pkg"}, "not one of Triton's"),
    "a function of a module outside Triton": ({"triton": "canary_pkg:boom"}, "not one of Triton's"),
    "a chain through Triton to Python's exec": ({"triton": "triton.language.core:builtins.exec"}, "not a Triton"),
    "a dunder on the way": ({"triton": "triton.language:__builtins__"}, "not a name of Triton's"),
    "a namespace holding a module outside Triton": ({"namespace": {"x": {"module": "canary_pkg"}}}, "not one of"),
    "a dtype that is none": ({"dtype": "canary_pkg"}, "not one of Triton's dtypes"),
    "a constexpr that is no value": ({"constexpr": {"__class__": "os"}}, "not None, a bool, a number or a string"),
    "a kind closure.py never writes": ({"import": "canary_pkg"}, "does not write"),
    "a helper in a file the record does not hold": (
        {"jit": {"file": "/etc/passwd", "line": 1, "name": "helper"}},
        "not a file it holds",
    ),
    "a name recorded as unsupported": ({"unsupported": "a canary_pkg.Thing"}, "cannot read"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_crafted_binding_is_refused_and_imports_nothing(case, tmp_path, canary):
    from irscope.errors import IrscopeError

    binding, said = REFUSED[case]
    folder = session_with(tmp_path, binding)
    with pytest.raises(IrscopeError) as refused:
        rebuild(folder)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_recorded_helper_is_rebuilt_from_its_text_without_running_its_module(tmp_path, canary):
    """Its file's module-level code imports canary_pkg and leaves the marker: none of it runs; the kernel compiles."""
    from irscope.capturing import capture
    from irscope.frontends.config import resolve_config

    helper_file = str(tmp_path / "lib" / "helpers.py")
    binding = {"jit": {"file": helper_file, "line": 7, "name": "helper"}}
    kernel = rebuild(session_with(tmp_path, binding, helper_text(canary)))
    variant = capture(kernel, config=resolve_config(kernel, {"BLOCK": 256}), arch="sm_90", use_cache=False)
    assert variant.ok, variant.error
    assert "helpers.py" in variant.listings["ptx"]  # the helper's own file, in the IR's locations


def test_a_recorded_helper_whose_body_reaches_python_is_refused(tmp_path, canary):
    from irscope.errors import IrscopeError

    helper_file = str(tmp_path / "lib" / "helpers.py")
    binding = {"jit": {"file": helper_file, "line": 7, "name": "helper"}}
    text = helper_text(canary, body="return open('x') and x")
    with pytest.raises(IrscopeError, match="refused in kernel source: name 'open'"):
        rebuild(session_with(tmp_path, binding, text))


def test_a_closure_file_outside_the_session_is_never_read(tmp_path, canary):
    from irscope.errors import SessionError

    outside = tmp_path / "outside.py"
    outside.write_text("secret = 1\n")
    folder = session_with(tmp_path, {"constexpr": 1}, files={str(outside): "../outside.py"})
    with pytest.raises(SessionError, match="outside"):
        rebuild(folder)


def test_the_cli_refuses_in_one_line_and_says_how_to_allow_it(tmp_path, canary):
    """The refusal names the command that compiles the kernel from its module, the user's say-so to import it."""
    folder = session_with(tmp_path, {"module": "canary_pkg"})
    env = {**os.environ, "IRSCOPE_NO_GPU": "1", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "sweep", str(folder), "-c", "BLOCK=128"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 5 and done.stderr.count("\n") == 1, done.stderr
    assert "not one of Triton's" in done.stderr and "irscope sweep" in done.stderr and " -S ... -o " in done.stderr


def test_a_run_record_naming_a_module_imports_nothing(tmp_path, canary):
    """A compile record in a run's raw/ folder (what the program wrote: data) binding a name to a module."""
    from irscope.interop.run.collect import collect

    raw = tmp_path / "run" / "raw"
    (raw / "compiles" / "00000").mkdir(parents=True)
    (raw / "sources").mkdir()
    (raw / "sources" / "copy.py").write_text(KERNEL)
    file = str(tmp_path / "lib" / "copy.py")
    record = {
        "format": "irscope.triton-compile/1",
        "kernel": "scaled_copy",
        "file": file,
        "source": "sources/copy.py",
        "params": ["src", "dst", "n", "BLOCK"],
        "constexprs": ["BLOCK"],
        "signature": {"src": "*fp32", "dst": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constants": {"BLOCK": 256},
        "divisible": ["src", "dst"],
        "options": {"num_warps": 4, "num_stages": 3},
        "hash": "h",
        "name": "scaled_copy",
        "arch": 90,
        "stages": {},
        "closure": {"files": {file: "sources/copy.py"}, "scopes": {file: {"helper": {"module": "canary_pkg"}}}},
    }
    (raw / "compiles" / "00000" / "compile.json").write_text(json.dumps(record))
    index = collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1)
    (kernel,) = index["kernels"]
    assert "not one of Triton's" in kernel["why"]


@pytest.mark.parametrize(
    "content",
    [
        "link",
        json.dumps({"gpu": "canary_pkg; rm -rf /", "unanswered": {}}),
        json.dumps({"gpu": "H100", "unanswered": ["not", "an", "object"], "failed": "nope", "launched": [1, None]}),
        "{not json",
    ],
)
def test_a_stand_in_record_that_is_not_one_reads_as_nothing_or_data(tmp_path, content):
    """raw/stand_in.json (the program wrote it): a link out of raw/, an unknown card, wrong kinds, not JSON."""
    from irscope.interop.run.collect import collect

    raw = tmp_path / "run" / "raw"
    raw.mkdir(parents=True)
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"gpu": "H100", "unanswered": {"leaked": "from outside"}}))
    if content == "link":
        (raw / "stand_in.json").symlink_to(secret)
    else:
        (raw / "stand_in.json").write_text(content)
    notes: list[str] = []
    index = collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    stand_in = index.get("stand_in")
    assert "leaked" not in json.dumps(index)
    if stand_in is None:
        assert notes and index["mode"] == "gpu"
    else:
        assert stand_in["gpu"] == "H100" and stand_in["unanswered"] == {} and stand_in["failed"] == []
        assert stand_in["launched"] == []
