"""A tritonparse trace read as data: its compilation and launch events, checked field by field.

tritonparse writes NDJSON: one JSON object a line, plain, gzip or zstd (with
``TRITON_TRACE_COMPRESSION`` its writer appends one gzip member or zstd frame per event
to a ``.bin.ndjson``; a finished trace may be packed whole, ``.ndjson.gz`` or
``.ndjson.zst``). The bytes say which, not the name. Either way it is the
raw trace its listener wrote or the "mapped" file its parser makes from it (the
same events plus ``source_mappings`` per stage). Nothing in an event is run or
opened: file names in it (the kernel's path, Triton's cache paths) are labels.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import shlex
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import SessionError, UsageError
from ...storage.files import parse_json, read_bytes

# tritonparse's file_content keys are "<kernel>.<ext>"; these are the stages irscope keeps.
STAGE_EXTENSIONS = ("ttir", "ttgir", "llir", "ptx", "amdgcn", "sass")
SUFFIXES = (".ndjson", ".ndjson.gz", ".json.gz", ".ndjson.zst")
MAX_TRACE_BYTES = 1 << 30  # a long program's trace with every stage of every compile, packed or unpacked
UNPACK_STEP = 16 << 20  # gzip is unpacked this much at a time, so a bomb is stopped at the limit
# zstd's decompressor takes no output limit: it is fed this much at a time instead. One byte of
# zstd unpacks to at most 32 KiB (a 4-byte RLE block holds 128 KiB), so a feed gives <= UNPACK_STEP.
ZSTD_FEED = UNPACK_STEP >> 15
# The limit bounds memory, not only bytes: a trace is read a piece at a time and a line at a time, and
# only the events irscope keeps stay. What one line costs once parsed is bounded before it is parsed,
# and what the kept events cost, as they are kept: a JSON value made into Python is an object of
# 24-72 bytes and its pointer (an empty dict 64 + 8), at most one per delimiter (, [ { :), and its
# text as a str (up to 4 bytes a character). 64 MiB of "[{},{},...]" would take 1.5 GB parsed.
MAX_LINE_BYTES = 64 << 20  # one event: the largest compile's stages are a few MB
MAX_LINE_COST = 512 << 20  # what parsing one line may take (estimated, see _cost)
MAX_KEPT_COST = 1 << 30  # what the events kept from one trace may take
OBJECT_COST = 96  # bytes a delimiter of a JSON value is counted as: its object, its pointer, a dict's slot
# A line's text from its first character that is not a space (JSON takes the spaces before it): blank
# lines, however many, are passed over by the regular expression, never one at a time in Python.
LINE = re.compile(rb"[^\s][^\n]*")
# Where lines are short (a gigabyte of newlines), the expression above tries each position in turn, 22 ns
# a byte; the same search for a letter runs as a scan (5 ns): such a piece is searched in its mask, where
# every byte that is not white space is an "x" (offsets are the piece's own).
MASK = bytes(byte if byte == 10 else 32 if byte in b" \t\r\x0b\x0c" else 120 for byte in range(256))
MASKED_LINE = re.compile(rb"x[^\n]*")


@dataclass(frozen=True)
class CompileEvent:
    """One ``compilation`` event: a kernel's stages for one specialization and config."""

    kernel: str
    hash: str
    metadata: dict[str, Any]  # Triton's compile metadata (num_warps, shared, target, src_constants ...)
    stages: dict[str, str]  # "ttir", "ptx", ... -> text
    source: str  # the kernel's Python, at its own line numbers (blank lines before it)
    file: str  # where the program's kernel was: a label, never opened
    mappings: dict[str, dict[str, Any]] | None = None  # a mapped trace's source_mappings, by stage
    line: int = 0  # the event's line in the trace


@dataclass(frozen=True)
class LaunchEvent:
    """One ``launch`` event: the grid and the arguments (layouts, never data) of one kernel launch."""

    kernel: str
    hash: str | None
    grid: list[int]
    arguments: dict[str, Any]  # tritonparse's extracted_args
    metadata: dict[str, Any] = field(default_factory=dict)  # the launched kernel's compile metadata


