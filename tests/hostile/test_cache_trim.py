"""Trimming the cache removes irscope's own entries and nothing else: no link is followed, nothing outside
the cache is touched, a writer's folder in use stays, and a lock that is not a plain file is refused.

Each case starts from a real cache (a sweep's compiled variants and a tritonparse trace read into a
session, written by irscope itself) and plants something in it. A canary folder outside the cache must
keep its fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.capturing.housekeeping import TRIM_MARK, _entries, _remove, _root
from irscope.errors import ExitCode
from irscope.storage.files import TEMP_MARK
from irscope.storage.in_use import IN_USE

from .damage import fingerprint

REPO = Path(__file__).resolve().parents[2]
TRACE = REPO / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz"


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("filled") / "cache"
    env = {**os.environ, "IRSCOPE_CACHE_DIR": str(cache)}
    for args in (
        ["sweep", "square_kernel", "-s", "BLOCK_SIZE=128,256", "-c", "n_cols=256", "--json"],
        ["dump", str(TRACE), "-c", "ACTIVATION=relu"],
    ):
        done = subprocess.run([sys.executable, "-m", "irscope", *args], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
    return cache


@pytest.fixture
def cache(filled, tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "cache"
    shutil.copytree(filled, copy, symlinks=True)
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(copy))
    return copy


@pytest.fixture
def irscope(cache, run_irscope):
    """irscope on the cache in a process of its own: a FIFO opened for a blocking read would hang it (timeout)."""
    return lambda *args: run_irscope(*args, env={"IRSCOPE_CACHE_DIR": str(cache)})


@pytest.fixture
def canary(tmp_path) -> Path:
    """A folder outside the cache shaped like a cache entry: a variant's files, a key-named folder, a secret."""
    outside = tmp_path / "outside"
    (outside / "ff" / ("f" * 64)).mkdir(parents=True)
    (outside / "ff" / ("f" * 64) / "variant.json").write_text("{}")
    (outside / "variant.json").write_text("{}")
    (outside / "secret").write_text("the user's own file\n")
    return outside


def _first_entry(cache: Path) -> Path:
    return min(p for p in (cache / "variants").glob("*/*") if not p.name.startswith("."))


# Where a link is planted -> the path it is planted at, given the cache and the canary.
PLANTS = {
    "an entry": lambda c: c / "variants" / "ee" / ("e" * 64),
    "a 2-hex folder": lambda c: c / "variants" / "zz",
    "a trace's entry": lambda c: c / "tritonparse" / "linked-v1",
    "an inductor entry": lambda c: c / "inductor" / "0123456789abcdef",
}


@pytest.mark.parametrize("where", PLANTS)
def test_a_link_in_the_cache_is_left_alone_and_what_it_points_to_untouched(cli, cache, canary, where):
    before = fingerprint(canary)
    link = PLANTS[where](cache)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(canary, target_is_directory=True)
    assert os.path.realpath(link) == str(canary.resolve())  # control: it leads to the canary
    shown = cli("cache")
    assert shown.exit_code == 0 and "left alone" in shown.stdout and link.name in shown.stdout
    cleared = cli("cache", "--clear")
    assert cleared.exit_code == 0, cleared.stderr
    assert fingerprint(canary) == before and link.is_symlink()
    assert not any(p for p in (cache / "variants").glob("*/*") if not p.is_symlink() and not p.parent.is_symlink())


def test_a_section_that_is_a_link_is_not_entered(cli, cache, canary):
    before = fingerprint(canary)
    shutil.rmtree(cache / "variants")
    (cache / "variants").symlink_to(canary, target_is_directory=True)
    assert cli("cache", "--clear").exit_code == 0
    assert fingerprint(canary) == before and (cache / "variants").is_symlink()


def test_a_link_inside_an_entry_goes_as_a_link(cli, cache, canary):
    before = fingerprint(canary)
    entry = _first_entry(cache)
    (entry / "more").symlink_to(canary, target_is_directory=True)
    (entry / "secret.ptx").symlink_to(canary / "secret")
    assert cli("cache", "--clear").exit_code == 0
    assert not os.path.lexists(entry) and fingerprint(canary) == before


def test_a_folder_swapped_for_a_link_after_the_scan_is_not_followed(cache, canary):
    root = _root(cache)
    entry = next(_entries(root, "variants", 2, []))  # scanned: variants/<ab>/<key>
    folder = entry.path.parent
    shutil.copytree(folder, canary / folder.name)  # the same names, outside
    before = fingerprint(canary)
    shutil.rmtree(folder)
    folder.symlink_to(canary / folder.name, target_is_directory=True)
    assert (entry.path / "variant.json").exists()  # control: through the link, the entry is there
    assert _remove(root, entry.path) is False
    assert fingerprint(canary) == before


@pytest.mark.parametrize("kind", ["a link to a file outside", "a FIFO", "a folder"])
def test_a_trim_lock_that_is_not_a_plain_file_is_refused_in_one_line(cache, irscope, canary, kind):
    lock = cache / ".trim.lock"
    if kind == "a FIFO":
        os.mkfifo(lock)
    elif kind == "a folder":
        lock.mkdir()
    else:
        lock.symlink_to(canary / "secret")
    before = fingerprint(canary)
    done = irscope("cache", "--clear")
    assert done.returncode == ExitCode.USAGE and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("irscope: error: cannot trim")
    assert fingerprint(canary) == before and _first_entry(cache).exists()


