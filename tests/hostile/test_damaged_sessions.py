"""A session on disk is data: damage is one line and exit 5, nothing outside it is read, nothing is changed.

Every damage kind below is done to a real session (a kernel written for this test,
compiled by Triton), then `dump` and `diff` read it. Each must say what is wrong in
one line, exit 5, show nothing from outside the session, and leave its bytes as
they were.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from irscope.errors import SessionError
from irscope.session import Session
from irscope.storage.variants import read_variant

from .damage import copy_of, fingerprint, record

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32"
SECRET = "TOPSECRET-7f3a9c"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A session of two variants, recorded once for the module."""
    root = tmp_path_factory.mktemp("recorded")
    (root / "scale.py").write_text(KERNEL)
    return record(root / "session", f"{root / 'scale.py'}:scale_kernel", "-S", SIGNATURE, "-s", "BLOCK=128,512")


@pytest.fixture
def session(recorded, tmp_path):
    copy = copy_of(recorded, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    return copy


def _variant_dir(session: Path, block: int) -> Path:
    index = json.loads((session / "session.json").read_text())
    entry = next(e for e in index["variants"] if e["config"]["constexprs"]["BLOCK"] == block)
    return session / "variants" / entry["id"]


def _edit_index(session: Path, change) -> None:
    index = json.loads((session / "session.json").read_text())
    change(index)
    (session / "session.json").write_text(json.dumps(index))


def _edit_variant(session: Path, change) -> None:
    path = _variant_dir(session, 128) / "variant.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _ptx(session):
    return _variant_dir(session, 128) / "ptx.ptx"


DAMAGE = {
    "variant.json missing": lambda s, o: (_variant_dir(s, 128) / "variant.json").unlink(),
    "variant.json truncated": lambda s, o: (_variant_dir(s, 128) / "variant.json").write_bytes(
        (_variant_dir(s, 128) / "variant.json").read_bytes()[:200]
    ),
    "variant.json binary": lambda s, o: (_variant_dir(s, 128) / "variant.json").write_bytes(os.urandom(300) + b"\xff"),
    "variant.json wrong types": lambda s, o: (_variant_dir(s, 128) / "variant.json").write_text(
        json.dumps({**json.loads((_variant_dir(s, 128) / "variant.json").read_text()), "stages": "ptx", "config": 5})
    ),
    "variant.json a list": lambda s, o: (_variant_dir(s, 128) / "variant.json").write_text("[1, 2]"),
    "variant.json heuristics not scalars": lambda s, o: _edit_variant(
        s, lambda d: d["compile_info"].update(heuristics={"EVEN": {"nested": [SECRET]}})
    ),
    "variant.json heuristics a list": lambda s, o: _edit_variant(s, lambda d: d["compile_info"].update(heuristics=[1])),
    "stage file missing": lambda s, o: _ptx(s).unlink(),
    "stage file truncated": lambda s, o: _ptx(s).write_text(_ptx(s).read_text()[:500]),
    "stage file edited": lambda s, o: _ptx(s).write_text(_ptx(s).read_text().replace("ld.global", "ld.globl")),
    "stage file binary": lambda s, o: _ptx(s).write_bytes(b"\x00\xff\xfe" * 100),
    "stage file is a directory": lambda s, o: (_ptx(s).unlink(), _ptx(s).mkdir()),
    "stage file is a FIFO": lambda s, o: (_ptx(s).unlink(), os.mkfifo(_ptx(s))),
    "stage file links outside": lambda s, o: (_ptx(s).unlink(), _ptx(s).symlink_to(o / "secret.txt")),
    "variant folder links outside": lambda s, o: (
        shutil.copytree(_variant_dir(s, 128), o / "variant"),
        (o / "variant" / "ptx.ptx").write_text(SECRET),
        shutil.rmtree(_variant_dir(s, 128)),
        _variant_dir(s, 128).symlink_to(o / "variant"),
    ),
    "variant folder is a symlink loop": lambda s, o: (
        shutil.rmtree(_variant_dir(s, 128)),
        _variant_dir(s, 128).symlink_to(_variant_dir(s, 128).name),
    ),
    "stage file is a symlink loop": lambda s, o: (_ptx(s).unlink(), _ptx(s).symlink_to(_ptx(s).name)),
    "variant id escapes": lambda s, o: _edit_index(s, lambda d: d["variants"][0].update(id="../../outside")),
    "variant id absolute": lambda s, o: _edit_index(s, lambda d: d["variants"][0].update(id=str(o))),
    "session.json truncated": lambda s, o: (s / "session.json").write_bytes((s / "session.json").read_bytes()[:300]),
    "session.json wrong types": lambda s, o: _edit_index(s, lambda d: d.update(variants={"a": 1})),
    "session.json heuristics not scalars": lambda s, o: _edit_index(
        s, lambda d: d["variants"][0]["facts"].update(heuristics={"EVEN": [SECRET]})
    ),
    "session.json heuristics a string": lambda s, o: _edit_index(
        s, lambda d: d["variants"][0]["facts"].update(heuristics=SECRET)
    ),
}

SOURCE_DAMAGE = {
    "source escapes with ..": lambda s, o: _edit_index(s, lambda d: d["kernel"].update(source="../outside/secret.txt")),
    "source is absolute": lambda s, o: _edit_index(s, lambda d: d["kernel"].update(source=str(o / "secret.txt"))),
    "source links outside": lambda s, o: (
        (s / "source" / "scale.py").unlink(),
        (s / "source" / "scale.py").symlink_to(o / "secret.txt"),
    ),
}


def _run(*args: str) -> subprocess.CompletedProcess:
    # A subprocess with a time limit: a FIFO opened for reading would block forever.
    return subprocess.run([sys.executable, "-m", "irscope", *args], capture_output=True, text=True, timeout=120)


def _assert_refused(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 5, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irscope: error:"), result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damage_is_one_line_exit_5_and_nothing_changes(session, tmp_path, kind):
    DAMAGE[kind](session, tmp_path / "outside")
    before = fingerprint(session)
    diffed = _run("diff", str(session), "-a", "BLOCK=128", "-b", "BLOCK=512", "--stage", "ptx")
    _assert_refused(diffed)
    dumped = _run("dump", str(session), "-c", "BLOCK=128", "--stage", "ptx")
    _assert_refused(dumped)
    assert fingerprint(session) == before


@pytest.mark.parametrize("kind", list(SOURCE_DAMAGE))
def test_a_source_path_outside_the_session_is_never_read(session, tmp_path, kind):
    SOURCE_DAMAGE[kind](session, tmp_path / "outside")
    before = fingerprint(session)
    _assert_refused(_run("dump", str(session), "-c", "BLOCK=128", "--stage", "all"))
    with pytest.raises(SessionError, match="outside"):
        Session.open(session).source()
    # Every variant's source map reads the kernel source: the session is damaged as a whole.
    _assert_refused(_run("diff", str(session), "-a", "BLOCK=128", "-b", "BLOCK=512", "--stage", "ptx"))
    assert fingerprint(session) == before


def test_a_healthy_variant_of_a_damaged_session_still_reads(session, tmp_path):
    DAMAGE["stage file is a FIFO"](session, tmp_path / "outside")
    healthy = _run("dump", str(session), "-c", "BLOCK=512", "--stage", "ptx")
    assert healthy.returncode == 0 and "ld.global" in healthy.stdout


def test_a_symlink_inside_the_session_that_stays_inside_is_fine(session):
    ptx = _ptx(session)
    (ptx.parent / "real.ptx").write_bytes(ptx.read_bytes())
    ptx.unlink()
    ptx.symlink_to("real.ptx")
    s = Session.open(session)
    variant = read_variant(_variant_dir(session, 128), source=s.source, root=session)
    assert "ld.global" in variant.listings["ptx"]


# ---------------------------------------------------------------- a session never names code to run

EVIL = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\n" + KERNEL


@pytest.mark.parametrize("where", ["inside the session", "elsewhere"])
def test_resuming_a_session_never_imports_the_file_it_names(session, tmp_path, where):
    marker = tmp_path / "marker"
    evil = (session / "source" / "evil.py") if where == "inside the session" else (tmp_path / "evil.py")
    evil.write_text(EVIL.format(marker=str(marker)))
    # A session without a stored signature (one recorded before sessions kept it): only the file could compile it.
    _edit_index(session, lambda d: (d["kernel"].update(file=str(evil)), d["kernel"].pop("signature", None)))
    before = fingerprint(session)
    for args in (
        ["sweep", str(session)],
        ["sweep", str(session), "-s", "BLOCK=1024"],
        ["tui", str(session), "-s", "BLOCK=1024"],
    ):
        result = _run(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert "irscope does not import a kernel file a session names" in result.stderr
        assert f"irscope sweep {evil}:scale_kernel" in result.stderr  # what to run instead
        assert len(result.stderr.strip().splitlines()) == 1
    assert not marker.exists()
    assert fingerprint(session) == before


def test_a_session_of_a_builtin_kernel_resumes_with_irscopes_own_copy(tmp_path):
    from click.testing import CliRunner

    from irscope.cli import main

    out = tmp_path / "builtin"
    runner = CliRunner()
    first = runner.invoke(main, ["sweep", "square_kernel", "-s", "BLOCK_SIZE=128,256", "-o", str(out)])
    assert first.exit_code == 0, first.output
    marker = tmp_path / "marker"
    evil = tmp_path / "square.py"
    evil.write_text(EVIL.format(marker=str(marker)))
    _edit_index(out, lambda d: d["kernel"].update(file=str(evil)))
    again = runner.invoke(main, ["sweep", str(out), "-s", "BLOCK_SIZE=128,256,512"])
    assert again.exit_code == 0, again.output
    assert not marker.exists()
    assert len(Session.open(out).entries) == 3


@pytest.mark.parametrize("name", ["../session", "/etc", "a/../../session", 5])
def test_an_inductor_index_naming_a_session_outside_its_folder_is_refused(session, tmp_path, name):
    from irscope.tui.factory import make_app

    capture_dir = tmp_path / "capture"
    capture_dir.mkdir()
    (capture_dir / "inductor.json").write_text(
        json.dumps(
            {
                "format": "irscope.inductor/1",
                "origin": {"log": "x.log"},
                "kernels": [{"name": "k", "session": name}],
            }
        )
    )
    with pytest.raises(SessionError, match="not a plain file name"):
        make_app(str(capture_dir))


SIGNATURE_JSON = [
    {"type": "*fp32", "hint": 16, "value": None},
    {"type": "*fp32", "hint": 16, "value": None},
    {"type": "i32", "hint": None, "value": None},
    {"type": None, "hint": None, "value": None},
]


@pytest.mark.parametrize(
    "payload, compiles",
    [
        ("pathlib.Path({marker!r}).write_text('ran')", True),  # module level: dropped, the kernel still compiles
        ("", False),  # in the kernel body (below): the session's kernel is refused, exit 5
    ],
)
def test_a_session_kernel_rebuilt_from_its_stored_source_runs_none_of_it(session, tmp_path, payload, compiles):
    marker = tmp_path / "marker"
    text = "import pathlib\n" + payload.format(marker=str(marker)) + "\n" + KERNEL
    if not compiles:
        code = f"open({str(marker)!r}, 'w')"
        text = text.replace("    mask = offs < n\n", f"    mask = offs < n\n    tl.core.builtins.exec({code!r})\n")
    (session / "source" / "scale.py").write_text(text)
    _edit_index(session, lambda d: d["kernel"].update(signature=SIGNATURE_JSON))
    result = _run("sweep", str(session), "-s", "BLOCK=1024", "--json")
    assert not marker.exists()
    if compiles:
        [row] = [json.loads(line) for line in result.stdout.splitlines()]
        assert result.returncode == 0 and row["status"] == "ok", result.stderr
    else:
        _assert_refused(result)
        assert "refused in kernel source: 'tl.core.builtins' is module 'builtins'" in result.stderr
