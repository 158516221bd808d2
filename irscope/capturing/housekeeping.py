"""The cache on disk as a whole: what it holds, how much, and trimming it (``irscope cache``).

Six sections hold results that irscope can make again: captured variants, tritonparse
traces read into sessions, Triton's own folders and pass logs read into sessions (interop/triton_cache.py,
mlir_log.py), Inductor's kernels written as files, the sessions ``irscope.sweep()``
keeps when given no folder, and irscope's folder inside Triton's own cache (``~/.triton/cache/irscope``:
Triton's compiles of each kernel file, often larger than the variants irscope keeps). An entry
of each is one folder, used whenever it is read (``mark_used`` sets its time: access times are often
not kept), and trimming removes the least recently used first, across the sections. The private
Tritons (``-c triton=X``) are shown, never trimmed: each is an installation of 0.6-1 GB (measured:
3.5.1 594 MB, 3.7.1 691 MB, 3.8.0 897 MB, 3.9.0 999 MB, as ``du`` counts them) that a
worker may be importing from right now, and one irscope did not complete is not its own
to remove (frontends/triton/environments.py); what a killed install of one left (its
``.X.irscope-tmp-PID`` folder) is removed, once that version's install lock is free.
Anything else in the cache is counted only.

Trimming is safe beside irscopes that read and write the cache: an entry is renamed away
(one atomic step: a reader sees all of it or none, and a miss is compiled again) before
it is removed, and two trims take turns on a lock. Nothing is followed through a link:
a link in the cache is left as it is, and a folder is only ever removed by a call that
refuses to follow links inside it. A writer's temporary folder is left alone while it
may still be in use (an hour).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..paths import (
    CAPTURES,
    IN_TRITON_CACHE,
    INDUCTOR_FILES,
    SESSIONS,
    TRACES,
    TRITON_CACHES,
    TRITONS,
    cache_dir,
    triton_cache_dir,
)
from ..storage.files import LEFTOVER, OLD_MARK, TEMP_MARK
from ..storage.in_use import unless_held

# section -> how deep its entries sit below it (variants/<2 hex>/<key>/: two)
TRIMMED = {CAPTURES: 2, TRACES: 1, TRITON_CACHES: 1, INDUCTOR_FILES: 1, SESSIONS: 1}
# irscope's folder in Triton's cache, a section outside irscope's own: <path digest>/<Triton's key>/ (two).
# A Triton looking an entry up after it was trimmed finds no group file, which is a miss: it compiles again.
# One compiling into a folder now holds it in use (storage/in_use.py) and a trim skips that folder.
TRITON_CACHE = "triton-cache"
TRITON_CACHE_DEPTH = 2
TRIM_MARK = ".irscope-trim-"  # an entry renamed away by a trim, on its way out
LOCK = ".trim.lock"
LEFTOVER_AGE = 3600.0  # a writer's temporary folder older than this is a killed writer's


@dataclass(frozen=True)
class CacheEntry:
    path: Path
    section: str
    size: int  # bytes on disk
    used: float  # when it was last written or read (its folder's mtime)


@dataclass
class Section:
    name: str
    entries: int = 0
    size: int = 0
    oldest: float | None = None
    newest: float | None = None
    trimmed: bool = True
    names: list[str] = field(default_factory=list)  # the private Tritons: their versions
    folder: str = ""  # where it is: a folder of the cache, or (triton-cache) of Triton's cache


@dataclass
class Usage:
    root: Path
    sections: list[Section]
    other: int  # bytes in anything that is no section's entry
    links: list[str]  # links found in the cache, left alone (paths relative to the root)

    @property
    def total(self) -> int:
        """Bytes irscope keeps: its cache, and its folder in Triton's cache."""
        return sum(s.size for s in self.sections) + self.other

    def to_json(self) -> dict:
        return {
            "root": str(self.root),
            "total_bytes": self.total,
            "sections": [vars(s) for s in self.sections],
            "other_bytes": self.other,
            "links_left_alone": self.links,
        }


@dataclass(frozen=True)
class Trimmed:
    removed: int  # entries removed
    freed: int  # bytes
    leftovers: int  # killed writers' temporary folders and earlier trims' remains removed
    kept: int  # bytes the trimmed sections hold now
    in_use: int = 0  # entries left because a compile was writing into their folder


def mark_used(folder: Path) -> None:
    """Record that a cache entry was just used: trimming keeps the most recently used."""
    with contextlib.suppress(OSError):  # a read-only cache still serves
        os.utime(folder)


