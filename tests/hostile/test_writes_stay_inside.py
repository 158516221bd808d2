"""Writers stay inside: nothing irscope writes follows a link, replaces what is not a regular file, or leaves
the session, the run or the output path it was given; a shared report carries none of the author's paths.

Every payload has a canary: a folder outside the session (a home folder's dot files, a secret file) whose
fingerprint must not change. Every payload also has a control showing it reached something the old way: the
old leftover pattern matched the user's dot file, ``open(path, "w")`` through the link wrote its target,
``os.replace`` replaced the FIFO, the old containment check let the linked record folder through. Real
sessions, recorded by real Triton compiles; no mocks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode, SessionError
from irscope.session import Session
from irscope.storage.files import LEFTOVER, contained

from .damage import copy_of, fingerprint, record

USER = "zed-canary-user"  # the author's user name, in the path of their kernel
KERNEL = """
import triton
import triton.language as tl


@triton.jit
def nudge_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) - 2.0, mask=mask)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32"
SECRET = "TOPSECRET-c41d"
# The leftover pattern session writers used before this test: it matched any dot name with a dot in it.
OLD_LEFTOVER = re.compile(r"\.(?P<name>.+)\.(old-\d+|[^.]+|.+\.tmp)$")
DOT_FILES = (".tmux.conf", ".emacs.d", ".bash_profile.d", ".config.bak")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A session of two variants of a kernel that lives under its author's home folder."""
    root = tmp_path_factory.mktemp("author")
    folder = root / "home" / USER / "kernels"
    folder.mkdir(parents=True)
    (folder / "nudge.py").write_text(KERNEL)
    return record(root / "session", f"{folder / 'nudge.py'}:nudge_kernel", "-S", SIGNATURE, "-s", "BLOCK=64,256")


@pytest.fixture
def session(recorded, tmp_path):
    return copy_of(recorded, tmp_path)


@pytest.fixture
def home(tmp_path):
    """A home folder outside the session: dot files a recovery must never touch, a secret never copied."""
    outside = tmp_path / "elsewhere"
    (outside / ".emacs.d").mkdir(parents=True)
    (outside / ".emacs.d" / "init.el").write_text("(setq canary t)\n")
    (outside / ".tmux.conf").write_text("set -g canary on\n")
    (outside / ".bash_profile.d").write_text("canary\n")
    (outside / "secret.txt").write_text(SECRET + "\n")
    return outside


def _resume(cli, session: Path):
    """``irscope sweep SESSION``: resuming a session someone sent, which takes the write lock."""
    return cli("sweep", str(session))


# ------------------------------------------------------------------ session writers


def test_the_old_leftover_pattern_matched_a_users_dot_files_and_the_marker_matches_none():
    for name in DOT_FILES:
        assert OLD_LEFTOVER.match(name), name  # control: the old recovery deleted these
        assert LEFTOVER.fullmatch(name) is None, name
    assert LEFTOVER.fullmatch(".session.json.irscope-tmp-k2j4_x9a")
    assert LEFTOVER.fullmatch(".BLOCK-64_sm_90.irscope-old-4242")


@pytest.mark.parametrize("name", ["source", "variants", "ncu"])
def test_a_session_whose_folder_links_outside_is_refused_and_nothing_there_is_touched(cli, session, home, name):
    if (session / name).is_dir():
        for entry in (session / name).iterdir():  # what the author had there goes along, as a copy would
            shutil.move(str(entry), home / entry.name)
        (session / name).rmdir()
    (session / name).symlink_to(home, target_is_directory=True)
    assert (session / name / ".tmux.conf").exists()  # control: the old recovery listed the home folder's dot files
    before = fingerprint(home)
    result = _resume(cli, session)
    assert result.exit_code == ExitCode.SESSION_ERROR, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert fingerprint(home) == before
    with pytest.raises(SessionError, match="symbolic link"):  # the writer itself, asked directly
        Session.open(session).save()
    assert fingerprint(home) == before


