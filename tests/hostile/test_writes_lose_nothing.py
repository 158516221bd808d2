"""Writing loses nothing: concurrent sweeps, killed writers, a broken environment, a runaway compile.

Real sweeps in real subprocesses, on a kernel written for this test.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import pytest

from irscope.capturing import capture
from irscope.capturing.cache import CaptureCache
from irscope.frontends import resolve_kernel
from irscope.session import Session
from irscope.storage.variants import write_variant

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32:16"


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "shift.py"
    path.write_text(KERNEL)
    return path


def _env(tmp_path, **extra) -> dict[str, str]:
    return {
        **os.environ,
        "IRSCOPE_CACHE_DIR": str(tmp_path / "cache"),
        "TRITON_CACHE_DIR": str(tmp_path / "triton"),
        **extra,
    }


def _sweep(kernel_file, out, *args, env, umask=None) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "irscope",
        "sweep",
        f"{kernel_file}:shift_kernel",
        "-S",
        SIGNATURE,
        "-o",
        str(out),
        "--json",
        *args,
    ]
    return subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),
    )


def test_two_sweeps_into_one_session_at_once_keep_every_variant(kernel_file, tmp_path):
    out = tmp_path / "shared"
    a = _sweep(kernel_file, out, "-s", "BLOCK=64,128,256,512", "-c", "num_warps=4", "-j", "1", env=_env(tmp_path))
    b = _sweep(kernel_file, out, "-s", "BLOCK=64,128,256,512", "-c", "num_warps=8", "-j", "1", env=_env(tmp_path))
    for proc in (a, b):
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    entries = Session.open(out).entries
    got = sorted((e.config.constexprs["BLOCK"], e.config.options["num_warps"]) for e in entries)
    assert got == sorted((block, warps) for block in (64, 128, 256, 512) for warps in (4, 8))
    on_disk = {p.name for p in (out / "variants").iterdir()}
    assert on_disk == {e.id for e in entries}  # no orphaned variant folders, no leftovers
    assert not [p for p in out.rglob(".*") if p.name != ".lock"]


def test_a_killed_writers_leftovers_are_put_back_or_removed(kernel_file, tmp_path):
    out = tmp_path / "s"
    proc = _sweep(kernel_file, out, "-s", "BLOCK=64,128", env=_env(tmp_path))
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    session = Session.open(out)
    victim = session.entries[0].id
    # What a writer killed mid-swap leaves: the variant moved aside, a half-made copy, a torn index write.
    os.rename(out / "variants" / victim, out / "variants" / f".{victim}.irscope-old-999999")
    (out / "variants" / f".{victim}.irscope-tmp-x1y2z3").mkdir()
    (out / ".session.json.irscope-tmp-abc123").write_bytes(b"")
    again = _sweep(kernel_file, out, "-s", "BLOCK=64,128,256", env=_env(tmp_path))
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    restored = Session.open(out)
    assert len(restored.entries) == 3
    assert "ld.global" in restored.variant(victim).listings["ptx"]
    assert not [p for p in out.rglob(".*") if p.name != ".lock"]


@pytest.mark.parametrize("umask, file_mode, dir_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_session_files_follow_the_users_umask(kernel_file, tmp_path, umask, file_mode, dir_mode):
    out = tmp_path / "s"
    proc = _sweep(kernel_file, out, "-s", "BLOCK=64", env=_env(tmp_path), umask=umask)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    for path in out.rglob("*"):
        if path.name == ".lock":
            continue
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (dir_mode if path.is_dir() else file_mode), (path, oct(mode))


def test_a_broken_triton_cache_is_an_environment_fault_never_cached_and_retried(kernel_file, tmp_path):
    out = tmp_path / "s"
    # A Triton cache that cannot be written (here: under a file, ENOTDIR; a full or read-only disk is alike).
    broken = _env(tmp_path, TRITON_CACHE_DIR="/dev/null/triton")
    proc = _sweep(kernel_file, out, "-s", "BLOCK=64,128", env=broken)
    stdout, err = proc.communicate(timeout=300)
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert [r["status"] for r in rows] == ["failed", "failed"]
    assert all("environment" in r["note"] for r in rows), rows
    assert proc.returncode != 0 and "2 failed" in err
    assert all(e.retry for e in Session.open(out).entries)
    assert not list((tmp_path / "cache").rglob("variant.json"))  # nothing cached

    healthy = _sweep(kernel_file, out, env=_env(tmp_path))  # resume the same sweep, healthy now
    stdout, err = healthy.communicate(timeout=300)
    assert healthy.returncode == 0, err
    assert "2 ok, 0 failed, 0 reused" in err
    assert [e.retry for e in Session.open(out).entries] == [False, False]


@pytest.mark.serial  # timed: a 4 s compile timeout, and no other test's ptxas of a shift_kernel about
def test_a_compile_past_its_timeout_is_killed_with_what_it_started_and_not_cached(kernel_file, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    ref = resolve_kernel(f"{kernel_file}:shift_kernel", SIGNATURE)
    start = time.monotonic()
    variant = capture(ref, {"BLOCK": 1 << 20}, arch="sm_90", compile_timeout=4)
    took = time.monotonic() - start
    assert variant.error is not None and variant.error.stage == "timeout", variant.error
    assert took < 30
    assert not variant.error.is_fact
    deadline = time.monotonic() + 0.5
    while True:
        ptxas = subprocess.run(["pgrep", "-f", "ptxas.*shift_kernel"], capture_output=True, text=True)
        if not ptxas.stdout.strip() or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert ptxas.stdout.strip() == ""  # the worker's process group went with it
    cache = CaptureCache()
    config = variant.config
    assert cache.get(cache.key(ref, config, "sm_90")) is None


def test_a_truncated_cached_listing_is_a_miss_not_a_shorter_listing(kernel_file, tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    ref = resolve_kernel(f"{kernel_file}:shift_kernel", SIGNATURE)
    first = capture(ref, {"BLOCK": 256}, arch="sm_90")
    [cached_ptx] = (tmp_path / "cache").rglob("ptx.ptx")
    cached_ptx.write_text(cached_ptx.read_text()[:300])
    again = capture(ref, {"BLOCK": 256}, arch="sm_90")
    assert again.listings["ptx"] == first.listings["ptx"]
    assert again.listings["ptx"] == cached_ptx.read_text()  # recompiled and written whole again


@pytest.mark.serial  # timed: the small variant compiles within a 4 s timeout (failed beside a busy worker)
def test_compile_timeout_on_the_command_line_fails_only_the_runaway_variant(kernel_file, tmp_path):
    out = tmp_path / "s"
    proc = _sweep(kernel_file, out, "-s", "BLOCK=64,1048576", "--compile-timeout", "4", env=_env(tmp_path))
    stdout, err = proc.communicate(timeout=120)
    rows = {json.loads(line)["BLOCK"]: json.loads(line) for line in stdout.splitlines()}
    assert rows[64]["status"] == "ok"
    assert rows[1048576]["status"] == "failed" and "compile timeout" in rows[1048576]["note"]
    assert proc.returncode == 1 and "1 ok, 1 failed" in err
    assert [e.retry for e in sorted(Session.open(out).entries, key=lambda e: e.config.constexprs["BLOCK"])] == [
        False,
        True,
    ]


RACER = """
import sys
from pathlib import Path
from irscope.capturing.cache import CaptureCache
from irscope.storage.variants import read_variant

