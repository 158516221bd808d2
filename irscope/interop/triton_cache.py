"""Triton's own folders as sessions: its cache and the folders ``TRITON_KERNEL_DUMP`` writes.

Triton keeps each compile in a folder named by its hash: ``~/.triton/cache`` (or
``$TRITON_CACHE_DIR``) holds ``NAME.ttir``, ``.ttgir``, ``.llir``, ``.ptx`` (``.amdgcn`` on ROCm),
``.cubin`` (``.hsaco``), ``NAME.json`` (the compile's metadata: options, target, shared memory),
``NAME.source`` (the TTIR before Triton's passes) and ``__grp__NAME.json``; ``TRITON_KERNEL_DUMP=1``
writes the same stages (no metadata; its ``.sass`` is left for irscope's own, from the cubin) under ``$TRITON_DUMP_DIR`` (default
``~/.triton/dump``). Each kernel named in such a folder becomes a session, each compile of it a
variant holding exactly the stages Triton wrote, byte for byte; registers and spills come from ptxas
on the PTX, SASS from nvdisasm on the cubin where the folder holds none.

Neither folder keeps the Python source or the constexprs' values: a variant's config is the
compile's options (``num_warps``, ``num_stages``; from the TTGIR's module attributes where there is
no metadata) and, where two compiles share them, ``compile=`` the first characters of Triton's hash;
the session cannot compile new configs (its kernel file is named, never read). It is all data: the
group file's absolute paths are never followed, only files inside each compile folder are read
(``storage.files.contained``: a link out of the folder is refused), names must be identifiers, and a
compile that does not read is left out with why (a note each time the folder is opened), the rest kept. Sessions are
written once per folder state (names, sizes and times of the files read) under irscope's cache.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..arch import recorded_arch
from ..capturing.housekeeping import mark_used
from ..errors import IrscopeError, KernelNotFound, SessionError
from ..paths import TRITON_CACHES, cache_dir
from ..session import Session
from ..spec import DTYPES
from ..stages import Stage
from ..storage.files import contained, parse_json, read_bytes, read_text
from ..types import Config, KernelId

FORMAT = 2  # bump when what a folder's session holds changes: older ones are rebuilt
TEXTS = {"ttir": Stage.TTIR, "ttgir": Stage.TTGIR, "llir": Stage.LLIR, "ptx": Stage.PTX, "amdgcn": Stage.AMDGCN}
BINARIES = ("cubin", "hsaco")
KNOWN = (*TEXTS, *BINARIES, "json", "sass", "source")
OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
QUIET = {"num_ctas": 1, "maxnreg": None}  # the defaults, shown only where a compile set them otherwise
MAX_COMPILES = 20_000  # compile folders read from one folder; a cache past that is named kernel by kernel
# `module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", ...}`
TTGIR_ATTRIBUTE = re.compile(
    r'"?ttg\.(num-warps|num-ctas|target|threads-per-warp)"?\s*=\s*(?:(\d{1,6})|"([\w:]{1,40})")'
)
TT_FUNC = re.compile(r"^\s*tt\.func\s+(?:public\s+|private\s+)?@(\w+)\((.*)\)")
TT_ARG = re.compile(r"%([\w.$-]+):\s*(?:!tt\.ptr<(\w+)(?:,\s*\d+)?>|(\w+))")
FILE_LOC = re.compile(r'^#loc\d*\s*=\s*loc\("([^"\n]{1,4096})":\d+:\d+\)', re.M)
MLIR_TYPES = {d.mlir: d.triton for d in DTYPES.values() if d.mlir}  # f16 -> fp16
HASH_SHOWN = 8


@dataclass
class CacheCompile:
    """One compile folder of one kernel, as read."""

    kernel: str
    folder: Path
    texts: dict[str, str]  # Triton's asm keys: ttir, ttgir, llir, ptx, amdgcn
    binary: dict[str, bytes]  # cubin / hsaco
    metadata: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    arch: str | None = None
    file: str = "<unknown>"


# ------------------------------------------------------------------ what a folder is


def compile_folders(path: Path) -> list[Path]:
    """``path`` itself where it is one compile folder, else its sub-folders that hold a compile's files."""
    if _is_compile(path):
        return [path]
    out: list[Path] = []
    try:
        children = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return []
    for entry in children:
        if len(out) >= MAX_COMPILES:
            break
        if entry.is_dir(follow_symlinks=False) and _is_compile(Path(entry.path)):
            out.append(Path(entry.path))
    return out


def is_triton_folder(path: Path) -> bool:
    """Triton's cache, a ``TRITON_DUMP_DIR``, or one compile folder of either."""
    try:
        return path.is_dir() and bool(compile_folders(path))
    except OSError:
        return False


def _is_compile(folder: Path) -> bool:
    try:
        return any(
            e.is_file(follow_symlinks=False) and e.name.rpartition(".")[2] in ("ttir", "ptx", "amdgcn", "ttgir")
            for e in os.scandir(folder)
        )
    except OSError:
        return False


# ------------------------------------------------------------------ one compile folder