def test_a_lock_that_links_outside_is_refused_and_its_target_never_created(cli, session, home):
    (session / ".lock").unlink()
    (session / ".lock").symlink_to(home / "created-by-lock")
    control = home.parent / "control-link"
    control.symlink_to(home.parent / "control-target")
    os.close(os.open(control, os.O_RDWR | os.O_CREAT, 0o666))  # control: the old open created a link's target
    assert (home.parent / "control-target").exists()
    before = fingerprint(home)
    one_line_error(_resume(cli, session), ExitCode.SESSION_ERROR, ".lock")
    assert not (home / "created-by-lock").exists()
    assert fingerprint(home) == before


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_lock_that_is_not_a_file_is_refused_without_waiting(cli, session, kind):
    (session / ".lock").unlink()
    if kind == "fifo":
        os.mkfifo(session / ".lock")
    else:
        (session / ".lock").mkdir()
    one_line_error(_resume(cli, session), ExitCode.SESSION_ERROR, ".lock")


@pytest.mark.parametrize("where", ["", "variants", "source"])
def test_the_users_own_dot_files_in_a_session_survive_a_writer(cli, session, where):
    folder = session / where
    (folder / ".tmux.conf").write_text("mine\n")
    (folder / ".emacs.d").mkdir()
    (folder / ".emacs.d" / "init.el").write_text("mine\n")
    (folder / ".notes.txt").write_text("mine\n")
    (folder / ".session.json.irscope-tmp-zz9").write_text("")  # a dead writer's: recovery does run
    assert all(OLD_LEFTOVER.match(n) for n in (".tmux.conf", ".emacs.d", ".notes.txt"))  # control
    result = _resume(cli, session)
    assert result.exit_code == 0, result.stderr
    assert not (folder / ".session.json.irscope-tmp-zz9").exists()
    assert (folder / ".tmux.conf").read_text() == "mine\n" and (folder / ".notes.txt").read_text() == "mine\n"
    assert (folder / ".emacs.d" / "init.el").read_text() == "mine\n"


@pytest.mark.parametrize("leftover", [".x.irscope-tmp-abc123", ".BLOCK-64_num_warps-4.irscope-old-1"])
def test_a_leftover_that_links_outside_is_removed_as_a_link_never_followed(cli, session, home, leftover):
    (session / "variants" / leftover).symlink_to(home, target_is_directory=True)
    before = fingerprint(home)
    result = _resume(cli, session)
    assert result.exit_code == 0, result.stderr
    assert not os.path.lexists(session / "variants" / leftover)
    assert fingerprint(home) == before


def test_a_variant_folder_that_links_outside_is_replaced_as_a_link_and_its_target_kept(session, home):
    from irscope.storage.variants import write_variant

    opened = Session.open(session)
    entry = opened.entries[0]
    variant = opened.variant(entry)
    folder = session / "variants" / entry.id
    shutil.copytree(folder, home / "variant")
    shutil.rmtree(folder)
    folder.symlink_to(home / "variant", target_is_directory=True)
    before = fingerprint(home)
    write_variant(folder, variant, with_source=False, with_cubin=False)
    assert not folder.is_symlink() and (folder / "variant.json").is_file()
    assert fingerprint(home) == before
    assert not [p for p in (session / "variants").iterdir() if p.name.startswith(".")]


# ------------------------------------------------------------------ output paths the user names


def _make(kind: str, path: Path, canary: Path) -> None:
    if kind == "link to a file":
        path.symlink_to(canary)
    elif kind == "dangling link":
        path.symlink_to(canary.parent / "would-be-created.html")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "device":
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a copy of /dev/null
    else:
        raise AssertionError(kind)


def _entry(path: Path) -> tuple:
    info = os.lstat(path)
    return info.st_mode, info.st_ino, info.st_rdev, os.readlink(path) if stat.S_ISLNK(info.st_mode) else None