@dataclass(frozen=True)
class Trace:
    path: Path
    compiles: list[CompileEvent]
    launches: list[LaunchEvent]
    skipped: list[str]  # events that were not read, each with its reason
    digest: str = ""  # sha256 of the file's bytes: what a trace's session is kept under


def is_trace(argument: str) -> bool:
    """Does ``argument`` (``FILE`` or ``FILE:kernel``) name a tritonparse trace?"""
    return str(split_argument(argument)[0]).endswith(SUFFIXES)


def split_argument(argument: str) -> tuple[Path, str | None]:
    """``trace.ndjson[.gz][:kernel]`` -> (path, kernel name or None)."""
    if argument.endswith(SUFFIXES) or ":" not in argument:
        return Path(argument), None
    path, _, name = argument.rpartition(":")
    return Path(path), name or None


def trace_lines(path: Path) -> tuple[Iterator[tuple[int, str]], str]:
    """The trace's lines that are not blank, each with its number, read as they are unpacked, and the
    digest of the file's bytes; a missing, truncated or undecodable file is a SessionError (as read)."""
    raw = read_bytes(path, MAX_TRACE_BYTES)
    digest = hashlib.sha256(raw).hexdigest()
    unpack = _gunzip if raw[:2] == b"\x1f\x8b" else _unzstd if raw[:4] == b"\x28\xb5\x2f\xfd" else None
    if unpack is None:
        return _lines(path, (raw[at : at + UNPACK_STEP] for at in range(0, len(raw), UNPACK_STEP))), digest
    # Unpacked once to its end first, keeping nothing: a bomb (or a cut file) is refused at once, as
    # unpacking alone is fast (a gigabyte in seconds), before its lines are parsed, which is not.
    for _ in unpack(path, raw):
        pass
    return _lines(path, unpack(path, raw)), digest


def _lines(path: Path, pieces: Iterator[bytes]) -> Iterator[tuple[int, str]]:
    """``(number, text)`` of each line that is not blank, as the pieces come: a line over MAX_LINE_BYTES is damage."""
    carry, number, offset = b"", 1, 0  # the line begun in an earlier piece; its number; bytes before it
    for piece in pieces:
        data = carry + piece if carry else piece
        end = data.rfind(b"\n") + 1  # whole lines end here
        newlines = data.count(b"\n", 0, end)
        if not data[:end].isspace():  # a piece of blank lines (a bomb's) costs a count and a check, no search
            yield from _split(path, data[:end], number, offset, newlines)
        number += newlines
        offset += end
        carry = data[end:]
        if len(carry) > MAX_LINE_BYTES:
            raise SessionError(
                f"{path}:{number}: a line longer than {MAX_LINE_BYTES >> 20} MB: not a trace irscope reads"
            )
    yield from _split(path, carry, number, offset, 0)


def _split(path: Path, chunk: bytes, number: int, offset: int, newlines: int) -> Iterator[tuple[int, str]]:
    at = 0
    short = newlines * 256 > len(chunk)  # lines of 256 bytes or less, on average
    for match in MASKED_LINE.finditer(chunk.translate(MASK)) if short else LINE.finditer(chunk):
        number += chunk.count(b"\n", at, match.start())
        at = match.start()
        if match.end() - at > MAX_LINE_BYTES:
            raise SessionError(
                f"{path}:{number}: a line longer than {MAX_LINE_BYTES >> 20} MB: not a trace irscope reads"
            )
        try:
            yield number, chunk[at : match.end()].decode("utf-8")
        except UnicodeDecodeError as exc:
            byte = offset + at + exc.start
            raise SessionError(f"{path} is not UTF-8 text (byte {byte}): not a tritonparse trace") from None


def _cost(text: str) -> int:
    """Bytes ``text``'s JSON may take once parsed, about and at most: its characters (4 bytes each where one is
    past Latin-1), and an object per delimiter."""
    delimiters = text.count(",") + text.count("[") + text.count("{") + text.count(":")
    return (1 if text.isascii() else 4) * len(text) + OBJECT_COST * delimiters


