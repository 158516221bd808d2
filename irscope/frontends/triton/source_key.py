"""Triton's hash of its own installation (``triton.runtime.cache.triton_key``), kept between irscope's workers.

Every Triton compile's cache key starts with a hash of Triton itself: its compiler, backends and language
sources and the whole of libtriton (415 MB in 3.6), read and hashed once per process - 0.27 s of CPU here,
more than half of a compile worker's start, paid again by every worker irscope starts
(tests/perf/RESULTS.md). Triton's own compile pools compute it once and hand it to their workers
(``_compile_warmup_pool.py`` in 3.9 sets ``triton.runtime.cache.triton_key = lambda: key`` in each);
irscope's workers live for one command, so the value is kept on disk instead, in the cache's
``triton-keys`` folder, under a name made of what could change it: the interpreter, the Triton folder, its
version, and the size, modification time and inode of every file in that folder (read through links, as
Triton's own walk of its packages is). Triton installed again, edited, or another Triton gets a file of its
own. Only irscope's worker processes use it (a user's own process keeps Triton's function untouched), and a
file that is not what this module writes is ignored and written again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import sysconfig
from pathlib import Path

from ...errors import IrscopeError
from ...paths import TRITON_KEYS, cache_dir
from ...processes import own_python
from ...storage.files import atomic_write, read_json

MAX_FILES = 20_000  # a Triton folder holds ~350 files; more means a loop of links, and no file is kept
MAX_KEY_CHARS = 1 << 20  # Triton's key is its version and ~200 hex digests: ~13,000 characters
_done = False


def remember() -> None:
    """In one of irscope's worker processes, once: Triton's key from the kept file, or Triton's own
    function's result kept for the next worker. Any failure leaves Triton's function as it is."""
    global _done
    if _done or not os.environ.get(own_python.WORKER_ENV):
        return
    _done = True
    import triton.runtime.cache as cache

    info = getattr(cache.triton_key, "cache_info", None)
    if info is not None and info().currsize:
        return  # computed here already, or in the resident parent this worker is a fork of (processes/resident.py)
    place = kept_file()
    if place is None:
        return
    key = _read(place)
    if key is None:
        key = cache.triton_key()
        try:
            atomic_write(place, json.dumps({"triton": _version(), "key": key}))
        except (OSError, IrscopeError):
            pass  # a read-only or damaged cache: the next worker computes it again
        return
    cache.triton_key = functools.lru_cache(maxsize=None)(lambda: key)


def kept_file() -> Path | None:
    """Where this Triton's key is kept: ``triton-keys/<fingerprint>.json``; None where its folder cannot be
    walked (a link loop, a file vanishing as it is read)."""
    import triton

    folder = os.path.dirname(os.path.realpath(triton.__file__))
    digest = hashlib.sha256(
        "\0".join((sys.version, str(sysconfig.get_config_var("EXT_SUFFIX")), folder, _version())).encode()
    )
    count = 0
    for root, dirs, files in os.walk(folder, followlinks=True):
        count += 1
        dirs.sort()
        if "__pycache__" in dirs:
            dirs.remove("__pycache__")  # Python writes these; Triton hashes the sources
        for name in sorted(files):
            count += 1
            try:
                info = os.stat(os.path.join(root, name))
            except OSError:
                return None
            if count > MAX_FILES:
                return None
            relative = os.path.relpath(os.path.join(root, name), folder)
            digest.update(f"\0{relative}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}\0{info.st_dev}".encode())
    return cache_dir() / TRITON_KEYS / f"{digest.hexdigest()[:40]}.json"


def _read(place: Path) -> str | None:
    """The key kept at ``place``, if it is one this module wrote for this Triton's version."""
    try:
        data = read_json(place)
    except IrscopeError:
        return None
    if not isinstance(data, dict) or data.get("triton") != _version():
        return None
    key = data.get("key")
    if not isinstance(key, str) or not key.startswith(_version()) or len(key) > MAX_KEY_CHARS:
        return None
    return key


def _version() -> str:
    import triton

    return str(triton.__version__)