def parse_size(text: str) -> int:
    """``500M``, ``2G``, ``1.5GB``, ``0`` -> bytes (K, M, G, T are powers of 1024)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if m is None:
        raise UsageError(f"--trim {text!r} is not a size: give a number of bytes, or with K, M, G or T (500M, 2G)")
    return int(float(m[1]) * 1024 ** " KMGT".index(m[2].upper() or " "))


def usage(root: Path | None = None, triton_cache: Path | None = None) -> Usage:
    """Every section of the cache at ``root`` (default: ``cache_dir()``), and irscope's folder in Triton's
    cache ``triton_cache`` (default: ``triton_cache_dir()`` when ``root`` is the default one), measured."""
    root = _root(root)
    links: list[str] = []
    sections = []
    for name, depth in TRIMMED.items():
        sections.append(_measured(Section(name, folder=str(root / name)), _entries(root, name, depth, links)))
    tritons = Section(TRITONS, trimmed=False, folder=str(root / TRITONS))
    for folder in _children(root / TRITONS, links, root):
        if not folder.name.startswith("."):
            tritons.entries += 1
            tritons.names.append(folder.name)
        tritons.size += _size(folder)
    sections.append(tritons)
    total = _size(root) if _is_real_dir(root) else 0
    other = max(total - sum(s.size for s in sections), 0)
    place = _triton_place(triton_cache, root)
    if place is not None:
        base, name = place
        section = Section(TRITON_CACHE, folder=str(base / name))
        sections.append(_measured(section, _entries(base, name, TRITON_CACHE_DEPTH, links)))
    return Usage(root, sections, other, sorted(links))


def trim(limit: int, root: Path | None = None, triton_cache: Path | None = None) -> Trimmed:
    """Remove the least recently used entries of the trimmed sections (irscope's folder in Triton's cache
    among them) until they hold at most ``limit`` bytes."""
    root = _root(root)
    if not _is_real_dir(root):
        return Trimmed(0, 0, 0, 0)
    place = _triton_place(triton_cache, root)
    with _trim_lock(root):
        leftovers = sum(_remove(root, path) for path in _leftovers(root, TRIMMED))
        if place is not None:
            leftovers += sum(_remove(place[0], p) for p in _leftovers(place[0], {place[1]: TRITON_CACHE_DEPTH}))
        leftovers += _remove_install_leftovers(root)
        found = [(root, e) for name, depth in TRIMMED.items() for e in _entries(root, name, depth, [])]
        if place is not None:
            found += [(place[0], e) for e in _entries(place[0], place[1], TRITON_CACHE_DEPTH, [])]
        found.sort(key=lambda pair: pair[1].used)
        held = sum(e.size for _, e in found)
        removed = freed = in_use = 0
        for base, entry in found:
            if held <= limit:
                break
            with _unless_in_use(base, entry.path.parent) as free:
                if not free:
                    in_use += 1  # a compile writes into its folder now: the next trim takes it
                    continue
                if _remove(base, entry.path):
                    removed, freed = removed + 1, freed + entry.size
            held -= entry.size
    return Trimmed(removed, freed, leftovers, held, in_use)


@contextlib.contextmanager
def _unless_in_use(root: Path, folder: Path) -> Iterator[bool]:
    """True, holding off new compiles into ``folder`` for the block, when no compile holds it in use
    (storage/in_use.py: Triton reads a compile's files back at its end, so renaming its entry away
    mid-compile fails it); a folder gone meanwhile is not in use."""
    try:
        fd = _open_inside(root, folder)
    except OSError:
        yield True
        return
    try:
        with unless_held(fd) as free:
            yield free
    finally:
        os.close(fd)


def _measured(section: Section, entries: Iterator[CacheEntry]) -> Section:
    for entry in entries:
        section.entries += 1
        section.size += entry.size
        section.oldest = min(section.oldest or entry.used, entry.used)
        section.newest = max(section.newest or entry.used, entry.used)
    return section


def _triton_place(triton_cache: Path | None, root: Path) -> tuple[Path, str] | None:
    """(Triton's cache, irscope's folder in it), or None: a cache named by path alone (a test's, a script's)
    is that cache only, unless its Triton cache is named too."""
    if triton_cache is None:
        if root != _root(None):
            return None
        triton_cache = triton_cache_dir()
    try:
        base = Path(triton_cache).resolve()  # the user's own link to Triton's cache: followed once, here
    except (OSError, RuntimeError):
        return None
    return base, IN_TRITON_CACHE  # not made yet: an empty section


def _root(root: Path | None) -> Path:
    # The cache's own folder may be a link the user made ($IRSCOPE_CACHE_DIR): followed once, here, and
    # nothing below it ever is.
    path = Path(root) if root is not None else cache_dir()
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:  # a link loop (RuntimeError before Python 3.13)
        raise UsageError(f"the cache {path} cannot be followed ({exc})") from None


def _entries(root: Path, section: str, depth: int, links: list[str]) -> Iterator[CacheEntry]:
    """The entries of ``section``: real folders at its depth, not hidden (a writer's or a trim's)."""
    level = [root / section]
    for _ in range(depth):
        level = [c for folder in level for c in _children(folder, links, root) if not c.name.startswith(".")]
    for folder in level:
        try:
            used = folder.lstat().st_mtime
        except OSError:  # removed meanwhile by another trim
            continue
        yield CacheEntry(folder, section, _size(folder), used)


def _leftovers(root: Path, sections: dict[str, int]) -> Iterator[Path]:
    """Earlier trims' remains, and temporary folders of writers killed more than an hour ago."""
    now = time.time()
    for section, depth in sections.items():
        level = [root / section]
        for _ in range(depth):
            children = [c for folder in level for c in _children(folder, [], root)]
            for c in children:
                if TRIM_MARK in c.name:
                    yield c
                elif c.name.startswith(".") and (TEMP_MARK in c.name or OLD_MARK in c.name):
                    with contextlib.suppress(OSError):
                        if now - c.lstat().st_mtime > LEFTOVER_AGE:
                            yield c
            level = [c for c in children if not c.name.startswith(".")]