cache, key, source, times = CaptureCache(Path(sys.argv[1])), sys.argv[2], read_variant(Path(sys.argv[3])), int(sys.argv[4])
print("ready", flush=True)
sys.stdin.readline()
for _ in range(times):
    cache.put(key, source)
"""


def test_writers_racing_on_one_cache_entry_leave_readers_a_whole_variant_or_a_miss(kernel_file, tmp_path):
    """CI's test run shares one cache between pytest-xdist's workers (tests/conftest.py): two processes
    that compile the same variant write its entry at once. Here three write one real entry over and over,
    in step, while this process reads it: each read is the variant whole or a miss, never a torn one."""
    ref = resolve_kernel(f"{kernel_file}:shift_kernel", SIGNATURE)
    variant = capture(ref, {"BLOCK": 128}, arch="sm_90", use_cache=False)
    assert variant.ok, variant.error
    source = tmp_path / "source"
    write_variant(source, variant)
    cache = CaptureCache(tmp_path / "cache")
    key = cache.key(ref, variant.config, "sm_90")
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(cache.root), key, str(source), "60"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for racer in racers:
        assert racer.stdout.readline() == "ready\n"
    for racer in racers:  # all three start writing at once
        racer.stdin.write("go\n")
        racer.stdin.flush()
    whole = misses = 0
    while any(racer.poll() is None for racer in racers) or whole + misses == 0:
        got = cache.get(key)
        if got is None:
            misses += 1
            continue
        whole += 1
        assert got.listings == variant.listings and got.cubin == variant.cubin
        assert got.resources == variant.resources and got.config == variant.config
    assert [racer.wait(timeout=120) for racer in racers] == [0, 0, 0]
    assert whole > 0
    again = cache.get(key)
    assert again is not None and again.listings == variant.listings and again.cubin == variant.cubin


def test_a_listed_cubin_or_pass_log_that_is_gone_is_damage_and_a_cache_miss(kernel_file, tmp_path):
    """What a reader racing an entry's swap saw (the test above, once, under CI's load): variant.json and the
    listings read before the swap, the cubin looked for while the folder was away. Taken for an entry
    without a cubin, it was a hit missing its cubin; a file variant.json has a checksum for is no option."""
    from irscope.errors import SessionError
    from irscope.storage.variants import PASSES_FILE, read_variant

    ref = resolve_kernel(f"{kernel_file}:shift_kernel", SIGNATURE)
    variant = capture(ref, {"BLOCK": 128}, arch="sm_90", use_cache=False, passes=True)
    assert variant.ok and variant.cubin and variant.passes is not None, variant.error
    cache = CaptureCache(tmp_path / "cache")
    key = cache.key(ref, variant.config, "sm_90")
    for name in ("kernel.cubin", PASSES_FILE):
        cache.put(key, variant)
        entry = cache._dir(key)
        assert cache.get(key).cubin == variant.cubin  # whole: a hit
        (entry / name).unlink()
        with pytest.raises(SessionError, match=f"{name} is missing"):
            read_variant(entry)
        assert cache.get(key) is None
    # written without a cubin (a session's variants leave theirs out when asked): no checksum, no damage
    bare = tmp_path / "bare"
    write_variant(bare, variant, with_cubin=False)
    assert read_variant(bare).cubin is None
