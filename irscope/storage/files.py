"""Files irscope reads and writes: inside their folder, bounded, regular, written atomically.

Everything read here is data: a path read from data stays inside the directory it was found
in (no ``..``, no absolute path, no symlink out), and only regular files of bounded size are
opened (a FIFO would hang a reader), so a crafted or damaged store can make a read fail with
one line (SessionError) but never show a file from elsewhere.

Every write goes to a temporary name first and is renamed into place, so a crash leaves either
the old file or the new one, never half of one; files get the permissions the user's umask
gives (a session is meant to be shared). Temporary names carry a marker no user file has
(``.NAME.irscope-tmp-XXXXXXXX``, ``.NAME.irscope-old-PID``), so cleaning up after a killed
writer removes only what a writer made. A write replaces only a regular file or nothing: never
a link, a FIFO, a device or a folder at the path, and never through a link.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from ..errors import IrscopeError, SessionError, UsageError

MAX_TEXT_BYTES = 512 << 20  # the largest listing seen (SASS of an unrolled matmul) is a few MB
MAX_JSON_BYTES = 64 << 20
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")  # a file or folder name a store may name


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _umask()  # read once: os.umask can only be read by setting it


TEMP_MARK = ".irscope-tmp-"  # in every temporary name irscope writes: .NAME.irscope-tmp-XXXXXXXX
OLD_MARK = ".irscope-old-"  # a variant folder moved aside while its new copy goes in: .NAME.irscope-old-PID
# .ptx.ptx.irscope-tmp-k2j4_x9a   .BLOCK-64_sm_90.irscope-old-4242
LEFTOVER = re.compile(r"\.(?P<name>.+)(?P<mark>\.irscope-(?:tmp|old)-)[A-Za-z0-9_]+")


def replaceable(path: Path, refuse: type[IrscopeError] = SessionError) -> None:
    """Raise ``refuse`` unless ``path`` is absent or a regular file (not a link, FIFO, device or folder)."""
    mode = _mode(path, refuse)
    if mode is not None and not stat.S_ISREG(mode):
        raise refuse(f"{path} is {_kind(mode)}; irscope replaces only a regular file: name another path")


def own_folder(path: Path, refuse: type[IrscopeError] = SessionError) -> None:
    """Raise ``refuse`` unless ``path`` is absent or a folder itself, not a link to one elsewhere."""
    mode = _mode(path, refuse)
    if mode is not None and not stat.S_ISDIR(mode):
        raise refuse(f"{path} is {_kind(mode)}; irscope writes only inside the folder it was given")


def private_folder(path: Path) -> bool:
    """Make ``path`` a folder only this user may change (0700); False where it is not one and cannot be.

    For what irscope keeps that would run as code or reach its processes (workers' bytecode, their
    sockets): a folder that is a link, another user's, or writable by others is refused, not used.
    """
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def trusted_chain(path: Path) -> Path | None:
    """``path`` with its links resolved, where only this user and root can change what it names; else None.

    Every folder from ``/`` down to it must be a folder of this user's or root's that no one else may
    write to, or a sticky one (``/tmp``: others may add entries there, but not rename or remove ours).
    For what irscope keeps as code or runs from (a private Triton, the resident parents' folder): a
    folder anywhere in the chain that another user could rename would let them put their own in its place.
    """
    try:
        real = Path(os.path.realpath(path))
        folders = [real, *real.parents]
        infos = [os.lstat(folder) for folder in folders]
    except (OSError, ValueError):
        return None
    me = os.getuid()
    for info in infos:
        if not stat.S_ISDIR(info.st_mode) or info.st_uid not in (me, 0):
            return None
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            return None
    return real


def open_private(name: str | Path, flags: int, dir_fd: int | None = None) -> int | None:
    """A file descriptor of this user's regular file ``name`` (created 0600 where ``flags`` say so), opened
    without following a link or blocking on a FIFO; None where it is anything else or cannot be opened."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        os.close(fd)
        return None
    return fd


def _mode(path: Path, refuse: type[IrscopeError]) -> int | None:
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise refuse(f"cannot write {path}: {exc.strerror or exc}") from None


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file (a FIFO, socket or device)"


def atomic_write(path: Path, data: str | bytes, refuse: type[IrscopeError] = SessionError) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a torn one.

    Whatever is at ``path`` other than a regular file is refused with ``refuse``, nothing written.
    """
    path = Path(path)
    replaceable(path, refuse)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        # mkstemp creates with O_EXCL | O_NOFOLLOW: the name is new, and ours.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}{TEMP_MARK}")
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~UMASK)  # mkstemp makes 0600
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def write_output(path: Path, data: str | bytes) -> None:
    """Write a file the user named (``-o``): as ``atomic_write``, anything but a regular file there is a usage error."""
    try:
        atomic_write(path, data, refuse=UsageError)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def create_new(path: Path, data: bytes) -> None:
    """A new file at ``path``, never one that exists or a link's target; the umask gives its mode."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def safe_name(name: Any, what: str) -> str:
    """``name`` if it can only name an entry of its own folder (no separators, no ``..``)."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name) or name in (".", ".."):
        raise SessionError(f"{what} {name!r} is not a plain file name")
    return name


def contained(root: Path, relative: str | Path) -> Path:
    """``root/relative``, refused unless it stays inside ``root`` once symlinks are resolved."""
    root = Path(root)
    rel = Path(relative)
    if rel.is_absolute() or ".." in rel.parts:
        raise SessionError(f"{root}: refusing the path {str(relative)!r}: it leads outside {root}")
    path = root / rel
    try:
        real_root, real = root.resolve(), path.resolve()
    except (RuntimeError, OSError) as exc:  # a symlink loop (RuntimeError before Python 3.13), a name too long
        raise SessionError(f"{path}: cannot be followed ({exc})") from None
    if real != real_root and real_root not in real.parents:
        raise SessionError(f"{path} leads outside {root} (to {real}); refusing to read it")
    return path


def read_bytes(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """A regular file's bytes, at most ``limit`` of them; anything else is a SessionError.

    The file is opened without blocking and checked to be a regular file before
    it is read, so a FIFO or a device in a store is refused rather than waited on.
    Where ``path`` came from data, pass it through ``contained`` first.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise SessionError(f"{path} is missing") from None
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise SessionError(f"{path} is a directory, not a file") from None
        raise SessionError(f"{path} is unreadable: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
            raise SessionError(f"{path} is {kind}; refusing to read it")
        if info.st_size > limit:
            raise SessionError(f"{path} is {info.st_size >> 20} MiB, more than the {limit >> 20} MiB irscope reads")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise SessionError(f"{path} is unreadable: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise SessionError(f"{path} grew past the {limit >> 20} MiB irscope reads")
    return data


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """A regular file's text (UTF-8); binary or undecodable content is a SessionError."""
    text = decode(path, read_bytes(path, limit))
    if "\x00" in text:
        raise SessionError(f"{path} holds NUL bytes: damaged?")
    return text


def read_json(path: Path) -> Any:
    """Parse a JSON file irscope wrote; a missing, unreadable or torn file is a SessionError."""
    return parse_json(read_text(path, MAX_JSON_BYTES), str(path))


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # \ud800-\udfff: a pair is fine, one alone cannot be written


def parse_json(text: str, where: str) -> Any:
    """JSON that came from data, or a SessionError naming ``where``: what json refuses, and what it
    takes but nothing could use (numbers past Python's 4,300 digits, nesting past its stack, a
    surrogate code point alone, which no UTF-8 file or terminal can hold)."""
    try:
        data = json.loads(text)
        if SURROGATE_ESCAPE.search(text):
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        return data
    except RecursionError:
        raise SessionError(f"{where} is corrupted: nested too deeply") from None
    except (ValueError, UnicodeEncodeError) as exc:  # JSONDecodeError is a ValueError
        raise SessionError(f"{where} is corrupted: {str(exc)[:200]}") from None


def decode(path: Path, raw: bytes) -> str:
    """``raw`` as UTF-8 text; anything else is damage."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionError(f"{path} is not UTF-8 text (byte {exc.start}): damaged?") from None