def _remove_install_leftovers(root: Path) -> int:
    """Remove the temporary folders of killed private-Triton installs (``tritons/.X.irscope-tmp-PID``), each
    only while its version's install lock (``tritons/.X.lock``, a plain file) is free and held by this trim."""
    removed = 0
    tritons = root / TRITONS
    for folder in _children(tritons, [], root):
        match = LEFTOVER.fullmatch(folder.name)
        if match is None or match["mark"] != TEMP_MARK:
            continue
        try:
            fd = os.open(tritons / f".{match['name']}.lock", os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:  # no lock (nothing installs it) or not a plain file: a lock is made only by an install
            fd = None
        try:
            if fd is not None:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by an install running now: left alone
            removed += _remove(root, folder)
        except OSError:
            continue
        finally:
            if fd is not None:
                os.close(fd)
    return removed


def _children(folder: Path, links: list[str], root: Path) -> list[Path]:
    """Real folders directly in the real folder ``folder`` (links noted, never followed)."""
    if os.path.islink(folder):
        links.append(os.path.relpath(folder, root))
        return []
    out = []
    try:
        with os.scandir(folder) as it:
            for child in it:
                if child.is_symlink():
                    links.append(os.path.relpath(child.path, root))
                elif child.is_dir(follow_symlinks=False):
                    out.append(Path(child.path))
    except OSError:
        pass
    return out


def _size(path: Path) -> int:
    """Bytes on disk under ``path`` (as ``du`` counts them), links counted as themselves and never followed."""
    total, stack = 0, [str(path)]
    while stack:  # a stack, not recursion: a tree of any depth in the cache is measured, not a crash
        here = stack.pop()
        try:
            st = os.lstat(here)
        except OSError:
            continue
        total += st.st_blocks * 512
        if stat.S_ISDIR(st.st_mode):
            with contextlib.suppress(OSError), os.scandir(here) as it:
                stack.extend(entry.path for entry in it)
    return total


def _remove(root: Path, path: Path) -> bool:
    """Rename ``path`` away, then remove it, never through a link; False if it could not be moved.

    Every folder on the way from ``root`` is opened without following a link, so a folder
    swapped for a link since the scan fails the walk instead of leading outside the cache.
    """
    try:
        parent = _open_inside(root, path.parent)
    except OSError:
        return False
    try:
        tomb = path.name if TRIM_MARK in path.name else f".{path.name}{TRIM_MARK}{os.getpid()}"
        if tomb != path.name:
            try:
                os.rename(path.name, tomb, src_dir_fd=parent, dst_dir_fd=parent)  # readers: all of it or none
            except OSError:
                return False  # gone already, or not ours to move: left as it is
        # What cannot be removed (a tree deeper than shutil's recursion goes, a file not ours) stays,
        # marked as on its way out: the next trim tries again.
        with contextlib.suppress(OSError, RecursionError):
            if stat.S_ISDIR(os.stat(tomb, dir_fd=parent, follow_symlinks=False).st_mode):
                remove_tree_at(parent, tomb)  # links inside go as links, never what they point to
            else:
                os.unlink(tomb, dir_fd=parent)  # a link or a file put there meanwhile: only the name goes
        return True
    finally:
        os.close(parent)


def remove_tree_at(parent: int, name: str) -> None:
    """Remove the folder ``name`` of the folder open as ``parent``, never through a link: each folder is opened
    without following one (a link swapped in meanwhile fails the open) and emptied by descriptor.

    What ``shutil.rmtree(name, dir_fd=parent)`` does from Python 3.11; irscope runs on 3.10, whose rmtree
    takes no ``dir_fd`` (``irscope cache --trim`` was an internal error there)."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    try:
        with os.scandir(fd) as it:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in it]
        for entry, is_dir in entries:
            if is_dir:
                remove_tree_at(fd, entry)
            else:
                os.unlink(entry, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def _open_inside(root: Path, folder: Path) -> int:
    """A descriptor of ``folder``, opened from ``root`` one name at a time with no link followed."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in folder.relative_to(root).parts:
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


@contextlib.contextmanager
def _trim_lock(root: Path) -> Iterator[None]:
    try:
        fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        raise UsageError(f"cannot trim {root}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"cannot trim {root}: {root / LOCK} is not a file")
        fcntl.flock(fd, fcntl.LOCK_EX)  # another trim runs: wait for it
        yield
    finally:
        os.close(fd)