def read_compile(folder: Path) -> CacheCompile:
    """The compile in ``folder``; a SessionError (one line) where it does not read."""
    names: dict[str, dict[str, str]] = {}  # kernel -> extension -> file name
    for entry in os.scandir(folder):
        stem, _, ext = entry.name.rpartition(".")
        if ext in KNOWN and not stem.startswith("__grp__"):
            names.setdefault(stem, {})[ext] = entry.name
    kernels = [k for k, files in names.items() if any(e in files for e in TEXTS)]
    if len(kernels) != 1:
        raise SessionError(f"holds stages of {len(kernels)} kernels ({', '.join(sorted(kernels)[:4])})")
    kernel = kernels[0]
    if not kernel.isidentifier():
        raise SessionError(f"its kernel name {kernel[:60]!r} is not an identifier")
    files = names[kernel]
    texts = {ext: read_text(contained(folder, files[ext])) for ext in TEXTS if ext in files}
    binary = {ext: read_bytes(contained(folder, files[ext])) for ext in BINARIES if ext in files}
    metadata: dict[str, Any] = {}
    if "json" in files:
        data = parse_json(read_text(contained(folder, files["json"])), str(folder / files["json"]))
        if not isinstance(data, dict):
            raise SessionError(f"{files['json']} is not a JSON object")
        if data.get("name", kernel) != kernel:
            raise SessionError(f"{files['json']} names the kernel {str(data.get('name'))[:60]!r}, its files {kernel}")
        metadata = data
    compile_ = CacheCompile(kernel, folder, texts, binary, metadata)
    compile_.options, compile_.arch = _options_and_arch(compile_)
    match = FILE_LOC.search(texts.get("ttir") or texts.get("ttgir") or "")
    compile_.file = match.group(1) if match else "<unknown>"  # where the kernel was defined: named, never read
    return compile_


def _options_and_arch(c: CacheCompile) -> tuple[dict[str, Any], str | None]:
    """The compile's options and arch: from its metadata, else the TTGIR's module attributes (a dump's)."""
    attributes: dict[str, Any] = {}
    header = (c.texts.get("ttgir") or "")[:65536]
    for m in TTGIR_ATTRIBUTE.finditer(header):
        attributes.setdefault(m.group(1), int(m.group(2)) if m.group(2) else m.group(3))
    meta = c.metadata
    options: dict[str, Any] = {}
    for key in OPTION_KEYS:
        value = meta.get(key, attributes.get(key.replace("_", "-")))
        if value is None and key == "maxnreg":
            continue
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 1 << 16:
            raise SessionError(f"its {key} is {str(value)[:40]!r}, not a count")
        if QUIET.get(key, -1) != value:
            options[key] = value
    target = meta.get("target") if isinstance(meta.get("target"), dict) else None
    try:
        if target is not None:
            arch = recorded_arch(target.get("arch"), backend=target.get("backend"), warp_size=target.get("warp_size"))
        elif isinstance(attributes.get("target"), str):  # "cuda:90", "hip:gfx942"
            backend, _, value = attributes["target"].partition(":")
            arch = recorded_arch(int(value) if value.isdigit() else value, backend=backend)
        else:
            arch = None
    except ValueError as exc:
        raise SessionError(f"its target {exc}") from None
    return options, arch


def _dump_metadata(c: CacheCompile) -> dict[str, Any]:
    """What a dump's compile says of itself without Triton's metadata: its TTGIR's options (ptxas then
    reports its registers). Its shared memory and Triton's version are not recorded anywhere in it."""
    return {"name": c.kernel, "num_warps": 4, "num_ctas": 1, **c.options, "triton_version": "(not recorded)"}