def _kept_cost(event: CompileEvent | LaunchEvent) -> int:
    """What an event irscope keeps takes: its texts as they are, the rest (metadata, mappings, arguments) as
    their JSON's cost."""
    if isinstance(event, CompileEvent):
        texts = [*event.stages.values(), event.source, event.file]
        rest: Any = [event.metadata, event.mappings]
    else:
        texts, rest = [], [event.grid, event.arguments, event.metadata]
    return sum(map(sys.getsizeof, texts)) + _cost(json.dumps(rest))


def _gunzip(path: Path, raw: bytes) -> Iterator[bytes]:
    """Every gzip member of ``raw``, unpacked a piece at a time: refused once past MAX_TRACE_BYTES.

    A few MB of gzip can unpack to many GB (a "gzip bomb"); ``gzip.decompress`` would
    try, holding it all, before the limit could be checked.
    """
    size = 0
    while raw:
        unpack = zlib.decompressobj(wbits=31)
        try:
            while raw:
                piece = unpack.decompress(raw, UNPACK_STEP)
                raw = unpack.unconsumed_tail
                size = _counted(path, piece, size)
                yield piece
                if unpack.eof:
                    break
        except zlib.error as exc:
            raise SessionError(f"{path} is a damaged gzip file ({exc})") from None
        if not unpack.eof:
            raise SessionError(f"{path} is a damaged gzip file (it ends before its last member does): truncated?")
        # tritonparse appends one member per event; what follows one is the next (or zero padding).
        raw = unpack.unused_data.lstrip(b"\0")


def _unzstd(path: Path, raw: bytes) -> Iterator[bytes]:
    """Every zstd frame of ``raw``, fed a little at a time: refused once past MAX_TRACE_BYTES, as gzip is.

    A frame that stops short is damage: zstandard's stream reader would end there quietly,
    so each frame is read to its end (``eof``) or said to be truncated.
    """
    try:
        import zstandard
    except ModuleNotFoundError:
        unpacked = _unpacked_name(path)
        raise UsageError(
            f"{path} is zstd-compressed and Python's zstandard module is not installed: pip install "
            f"irscope[zstd], or unpack it with: zstd -dc {shlex.quote(str(path))} > {shlex.quote(str(unpacked))}"
        ) from None
    size, at, view = 0, 0, memoryview(raw)
    decompressor = zstandard.ZstdDecompressor()
    while at < len(raw):
        frame = decompressor.decompressobj()
        try:
            while at < len(raw) and not frame.eof:
                fed = view[at : at + ZSTD_FEED]
                piece = frame.decompress(fed)
                at += len(fed)
                size = _counted(path, piece, size)
                yield piece
        except zstandard.ZstdError as exc:
            raise SessionError(f"{path} is a damaged zstd file ({exc})") from None
        if not frame.eof:
            raise SessionError(f"{path} is a damaged zstd file (it ends before its last frame does): truncated?")
        at -= len(frame.unused_data)  # fed past this frame's end: the next one starts there


def _counted(path: Path, piece: bytes, size: int) -> int:
    """The size unpacked so far, with ``piece``: past MAX_TRACE_BYTES, refused."""
    size += len(piece)
    if size > MAX_TRACE_BYTES:
        raise SessionError(f"{path} unpacks to more than {MAX_TRACE_BYTES >> 20} MB: not a trace irscope reads")
    return size


def _unpacked_name(path: Path) -> Path:
    """Where ``zstd -dc`` can write ``path``: ``t.ndjson.zst`` -> ``t.ndjson``, ``t.bin.ndjson`` -> ``t.unpacked.ndjson``."""
    name = path.name.removesuffix(".zst")
    if name == path.name:  # a name that does not say zstd (tritonparse's own .bin.ndjson): a new one beside it
        name = name.removesuffix(".ndjson").removesuffix(".bin") + ".unpacked.ndjson"
    return path.with_name(name)


