"""Variants on disk: one JSON file of metadata and one text file per stage.

The cache and sessions share this format. Reading a variant parses JSON and reads text, never
imports or evaluates anything, through ``files`` (inside its folder, bounded, regular). Every
file a variant keeps is listed with its SHA-256 in ``variant.json`` and checked on read: a
truncated listing is damage, not a shorter listing. A variant's folder is written beside its
place and swapped in, so a reader sees the old copy or the new one.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import SessionError
from ..types import (
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
from .files import (
    OLD_MARK,
    TEMP_MARK,
    UMASK,
    contained,
    create_new,
    decode,
    parse_json,
    read_bytes,
    read_json,
    safe_name,
)

FORMAT = "irscope.variant/1"
# Every MLIR pass of the compile (types.PassLog), where it was recorded: JSON, gzipped (zcat reads
# it), because lowering to LLVM renames every value of a large kernel several times and the plain
# JSON of a matmul's passes runs to 5 times its stages; gzipped, two thirds (tests/perf/RESULTS.md).
PASSES_FILE = "passes.json.gz"
MAX_PASSES_BYTES = 512 << 20  # unpacked; a large matmul's is a few MB


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
        "frontend": v.frontend,
        "source_language": v.source_language,
        "generated_by": v.generated_by,
    }


def variant_from_json(data: dict[str, Any], listings: dict[Stage, str], cubin: bytes | None = None) -> Variant:
    """Rebuild a Variant; raises SessionError on anything that is not our format."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError(
            f"not an irscope variant (format {data.get('format') if isinstance(data, dict) else None!r})"
        )
    try:
        k, info, res, err = data["kernel"], data.get("compile_info"), data.get("resources"), data.get("error")
        made = _made_by(data, info)
        return Variant(
            kernel=KernelId(str(k["name"]), str(k["file"]), str(k["source_hash"])),
            config=Config.from_json(data["config"]),
            arch=str(data["arch"]),
            status=Status(data["status"]),
            listings=listings,
            stage_errors={Stage(s): _reason(e) for s, e in data.get("stage_errors", {}).items()},
            cubin=cubin,
            resources=None if res is None else Resources(**typed_fields(Resources, res)),
            compile_info=None if info is None else CompileInfo.from_json(info),
            error=None if err is None else CaptureError(err.get("stage"), str(err["message"])),
            frontend=made["frontend"],
            source_language=made["source_language"],
            generated_by=made["generated_by"],
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"malformed variant record: {type(exc).__name__}: {exc}") from exc


REASON_CHARS = 8_000  # a stored reason is shown as one line: past this, the rest stays in the file, not on screen


def _reason(text: object) -> str:
    """A stored stage's reason: text (anything else is damage), cut to what one line of a terminal can carry."""
    if not isinstance(text, str):
        raise TypeError(f"a stage's reason is {type(text).__name__}, not text")
    if len(text) <= REASON_CHARS:
        return text
    return f"{text[:REASON_CHARS]}… ({len(text) - REASON_CHARS} more characters in variant.json)"


# Variants written before they said which frontend made them: the compiler that did says it (the one
# place a compiler's name is read for this; every reader after asks the variant).
_COMPILERS = {"triton": ("triton", "python"), "nvcc": ("cuda", "cuda"), "numba": ("numba", "python")}


def _made_by(data: dict[str, Any], info: Any) -> dict[str, str]:
    """The variant's frontend, source language and generator, as stored or (older variants) as its compiler says."""
    made = {k: data.get(k) for k in ("frontend", "source_language", "generated_by")}
    if all(isinstance(v, str) for v in made.values()):
        return {k: str(v) for k, v in made.items()}
    # (a compile record without "compiler" was written before frontends: Triton's, see CompileInfo.from_json)
    compiler = str(info.get("compiler", "triton")) if isinstance(info, dict) else ""
    frontend, language = _COMPILERS.get(compiler.partition(" ")[0], ("", ""))
    return {"frontend": frontend, "source_language": language, "generated_by": ""}


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
            create_new(tmp / name, data)
        meta = {**variant_to_json(v), "sha256": {name: _sha256(data) for name, data in files.items()}}
        create_new(tmp / "variant.json", json.dumps(meta, indent=1).encode("utf-8"))
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
            listings[stage] = decode(path, raw)
        elif stage is Stage.SOURCE and source is not None:
            try:
                listings[stage] = source() if callable(source) else source
            except SessionError as exc:
                if not partial:
                    raise
                source_error = f"damaged: {exc}"
        else:
            raise SessionError(f"{path} is missing")
    # The cubin and the pass log are optional, but one that variant.json has a checksum for was written with
    # it: missing, it is damage, not absence. A reader racing a writer that swaps a cache entry in
    # (_swap_in: for a moment the folder is not there) otherwise took the entry, read before the swap,
    # for one without a cubin (tests/hostile/test_writes_lose_nothing.py, under load).
    variant = variant_from_json(data, listings, _optional_file(directory, "kernel.cubin", sums))
    passes = _optional_file(directory, PASSES_FILE, sums)
    if passes is not None:
        variant = replace(variant, passes=_passes(contained(directory, PASSES_FILE), passes))
    if source_error is not None:
        variant = replace(variant, stage_errors={**variant.stage_errors, Stage.SOURCE: source_error})
    return variant


def _optional_file(directory: Path, name: str, sums: dict) -> bytes | None:
    """The bytes of an optional file of a variant (its cubin, its pass log), checked; None where it has none."""
    path = contained(directory, name)
    if not os.path.lexists(path) and name not in sums:
        return None
    data = read_bytes(path)
    _check_sum(path, data, sums.get(name))
    return data


def _passes(path: Path, raw: bytes) -> PassLog:
    unpack = zlib.decompressobj(wbits=31)  # gzip
    try:
        data = unpack.decompress(raw, MAX_PASSES_BYTES)
        if unpack.unconsumed_tail:
            raise SessionError(f"{path} unpacks to more than {MAX_PASSES_BYTES >> 20} MB: not irscope's pass data")
        return PassLog.from_json(parse_json(decode(path, data), str(path)))
    except zlib.error as exc:
        raise SessionError(f"{path} is not gzipped pass data: {exc}") from None
    except (json.JSONDecodeError, RecursionError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"{path} is not irscope's pass data: {type(exc).__name__}: {exc}") from None


def _check_sum(path: Path, data: bytes, expected: Any) -> None:
    # Variants written before checksums (no entry) are taken as they are.
    if expected is not None and _sha256(data) != expected:
        raise SessionError(f"{path} has changed since irscope wrote it (checksum mismatch): truncated or edited")