def _signature(ttir: str, kernel: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """The kernel's arguments as the JIT specialized them (``{x_ptr: *fp32}``) and those divisible by 16."""
    for line in ttir.splitlines():
        m = TT_FUNC.match(line)
        if m is None or m.group(1) != kernel:
            continue
        signature, divisible = {}, []
        for arg in _arguments(m.group(2)):
            a = TT_ARG.match(arg.strip())
            if a is None:
                return {}, ()
            ty = f"*{MLIR_TYPES.get(a.group(2), '?')}" if a.group(2) else MLIR_TYPES.get(a.group(3) or "", "?")
            signature[a.group(1)] = ty
            if "tt.divisibility = 16" in arg:
                divisible.append(a.group(1))
        return signature, tuple(divisible)
    return {}, ()


def _arguments(text: str) -> Iterator[str]:
    """``text`` split at its top-level commas (a ``loc("...")`` or ``{...}`` may hold commas)."""
    depth, start, in_string = 0, 0, False
    for i, ch in enumerate(text):
        if in_string:
            in_string = ch != '"'
        elif ch == '"':
            in_string = True
        elif ch in "({<":
            depth += 1
        elif ch in ")}>":
            depth -= 1
        elif ch == "," and depth == 0:
            yield text[start:i]
            start = i + 1
    if text[start:].strip():
        yield text[start:]


# ------------------------------------------------------------------ the folder's kernels as sessions


@dataclass
class CacheRead:
    compiles: list[CacheCompile]
    skipped: list[str]
    digest: str

    @property
    def kernels(self) -> list[str]:
        return sorted({c.kernel for c in self.compiles})  # by name: the folders' own order is their hashes'


def read_folder(path: Path) -> CacheRead:
    """Every compile in the folder (a SessionError where none reads), and why each one left out was."""
    folders = compile_folders(path)
    compiles, skipped = [], []
    # the folder, and the Triton whose ptxas reports the registers (its version from its metadata: no import)
    state = hashlib.sha256(f"{FORMAT}\0{path.resolve()}\0{_triton_version()}".encode(errors="surrogatepass"))
    for folder in folders:
        try:
            read = read_compile(folder)
        except (IrscopeError, OSError, ValueError) as exc:
            skipped.append(f"{folder.name}: {exc}")
            continue
        compiles.append(read)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            stat = entry.stat(follow_symlinks=False)
            state.update(f"{folder.name}/{entry.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode(errors="replace"))
    if not compiles:
        why = f": {skipped[0]}" if skipped else ""
        raise SessionError(f"{path}: no compile of a Triton kernel irscope can read{why}")
    return CacheRead(compiles, skipped, state.hexdigest())


def _triton_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        return ""


def split_argument(text: str) -> tuple[Path, str | None]:
    """``FOLDER[:KERNEL]`` -> the folder and the kernel named (None: all of them)."""
    folder, colon, name = text.rpartition(":")
    if colon and name.isidentifier() and Path(folder).is_dir():
        return Path(folder), name
    return Path(text), None


def folder_sessions(path: Path, kernel: str | None = None, note: Callable[[str], None] | None = None) -> list[Session]:
    """The session of each kernel in the folder (of ``kernel`` alone where named), built once per folder state."""
    note = note or (lambda _: None)
    read = read_folder(path)
    names = read.kernels
    if kernel is not None and kernel not in names:
        raise KernelNotFound(f"{path} holds no compile of a kernel named {kernel!r}; it has: {', '.join(names[:20])}")
    root = cache_dir() / TRITON_CACHES / f"{read.digest[:24]}-v{FORMAT}"
    sessions = []
    for name in [kernel] if kernel else names:
        folder = root / name
        if not Session.is_session(folder):
            _build(read, name, folder, path, note)
        sessions.append(Session.open(folder))
    mark_used(root)  # for irscope cache --trim
    for line in read.skipped[:20]:
        note(line)
    if len(read.skipped) > 20:
        note(f"... and {len(read.skipped) - 20} more compile folders left out")
    return sessions


def _build(read: CacheRead, kernel: str, folder: Path, path: Path, note: Callable[[str], None]) -> None:
    from .tritonparse.session import build_session

    build_session(folder, lambda building: _write(read, kernel, building, path, note), "the folder's session")


def _write(read: CacheRead, kernel: str, folder: Path, path: Path, note: Callable[[str], None]) -> None:
    from ..capturing import build_variant
    from ..capturing.pipeline import derive
    from ..frontends.triton.kernel import TritonKernel
    from ..frontends.triton.recorded import Recorded, compiled_from, parameter_table

    # in the order of their options (num_warps=4 before 8), then of Triton's hash: the folders' own order is the hash's
    compiles = sorted(
        (c for c in read.compiles if c.kernel == kernel),
        key=lambda c: (sorted(c.options.items()), c.arch or "", c.folder.name),
    )
    notes: list[str] = []
    keys = [tuple(sorted(c.options.items())) + (c.arch,) for c in compiles]
    shared = len(set(keys)) < len(keys)  # two compiles with the same options: told apart by Triton's hash
    configs = []
    for c in compiles:
        options = {**c.options, **({"compile": c.folder.name[:HASH_SHOWN]} if shared else {})}
        configs.append(Config({}, options, {}))
    first = compiles[0]
    identity = KernelId(kernel, first.file, f"triton-cache-{read.digest[:32]}")
    session = Session.create(folder, identity, "", parameter_table(None, configs), None)
    batch = []
    for i, (c, config) in enumerate(zip(compiles, configs)):
        signature, divisible = _signature(c.texts.get("ttir", ""), kernel)
        record = Recorded(kernel, c.file, None, signature, {}, divisible, c.options, c.arch, name=kernel)
        try:
            compiled = compiled_from(record, {**c.texts, **c.binary}, c.metadata or _dump_metadata(c))
        except IrscopeError as exc:
            notes.append(f"{c.folder.name}: {exc}")
            continue
        batch.append((i, build_variant(identity, config, record.target, compiled, "", TritonKernel.stages, "triton")))
    if not batch:
        raise SessionError(f"{path}: no compile of {kernel} irscope can read: {notes[-1]}")
    for _, variant in derive(batch):
        session.add(variant)
    session.save()
    for line in notes:  # said as the session is built (a compile whose metadata ptxas's figures contradict)
        note(line)


__all__ = ["compile_folders", "folder_sessions", "is_triton_folder", "read_compile", "read_folder", "split_argument"]