def read_trace(path: Path) -> Trace:
    """Every compilation and launch event of the trace at ``path``; other events are passed over."""
    compiles: list[CompileEvent] = []
    launches: list[LaunchEvent] = []
    skipped: list[str] = []
    kept = 0
    lines, digest = trace_lines(path)
    for number, line in lines:
        if _cost(line) > MAX_LINE_COST:
            raise SessionError(
                f"{path}:{number}: a line that would take more than {MAX_LINE_COST >> 20} MB to read: "
                "not a trace irscope reads"
            )
        try:
            event = parse_json(line, f"{path}:{number}")
        except SessionError as exc:
            why = str(exc).split(" is corrupted: ", 1)[-1]
            raise SessionError(
                f"{path}:{number}: not a JSON line ({why}): not a tritonparse trace, or a damaged one"
            ) from None
        if not isinstance(event, dict):
            raise SessionError(f"{path}:{number}: an event must be a JSON object")
        kind = event.get("event_type")
        try:
            read: CompileEvent | LaunchEvent | None = None
            if kind == "compilation":
                read = _compile(event, number)
                compiles.append(read)
            elif kind == "launch":
                read = _launch(event)
                launches.append(read)
        except (ValueError, TypeError) as exc:
            skipped.append(f"line {number} ({kind}): {exc}")
            continue
        del event
        if read is not None:
            kept += _kept_cost(read)
            if kept > MAX_KEPT_COST:
                raise SessionError(
                    f"{path}: its events would take more than {MAX_KEPT_COST >> 20} MB to keep: not a trace irscope reads"
                )
    if not compiles:
        why = f"; {len(skipped)} unreadable: {skipped[0]}" if skipped else ""
        raise SessionError(f"{path} holds no compilation event irscope can read{why}")
    return Trace(path, compiles, launches, skipped, digest)


def _compile(event: dict, number: int) -> CompileEvent:
    payload = _object(event, "payload")
    metadata = _object(payload, "metadata")
    kernel = metadata.get("name")
    if not isinstance(kernel, str) or not kernel.isidentifier():
        raise ValueError(f"kernel name {kernel!r} is not an identifier")
    contents = _object(payload, "file_content")
    stages = {}
    for key, text in contents.items():
        extension = key.rpartition(".")[2] if isinstance(key, str) else None
        if extension in STAGE_EXTENSIONS and isinstance(text, str):
            stages[extension] = text
    if not stages:
        raise ValueError("no stage in file_content")
    python = payload.get("python_source")
    source, file = "", f"{kernel}.py"
    if isinstance(python, dict) and isinstance(python.get("code"), str):
        start = python.get("start_line")
        start = start if isinstance(start, int) and 1 <= start <= 1_000_000 else 1
        # Blank lines before the function: the IR's locations then name lines of this text.
        source = "\n" * (start - 1) + python["code"]
        if isinstance(python.get("file_path"), str) and python["file_path"]:
            file = python["file_path"]
    mappings = payload.get("source_mappings")
    mappings = {k: v for k, v in mappings.items() if isinstance(v, dict)} if isinstance(mappings, dict) else None
    digest = metadata.get("hash")
    return CompileEvent(
        kernel,
        digest if isinstance(digest, str) else f"line-{number}",
        metadata,
        stages,
        source,
        file,
        mappings,
        number,
    )


def _launch(event: dict) -> LaunchEvent:
    name = event.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"kernel name {name!r} is not an identifier")
    grid = event.get("grid")
    if not isinstance(grid, list) or not grid or not all(isinstance(g, int) and g > 0 for g in grid):
        raise ValueError(f"grid {grid!r} is not a list of positive ints")
    arguments = event.get("extracted_args")
    metadata = event.get("compilation_metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    digest = metadata.get("hash")
    return LaunchEvent(
        name,
        digest if isinstance(digest, str) else None,
        grid,
        arguments if isinstance(arguments, dict) else {},
        metadata,
    )


def _object(data: dict, key: str) -> dict:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"{key!r} is missing or not an object")
    return value


def kernel_parameters(source: str, kernel: str) -> tuple[list[str] | None, list[str] | None]:
    """The def's parameters and which are annotated constexpr, read with ``ast`` (nothing runs)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None, None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            return [a.arg for a in args], [
                a.arg
                for a in args
                if a.annotation is not None and ast.unparse(a.annotation).split(".")[-1] == "constexpr"
            ]
    return None, None