def test_a_writers_fresh_folder_stays_and_a_killed_writers_or_trims_goes(cli, cache):
    entry = _first_entry(cache)
    fresh = entry.with_name(f".{entry.name}{TEMP_MARK}live")
    stale = entry.with_name(f".{entry.name}{TEMP_MARK}dead")
    tomb = entry.with_name(f".{entry.name}{TRIM_MARK}12345")
    for folder in (fresh, stale, tomb):
        shutil.copytree(entry, folder)
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    done = cli("cache", "--trim", "1T")  # nothing to trim for size: leftovers only
    assert done.exit_code == 0 and "2 leftovers" in done.stdout, done.stdout
    assert fresh.exists() and not stale.exists() and not tomb.exists() and entry.exists()


def test_a_fifo_in_the_cache_is_never_opened(cache, irscope):
    fifo = cache / "variants" / "ab"
    fifo.parent.mkdir(exist_ok=True)
    os.mkfifo(fifo)
    os.mkfifo(cache / "devices-fifo")
    for args in (["cache"], ["cache", "--clear"]):
        done = irscope(*args)
        assert done.returncode == 0, done.stderr
    assert fifo.is_fifo() and (cache / "devices-fifo").is_fifo()


@pytest.mark.parametrize("size", ["-1", "1e300", "nan", "12Q", "", "1.5.5G", "inf"])
def test_a_trim_size_that_is_not_one_is_one_line(cli, cache, size):
    one_line_error(cli("cache", "--trim", size), ExitCode.USAGE, "is not a size")
    assert _first_entry(cache).exists()


def test_a_cache_folder_that_is_a_link_loop_is_one_line(cli, tmp_path, monkeypatch):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(tmp_path / "a"))
    for args in (["cache"], ["cache", "--clear"]):
        one_line_error(cli(*args), ExitCode.USAGE, "cannot be followed")


def test_links_in_irscopes_folder_in_tritons_cache_are_left_alone(cli, cache, canary, tmp_path, monkeypatch):
    """Triton's cache is trimmed too (issue 47): a link there, as an entry or inside one, never leads outside."""
    before = fingerprint(canary)
    triton = tmp_path / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(triton))
    digest = triton / "irscope" / "0123456789abcdef"
    (digest / "KEYA").mkdir(parents=True)
    (digest / "KEYA" / "kernel.ptx").write_text("// a compile")
    (digest / "KEYA" / "more").symlink_to(canary, target_is_directory=True)
    (digest / "KEYB").symlink_to(canary, target_is_directory=True)  # an entry that is a link: listed, kept
    shown = json.loads(cli("cache", "--json").stdout)
    section = {s["name"]: s for s in shown["sections"]}["triton-cache"]
    assert section["entries"] == 1 and any(link.endswith("KEYB") for link in shown["links_left_alone"])
    assert cli("cache", "--clear").exit_code == 0
    assert not os.path.lexists(digest / "KEYA") and (digest / "KEYB").is_symlink()
    assert fingerprint(canary) == before


def _kernel_and_its_folder(tmp_path: Path, triton: Path, name: str) -> tuple[Path, Path]:
    """A kernel file written for the test, and the folder of Triton's cache its compiles go to (made)."""
    kernel = tmp_path / f"{name}.py"
    kernel.write_text(
        f"import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef {name}(x_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)\n"
    )
    digest = triton / "irscope" / hashlib.sha256(str(kernel).encode()).hexdigest()[:16]  # compile.triton_cache_for
    digest.mkdir(parents=True)
    return kernel, digest


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_an_in_use_lock_that_is_not_a_plain_file_stops_neither_a_compile_nor_a_trim(
    cli, cache, canary, tmp_path, monkeypatch, run_irscope, kind
):
    """The lock a compile holds on its folder in Triton's cache (storage/in_use.py), planted as a FIFO (opened
    for a blocking wait it would hang both) or as a link to a file outside: the compile goes on unprotected,
    the trim takes the folder, and the file outside is not touched."""
    before = fingerprint(canary)
    triton = tmp_path / "triton-cache"
    kernel, digest = _kernel_and_its_folder(tmp_path, triton, "twice")
    if kind == "fifo":
        os.mkfifo(digest / IN_USE)
    else:
        (digest / IN_USE).symlink_to(canary / "secret")
    env = {"IRSCOPE_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(triton)}
    done = run_irscope("dump", f"{kernel}:twice", "-S", "*fp32:16", "-c", "BLOCK=64", env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in digest.iterdir() if not p.name.startswith(".")], "the compile wrote no entry"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(triton))
    assert cli("cache", "--clear").exit_code == 0
    assert [p.name for p in digest.iterdir() if not p.name.startswith(".")] == []
    assert fingerprint(canary) == before and os.path.lexists(digest / IN_USE)


def test_an_in_use_lock_someone_else_holds_does_not_hang_a_compile(tmp_path, run_irscope):
    """Another user of a shared Triton cache (or a stopped trim) holding a folder's `.in-use` exclusively: the
    compile waits WAIT_S for it, as for a trim at work, then compiles unprotected (it hung forever before)."""
    import fcntl

    from irscope.storage.in_use import WAIT_S

    triton = tmp_path / "triton-cache"
    kernel, digest = _kernel_and_its_folder(tmp_path, triton, "held")
    lock = os.open(digest / IN_USE, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        env = {"IRSCOPE_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(triton)}
        started = time.monotonic()
        done = run_irscope("dump", f"{kernel}:held", "-S", "*fp32:16", "-c", "BLOCK=64", env=env, timeout=300)
        took = time.monotonic() - started
    finally:
        os.close(lock)
    assert done.returncode == 0, done.stderr
    assert took >= WAIT_S and [p for p in digest.iterdir() if not p.name.startswith(".")], took
