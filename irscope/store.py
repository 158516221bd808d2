"""Variants on disk: one JSON file of metadata and one text file per stage.

The cache and sessions share this format. Everything here is data: reading a
variant parses JSON and reads text, never imports or evaluates anything. Every
path read from data stays inside the directory it was found in (no ``..``, no
absolute path, no symlink out), and only regular files of bounded size are
opened (a FIFO would hang a reader), so a crafted or damaged store can make a
read fail with one line (SessionError) but never show a file from elsewhere.
Every file a variant keeps is listed with its SHA-256 in ``variant.json`` and
checked on read: a truncated listing is damage, not a shorter listing.

Every write goes to a temporary name first and is renamed into place, so a
crash leaves either the old file or the new one, never half of one; files get
the permissions the user's umask gives (a session is meant to be shared).
Temporary names carry a marker no user file has (``.NAME.irscope-tmp-XXXXXXXX``,
``.NAME.irscope-old-PID``), so cleaning up after a killed writer removes only
what a writer made. A write replaces only a regular file or nothing: never a
link, a FIFO, a device or a folder at the path, and never through a link.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .errors import IrscopeError, SessionError, UsageError
from .types import (
    CaptureError,
    CompileInfo,
    Config,
    KernelId,
    PassLog,
    Resources,
    Stage,
    Status,
    Variant,
    typed_fields,
)

FORMAT = "irscope.variant/1"
# Every MLIR pass of the compile (types.PassLog), where it was recorded: JSON, gzipped (zcat reads
# it), because lowering to LLVM renames every value of a large kernel several times and the plain
# JSON of a matmul's passes runs to 5 times its stages; gzipped, two thirds (tests/perf/RESULTS.md).
PASSES_FILE = "passes.json.gz"
MAX_PASSES_BYTES = 512 << 20  # unpacked; a large matmul's is a few MB
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


def _create(path: Path, data: bytes) -> None:
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
    text = _decode(path, read_bytes(path, limit))
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


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def variant_to_json(v: Variant) -> dict[str, Any]:
    """Everything about ``v`` except the stage texts and the cubin."""
    info = v.compile_info
    return {
        "format": FORMAT,
        "kernel": {"name": v.kernel.name, "file": v.kernel.file, "source_hash": v.kernel.source_hash},
        "config": v.config.to_json(),
        "arch": v.arch,
        "status": v.status.value,
        "error": None if v.error is None else {"stage": v.error.stage, "message": v.error.message},
        "stage_errors": {s.value: e for s, e in v.stage_errors.items()},
        "resources": None if v.resources is None else dict(vars(v.resources)),
        "compile_info": None if info is None else info.to_json(),
        "stages": [s.value for s in v.listings],
    }


def variant_from_json(data: dict[str, Any], listings: dict[Stage, str], cubin: bytes | None = None) -> Variant:
    """Rebuild a Variant; raises SessionError on anything that is not our format."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError(
            f"not an irscope variant (format {data.get('format') if isinstance(data, dict) else None!r})"
        )
    try:
        k, info, res, err = data["kernel"], data.get("compile_info"), data.get("resources"), data.get("error")
        return Variant(
            kernel=KernelId(str(k["name"]), str(k["file"]), str(k["source_hash"])),
            config=Config.from_json(data["config"]),
            arch=str(data["arch"]),
            status=Status(data["status"]),
            listings=listings,
            stage_errors={Stage(s): str(e) for s, e in data.get("stage_errors", {}).items()},
            cubin=cubin,
            resources=None if res is None else Resources(**typed_fields(Resources, res)),
            compile_info=None if info is None else CompileInfo.from_json(info),
            error=None if err is None else CaptureError(err.get("stage"), str(err["message"])),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"malformed variant record: {type(exc).__name__}: {exc}") from exc


