"""Triton's hash of its own installation (``triton.runtime.cache.triton_key``), kept between irscope's workers.

Every Triton compile's cache key starts with a hash of Triton itself: its compiler, backends and language
sources and the whole of libtriton (415 MB in 3.6), read and hashed once per process - 0.27 s of CPU here,
more than half of a compile worker's start, paid again by every worker irscope starts
(tests/perf/RESULTS.md). Triton's own compile pools compute it once and hand it to their workers
(``_compile_warmup_pool.py`` in 3.9 sets ``triton.runtime.cache.triton_key = lambda: key`` in each);
irscope's workers live for one command, so the value is kept on disk instead, in the cache's
``triton-keys`` folder, in a file named by the folder Triton hashes (as Triton names it: links not
resolved) and by the state of every file in it, read through links as Triton reads them: size,
modification and change times, inode. A change time cannot be set back (``touch -r`` sets only the
others), so any write to a file of Triton's - an edit, a rebuild of libtriton, a reinstall - names
another file; the state is taken again after the hash, and a Triton that changed meanwhile is not kept.
One file per Triton folder: writing one removes that folder's older ones.

Only irscope's worker processes use it (``IRSCOPE_WORKER``: a user's own process keeps Triton's function;
under Ray, irscope's job sets it for every task of that job, a user's own tasks in it included, which then
get the same value Triton computes), not one that has the key already (a fork of the resident GPU parent,
which computed it). The file is data:
read without following a link, at most ``MAX_KEY_BYTES``, and used only if it is what this module writes
for this Triton's version; anything else is ignored and written again. Any failure here leaves Triton's
own function in place: the compile goes on, at the cost of the hash.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import sysconfig
from pathlib import Path
from typing import Any

from ...paths import TRITON_KEYS, cache_dir
from ...processes import own_python
from ...storage.files import atomic_write, open_private, own_folder
from .versions import triton_version

MAX_FILES = 20_000  # entries walked (files and folders): a Triton folder holds ~350; more is a loop of links
MAX_KEY_BYTES = 1 << 20  # Triton's key is its version and ~200 hex digests: ~13,000 characters
_done = False


def remember() -> None:
    """In one of irscope's worker processes, once: Triton's key from the kept file, or Triton's own
    function's result kept for the next worker. Any failure leaves Triton's function as it is."""
    global _done
    if _done or not os.environ.get(own_python.WORKER_ENV):
        return
    _done = True
    try:
        _remember()
    except Exception:  # an unreadable name, a Triton without this function: it hashes itself, as it would
        return


def _remember() -> None:
    import triton.runtime.cache as cache

    tritons_own: Any = getattr(cache, "triton_key", None)
    info = getattr(tritons_own, "cache_info", None)
    if tritons_own is None or info is None or info().currsize:
        return  # not Triton's lru-cached function, or computed here already (a resident parent's fork)
    folder, state = fingerprint(cache.__file__)
    if state is None:
        return
    place = _place(folder, state)
    key = _read(place)
    if key is not None:
        cache.triton_key = functools.lru_cache(maxsize=None)(lambda: key)
        return
    key = tritons_own()
    if fingerprint(cache.__file__) != (folder, state):
        return  # Triton changed while it was hashed: the key may be either's
    own_folder(place.parent)
    atomic_write(place, json.dumps({"triton": triton_version(), "key": key}))
    for older in place.parent.glob(f"{folder}-*.json"):
        if older.name != place.name:
            older.unlink(missing_ok=True)  # the same Triton folder's earlier states: never read again


def kept_file() -> Path | None:
    """Where the key of the Triton imported here is kept (None where its folder cannot be walked)."""
    import triton.runtime.cache as cache

    folder, state = fingerprint(cache.__file__)
    return None if state is None else _place(folder, state)


def _place(folder: str, state: str) -> Path:
    return cache_dir() / TRITON_KEYS / f"{folder}-{state}.json"


def fingerprint(cache_module: str) -> tuple[str, str | None]:
    """(a digest of the folder Triton hashes, a digest of the state of every file in it) for the Triton whose
    ``runtime/cache.py`` is ``cache_module``; the state None where the folder cannot be walked (a loop of
    links, a file vanishing as it is read)."""
    folder = os.path.dirname(os.path.dirname(os.path.abspath(cache_module)))  # as triton_key() finds it
    where = hashlib.sha256(
        b"\0".join(os.fsencode(s) for s in (sys.version, str(sysconfig.get_config_var("EXT_SUFFIX")), folder))
    ).hexdigest()[:16]
    state = hashlib.sha256(triton_version().encode())
    entries = 0
    for root, dirs, files in os.walk(folder, followlinks=True):
        entries += 1 + len(files)
        if entries > MAX_FILES:
            return where, None
        dirs.sort()
        if "__pycache__" in dirs:
            dirs.remove("__pycache__")  # Python writes these; Triton hashes the sources
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                info = os.stat(path)
            except OSError:
                return where, None
            state.update(os.fsencode(os.path.relpath(path, folder)))
            state.update(f"\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0{info.st_ino}\0".encode())
    return where, state.hexdigest()[:32]


def _read(place: Path) -> str | None:
    """The key kept at ``place``, if it is one this module wrote for this Triton's version: a regular file
    of this user's in a folder that is no link, read without following a link or waiting on a FIFO."""
    try:
        own_folder(place.parent)
    except Exception:
        return None
    fd = open_private(place, os.O_RDONLY)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as file:
        raw = file.read(MAX_KEY_BYTES + 1)
    try:
        data = json.loads(raw) if len(raw) <= MAX_KEY_BYTES else None
    except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past Python's stack
        return None
    if not isinstance(data, dict) or data.get("triton") != triton_version():
        return None
    key = data.get("key")
    if not isinstance(key, str) or not key.startswith(triton_version()):
        return None
    return key