KINDS = [
    "link to a file",
    "dangling link",
    "fifo",
    "directory",
    pytest.param("device", marks=pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")),
]
COMMANDS = {
    "report": lambda session, out: ("report", str(session), "-o", str(out)),
    "export": lambda session, out: ("export", str(session), "-o", str(out)),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("kind", KINDS)
def test_an_output_path_that_is_not_a_regular_file_is_refused_and_left_as_it_was(
    cli, session, home, tmp_path, command, kind
):
    out = tmp_path / ("out.ndjson" if command == "export" else "out.html")
    _make(kind, out, home / "secret.txt")
    before, entry = fingerprint(home), _entry(out)
    one_line_error(cli(*COMMANDS[command](session, out)), ExitCode.USAGE, str(out))
    assert _entry(out) == entry and fingerprint(home) == before
    assert not [p for p in tmp_path.iterdir() if ".irscope-tmp-" in p.name]


@pytest.mark.parametrize("kind", ["link to a file", "fifo"])
def test_the_old_write_went_through_a_link_and_replaced_a_fifo(tmp_path, kind):
    """Control: what `open(path, "w")` and a bare `os.replace` did with what the refused tests put at -o."""
    canary = tmp_path / "canary.txt"
    canary.write_text("canary\n")
    path = tmp_path / "out.html"
    _make(kind, path, canary)
    if kind == "link to a file":
        with open(path, "w") as f:
            f.write("<html>")
        assert canary.read_text() == "<html>"
    else:
        fd, tmp = tempfile.mkstemp(dir=tmp_path)
        os.close(fd)
        os.replace(tmp, path)
        assert stat.S_ISREG(os.lstat(path).st_mode)


def test_a_regular_file_at_the_output_path_is_replaced(cli, session, tmp_path):
    out = tmp_path / "out.html"
    out.write_text("old")
    result = cli("report", str(session), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_text().startswith("<!doctype html>")


@pytest.mark.parametrize("kind", ["link to a file", "fifo"])
def test_dump_to_a_folder_never_writes_through_an_entry_in_it(cli, session, home, tmp_path, kind):
    out = tmp_path / "dumped"
    out.mkdir()
    _make(kind, out / "nudge_kernel.ptx", home / "secret.txt")
    before = fingerprint(home)
    one_line_error(cli("dump", str(session), "-c", "BLOCK=64", "-o", str(out)), ExitCode.USAGE, "nudge_kernel.ptx")
    assert fingerprint(home) == before
    assert [p.name for p in out.iterdir()] == ["nudge_kernel.ptx"]  # refused before any other file was written


# ------------------------------------------------------------------ irscope run's raw/ folder

RECORD = {
    "format": "irscope.triton-compile/1",
    "kernel": "k",
    "file": "/x/k.py",
    "source": "sources/k.py",
    "params": ["x"],
    "constexprs": [],
    "signature": {"x": "*fp32"},
    "constants": {},
    "divisible": [],
    "options": {"num_warps": 4},
    "hash": "h",
    "name": "k",
    "arch": 90,
    "stages": {"ptx": "stage.ptx"},
}


def _raw_run(tmp_path: Path) -> Path:
    raw = tmp_path / "run" / "raw"
    (raw / "compiles").mkdir(parents=True)
    (raw / "sources").mkdir()
    (raw / "sources" / "k.py").write_text("import triton\n\n\n@triton.jit\ndef k(x):\n    pass\n")
    return raw


def _no_secret(root: Path) -> bool:
    return not any(
        SECRET in p.read_text(errors="ignore") for p in root.rglob("*") if p.is_file() and not p.is_symlink()
    )


def test_a_record_folder_that_links_outside_raw_is_skipped_and_nothing_of_it_copied(tmp_path, home):
    from irscope.interop.run.collect import collect

    raw = _raw_run(tmp_path)
    (home / "record").mkdir()
    (home / "record" / "compile.json").write_text(json.dumps(RECORD))
    (home / "record" / "stage.ptx").write_text(SECRET)
    (raw / "compiles" / "00000").symlink_to(home / "record", target_is_directory=True)
    # Control: the old check, relative to the record folder itself, let the link through.
    assert contained(raw / "compiles" / "00000", "compile.json").read_text() == json.dumps(RECORD)
    before = fingerprint(home)
    notes: list[str] = []
    index = collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    assert index["kernels"] == [] and "outside" in index["skipped"][0], index["skipped"]
    assert _no_secret(tmp_path / "run") and fingerprint(home) == before


@pytest.mark.parametrize("where", ["inductor/0000.py", "load_inline/0000.json"])
def test_a_linked_file_in_raw_is_skipped_with_a_note(tmp_path, home, where):
    from irscope.interop.run.collect import collect

    raw = _raw_run(tmp_path)
    (raw / where).parent.mkdir()
    secret = home / ("code.py" if where.endswith(".py") else "record.json")
    secret.write_text(
        f"# async_compile.triton( {SECRET}"
        if where.endswith(".py")
        else json.dumps({"name": SECRET, "cuda_sources": ["__global__ void k() {}"]})
    )
    (raw / where).symlink_to(secret)
    notes: list[str] = []
    index = collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    assert index["kernels"] == [] and any("outside" in n for n in notes), notes
    assert _no_secret(tmp_path / "run")


@pytest.mark.parametrize("folder", ["raw", "kernels"])
def test_a_run_whose_folders_link_outside_is_refused(tmp_path, home, folder):
    from irscope.interop.run.collect import collect

    _raw_run(tmp_path)
    if folder == "raw":
        shutil.move(str(tmp_path / "run" / "raw"), home / "raw")
    (tmp_path / "run" / folder).symlink_to(home / "raw" if folder == "raw" else home, target_is_directory=True)
    before = fingerprint(home)
    with pytest.raises(SessionError, match="symbolic link"):
        collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1)
    assert fingerprint(home) == before


# ------------------------------------------------------------------ a shared report


def test_a_shared_report_carries_none_of_the_authors_paths(cli, session, tmp_path):
    listings = "".join(p.read_text() for p in (session / "variants").rglob("*") if p.suffix in (".ptx", ".sass"))
    assert USER in listings  # control: the compilers wrote the author's path into the stages
    out = tmp_path / "shared.html"
    result = cli("report", str(session), "-o", str(out), "--diff", "BLOCK=64", "BLOCK=256", "--diff-stage", "sass")
    assert result.exit_code == 0, result.stderr
    page = out.read_text()
    assert USER not in page and "/home/" not in page
    data = json.loads(re.search(r'id="irscope-data">(.*?)</script>', page, re.S)[1].replace("<\\/", "</"))
    sass = data["variants"][0]["listings"]["sass"]
    assert '//## File "nudge.py", line' in sass
    assert any(line for line, _ in data["variants"][0]["own"]["sass"])  # lines still linked to the kernel's
    kept = tmp_path / "kept.html"
    assert cli("report", str(session), "-o", str(kept), "--absolute-paths").exit_code == 0
    assert USER in kept.read_text()


@pytest.mark.parametrize(
    "text, shown",
    [
        ('loc("/src/home/{u}/kernels/nudge.py":6:0)', 'loc("nudge.py":6:0)'),
        ('//## File "/src/home/{u}/kernels/sub/helper.py", line 3', '//## File "sub/helper.py", line 3'),
        (
            '!DIFile(filename: "nudge.py", directory: "/src/home/{u}/kernels")',
            '!DIFile(filename: "nudge.py", directory: "")',
        ),
        ('.file 1 "/src/home/{u}/kernels" "nudge.py"', '.file 1 "" "nudge.py"'),
        ('loc("/home/{u}/.venv/lib/triton/language/core.py":40:8)', 'loc("~/.venv/lib/triton/language/core.py":40:8)'),
        ("/src/home/{u}/kernels2/other.py", "/src/home/{u}/kernels2/other.py"),  # another folder: not the kernel's
        ("/mnt/src/home/{u}/kernels/nudge.py", "/mnt/src/home/{u}/kernels/nudge.py"),  # not where a path starts
    ],
)
def test_shared_paths_rewrite_the_kernels_folder_and_home_folders_only_as_whole_folders(text, shown):
    from irscope.report.shared_paths import SharedPaths

    paths = SharedPaths(f"/src/home/{USER}/kernels/nudge.py")
    assert paths(text.format(u=USER)) == shown.format(u=USER)
    assert SharedPaths(f"/src/home/{USER}/kernels/nudge.py", keep=True)(text) == text