def write_variant(directory: Path, v: Variant, with_source: bool = True, with_cubin: bool = True) -> None:
    """Write ``v`` as ``variant.json`` plus one file per stage, replacing any earlier copy atomically."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        tmp = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}{TEMP_MARK}"))
        files: dict[str, bytes] = {}
        for stage, text in v.listings.items():
            if stage is Stage.SOURCE and not with_source:
                continue
            files[safe_name(stage.file_name(v.kernel.file), "stage file")] = text.encode("utf-8")
        if with_cubin and v.cubin is not None:
            files["kernel.cubin"] = v.cubin
        if v.passes is not None:
            packed = json.dumps(v.passes.to_json(), separators=(",", ":")).encode("utf-8")
            files[PASSES_FILE] = gzip.compress(packed, compresslevel=1, mtime=0)  # fast: sweeps write many
        for name, data in files.items():
            _create(tmp / name, data)
        meta = {**variant_to_json(v), "sha256": {name: _sha256(data) for name, data in files.items()}}
        _create(tmp / "variant.json", json.dumps(meta, indent=1).encode("utf-8"))
        os.chmod(tmp, 0o777 & ~UMASK)  # mkdtemp makes 0700; opened to others only once it is full
        _swap_in(tmp, directory)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise


def _swap_in(tmp: Path, directory: Path) -> None:
    if not os.path.lexists(directory):
        try:
            os.rename(tmp, directory)
            return
        except OSError:
            if not os.path.lexists(directory):
                raise
    old = directory.with_name(f".{directory.name}{OLD_MARK}{os.getpid()}")
    os.rename(directory, old)  # a link or file there is moved aside as it is, never followed
    os.rename(tmp, directory)
    if os.path.isdir(old) and not os.path.islink(old):
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.unlink(old)


def _kernel_file(data: Any) -> str:
    kernel = data.get("kernel") if isinstance(data, dict) else None
    return str(kernel.get("file", "")) if isinstance(kernel, dict) else ""


def read_variant(
    directory: Path, source: str | Callable[[], str] | None = None, root: Path | None = None, partial: bool = False
) -> Variant:
    """Read a variant written by ``write_variant``; ``source`` supplies a shared source text.

    ``root``: the store the variant belongs to; the variant's folder must lie in it.
    Any damage (a file missing, torn, binary, of the wrong type, or changed since
    it was written) is a SessionError naming the file. ``partial``: damage to the
    shared source becomes the source stage's error instead (the rest is intact).
    """
    directory = Path(directory)
    if root is not None:
        directory = contained(root, directory.relative_to(root))
    meta = contained(directory, "variant.json")
    data = read_json(meta)
    if not isinstance(data, dict):
        raise SessionError(f"{meta} is not an irscope variant (a JSON {type(data).__name__})")
    names, sums = data.get("stages", []), data.get("sha256", {})
    if not isinstance(names, list) or not isinstance(sums, dict):
        raise SessionError(f"{meta} is malformed: 'stages' must be a list and 'sha256' an object")
    listings: dict[Stage, str] = {}
    source_error = None
    for name in names:
        try:
            stage = Stage(name)
        except (ValueError, TypeError):
            raise SessionError(f"{meta} names an unknown stage {name!r}") from None
        file_name = safe_name(stage.file_name(_kernel_file(data)), "stage file")
        path = contained(directory, file_name)
        if os.path.lexists(path):
            raw = read_bytes(path)
            _check_sum(path, raw, sums.get(file_name))
            listings[stage] = _decode(path, raw)
        elif stage is Stage.SOURCE and source is not None:
            try:
                listings[stage] = source() if callable(source) else source
            except SessionError as exc:
                if not partial:
                    raise
                source_error = f"damaged: {exc}"
        else:
            raise SessionError(f"{path} is missing")
    cubin_path = contained(directory, "kernel.cubin")
    cubin = None
    if os.path.lexists(cubin_path):
        cubin = read_bytes(cubin_path)
        _check_sum(cubin_path, cubin, sums.get("kernel.cubin"))
    variant = variant_from_json(data, listings, cubin)
    passes_path = contained(directory, PASSES_FILE)
    if os.path.lexists(passes_path):
        raw = read_bytes(passes_path)
        _check_sum(passes_path, raw, sums.get(PASSES_FILE))
        variant = replace(variant, passes=_passes(passes_path, raw))
    if source_error is not None:
        variant = replace(variant, stage_errors={**variant.stage_errors, Stage.SOURCE: source_error})
    return variant


def _passes(path: Path, raw: bytes) -> PassLog:
    unpack = zlib.decompressobj(wbits=31)  # gzip
    try:
        data = unpack.decompress(raw, MAX_PASSES_BYTES)
        if unpack.unconsumed_tail:
            raise SessionError(f"{path} unpacks to more than {MAX_PASSES_BYTES >> 20} MB: not irscope's pass data")
        return PassLog.from_json(parse_json(_decode(path, data), str(path)))
    except zlib.error as exc:
        raise SessionError(f"{path} is not gzipped pass data: {exc}") from None
    except (json.JSONDecodeError, RecursionError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"{path} is not irscope's pass data: {type(exc).__name__}: {exc}") from None


def _check_sum(path: Path, data: bytes, expected: Any) -> None:
    # Variants written before checksums (no entry) are taken as they are.
    if expected is not None and _sha256(data) != expected:
        raise SessionError(f"{path} has changed since irscope wrote it (checksum mismatch): truncated or edited")


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionError(f"{path} is not UTF-8 text (byte {exc.start}): damaged?") from None
