"""``irscope cache``: what the cache holds, measured as du measures it, and trimming it by last use.

Each test has a cache of its own, filled by real compiles of a kernel written for it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from irscope.storage.in_use import holding

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def halve(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 0.5, mask=offs < n)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32"


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def triton_cache(tmp_path) -> Path:
    return tmp_path / "triton-cache"


@pytest.fixture
def irscope(cache, triton_cache, run_irscope):
    """irscope run on the test's own cache, and Triton's cache of its own."""
    env = {"IRSCOPE_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(triton_cache)}
    return lambda *args: run_irscope(*args, env=env, timeout=600)


@pytest.fixture
def kernel(tmp_path) -> str:
    (tmp_path / "halve.py").write_text(KERNEL)
    return f"{tmp_path / 'halve.py'}:halve"


def _dump(irscope, kernel: str, block: int) -> None:
    done = irscope("dump", kernel, "-S", SIGNATURE, "-c", f"BLOCK={block}")
    assert done.returncode == 0, done.stderr


def _shown(irscope) -> dict:
    shown = irscope("cache", "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def _keys(cache: Path) -> set[str]:
    return {p.name for p in (cache / "variants").glob("*/*") if not p.name.startswith(".")}


def _du(path: Path) -> int:
    return int(
        subprocess.run(["du", "-s", "-B1", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]
    )


def _triton_entries(triton_cache: Path) -> set[Path]:
    return {p for p in (triton_cache / "irscope").glob("*/*") if not p.name.startswith(".")}


def test_the_cache_shows_its_entries_and_its_size_as_du_counts_it(cache, triton_cache, irscope, kernel):
    for block in (64, 128, 256):
        _dump(irscope, kernel, block)
    shown = _shown(irscope)
    sections = {s["name"]: s for s in shown["sections"]}
    assert shown["root"] == str(cache.resolve()) and sections["variants"]["entries"] == len(_keys(cache)) == 3
    # irscope's compiles in Triton's cache: one per variant, in the folder of the kernel file's path
    assert sections["triton-cache"]["entries"] == len(_triton_entries(triton_cache)) == 3
    assert sections["triton-cache"]["size"] == _du(triton_cache / "irscope") - _du_dirs(triton_cache / "irscope")
    assert shown["total_bytes"] == _du(cache) + sections["triton-cache"]["size"]
    text = irscope("cache").stdout
    assert f"irscope's cache: {cache.resolve()}" in text and "3 entries" in text


def test_trimming_removes_the_least_recently_used_first_and_a_removed_variant_compiles_again(
    cache, triton_cache, irscope, kernel
):
    order = []
    for block in (64, 128, 256):
        before = _keys(cache)
        _dump(irscope, kernel, block)
        order.append((_keys(cache) - before).pop())
    _dump(irscope, kernel, 64)  # read back from the cache: now the most recently used
    shutil.rmtree(triton_cache)  # Triton's compiles, trimmed with the rest, are the next test's
    held = {e["name"]: e for e in _shown(irscope)["sections"]}["variants"]["size"]
    trimmed = irscope("cache", "--trim", str(held - 1))  # one byte too many: the least recently used goes
    assert trimmed.returncode == 0 and trimmed.stdout.startswith("removed 1 entry "), trimmed.stdout
    assert _keys(cache) == {order[0], order[2]}  # BLOCK=128: written second, never read again
    _dump(irscope, kernel, 128)
    assert _keys(cache) == set(order)
    cleared = irscope("cache", "--clear")
    assert cleared.returncode == 0 and _keys(cache) == set(), cleared.stderr


def test_the_private_tritons_are_shown_and_never_removed(cache, irscope, kernel):
    _dump(irscope, kernel, 64)
    complete = cache / "tritons" / "3.8.0"  # as environments.py leaves one: the package and its dist-info
    (complete / "triton").mkdir(parents=True)
    (complete / "triton" / "__init__.py").write_text("__version__ = '3.8.0'\n")
    (complete / "triton-3.8.0.dist-info").mkdir()
    unfinished = cache / "tritons" / "3.7.1"  # irscope did not complete it: not its own to remove
    unfinished.mkdir()
    (unfinished / "half.whl").write_bytes(b"\0" * 4096)
    assert irscope("cache", "--clear").returncode == 0
    assert (complete / "triton" / "__init__.py").exists() and (unfinished / "half.whl").exists()
    tritons = {s["name"]: s for s in _shown(irscope)["sections"]}["tritons"]
    assert sorted(tritons["names"]) == ["3.7.1", "3.8.0"] and tritons["trimmed"] is False
    assert tritons["size"] > 4096


def test_a_sweep_beside_a_cache_cleared_over_and_over_loses_nothing(cache, irscope, tmp_path, kernel):
    """Readers and writers see an entry whole or not at all: a cleared entry is a miss, compiled again."""
    sweep = subprocess.Popen(
        [sys.executable, "-m", "irscope", "sweep", kernel, "-S", SIGNATURE, "-s", "BLOCK=16,32,64,128,256,512,1024"]
        + ["-s", "num_warps=1,2,4", "-j", "2", "-o", str(tmp_path / "s"), "--json"],
        env={**os.environ, "IRSCOPE_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(tmp_path / "triton-cache")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    clears = 0
    while sweep.poll() is None:
        cleared = irscope("cache", "--clear")
        assert cleared.returncode == 0, cleared.stderr
        clears += 1
    out, err = sweep.communicate()
    assert sweep.returncode == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 21 and all(r["status"] == "ok" and r["registers"] > 0 for r in rows)
    assert clears >= 2
    again = irscope("sweep", str(tmp_path / "s"), "--json")  # the session is whole
    assert again.returncode == 0 and len(again.stdout.splitlines()) == 21, again.stderr


def _du_dirs(folder: Path) -> int:
    """The bytes of ``folder`` and its path-digest folders themselves (not entries: not counted in a section)."""
    return sum(os.lstat(d).st_blocks * 512 for d in [folder, *(p for p in folder.iterdir() if p.is_dir())])


def test_the_api_sessions_and_irscopes_folder_in_tritons_cache_are_shown_and_trimmed(
    cache, triton_cache, irscope, kernel, tmp_path
):
    """Issue 47: irscope.sweep()'s sessions and Triton's compiles of irscope's kernels took disk no command showed."""
    _dump(irscope, kernel, 64)
    script = f"import irscope; irscope.sweep({kernel!r}, {{'BLOCK': [32]}}, signature={SIGNATURE!r})"
    env = {**os.environ, "IRSCOPE_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(triton_cache)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    sections = {s["name"]: s for s in _shown(irscope)["sections"]}
    (session,) = (cache / "sessions").iterdir()
    assert session.name.startswith("halve-") and (session / "session.json").is_file()
    assert sections["sessions"]["entries"] == 1 and sections["sessions"]["size"] == _du(session)
    assert sections["triton-cache"]["entries"] == len(_triton_entries(triton_cache)) == 2  # BLOCK=64 and 32
    assert sections["triton-cache"]["folder"] == str((triton_cache / "irscope").resolve())
    text = irscope("cache").stdout
    assert "sessions irscope.sweep() keeps" in text and f"({(triton_cache / 'irscope').resolve()})" in text
    trimmed = irscope("cache", "--trim", str(sections["sessions"]["size"] + sections["variants"]["size"]))
    assert trimmed.returncode == 0 and trimmed.stdout.startswith("removed "), trimmed.stdout
    cleared = irscope("cache", "--clear")
    assert cleared.returncode == 0, cleared.stderr
    assert not list((cache / "sessions").iterdir()) and not _triton_entries(triton_cache) and not _keys(cache)
    _dump(irscope, kernel, 64)  # compiled again, by Triton too
    assert len(_triton_entries(triton_cache)) == 1


def test_a_folder_a_compile_is_writing_into_is_left_by_a_trim_and_taken_by_the_next(
    cache, triton_cache, irscope, kernel
):
    """Triton reads a compile's files back at its end: a trim that took its folder then failed the compile
    (FileNotFoundError, 1-2 of 21 variants of the sweep above before the lock). Held as a compile holds it."""
    _dump(irscope, kernel, 64)
    entries = _triton_entries(triton_cache)
    assert len(entries) == 1
    with holding(next(iter(entries)).parent):
        cleared = irscope("cache", "--clear", "--json")
        assert cleared.returncode == 0 and json.loads(cleared.stdout)["in_use"] == 1, cleared.stdout
        assert _triton_entries(triton_cache) == entries and _keys(cache) == set()  # the rest went
        said = irscope("cache", "--clear").stdout
        assert "1 entry left while a compile writes into their folder" in said, said
    cleared = irscope("cache", "--clear", "--json")
    assert json.loads(cleared.stdout)["in_use"] == 0 and _triton_entries(triton_cache) == set()
