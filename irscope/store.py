"""Variants on disk: one JSON file of metadata and one text file per stage.

The cache and sessions share this format. Everything here is data: reading a
variant parses JSON and reads text, never imports or evaluates anything, and
every write goes to a temporary name first and is renamed into place, so a crash
leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .errors import SessionError
from .types import (
    CaptureError,
    CompileInfo,
    Config,
    KernelId,
    Resources,
    Stage,
    Status,
    Variant,
)

FORMAT = "irscope.variant/1"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_json(path: Path) -> Any:
    """Parse a JSON file irscope wrote; a missing, unreadable or torn file is a SessionError."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SessionError(f"{path} is missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SessionError(f"{path} is corrupted: {exc}") from None
    except OSError as exc:
        raise SessionError(f"{path} is unreadable: {exc.strerror or exc}") from None


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
        raise SessionError(f"not an irscope variant (format {data.get('format') if isinstance(data, dict) else None!r})")
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
            resources=None if res is None else Resources(**res),
            compile_info=None if info is None else CompileInfo.from_json(info),
            error=None if err is None else CaptureError(err.get("stage"), str(err["message"])),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SessionError(f"malformed variant record: {type(exc).__name__}: {exc}") from exc


def write_variant(directory: Path, v: Variant, with_source: bool = True, with_cubin: bool = True) -> None:
    """Write ``v`` as ``variant.json`` plus one file per stage, replacing any earlier copy atomically."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}."))
    try:
        for stage, text in v.listings.items():
            if stage is Stage.SOURCE and not with_source:
                continue
            (tmp / stage.file_name(v.kernel.file)).write_text(text, encoding="utf-8")
        if with_cubin and v.cubin is not None:
            (tmp / "kernel.cubin").write_bytes(v.cubin)
        (tmp / "variant.json").write_text(json.dumps(variant_to_json(v), indent=1), encoding="utf-8")
        _swap_in(tmp, directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _swap_in(tmp: Path, directory: Path) -> None:
    if not directory.exists():
        try:
            os.rename(tmp, directory)
            return
        except OSError:
            if not directory.exists():
                raise
    old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
    os.rename(directory, old)
    os.rename(tmp, directory)
    shutil.rmtree(old, ignore_errors=True)


def _kernel_file(data: Any) -> str:
    kernel = data.get("kernel") if isinstance(data, dict) else None
    return str(kernel.get("file", "")) if isinstance(kernel, dict) else ""


def read_variant(directory: Path, source: str | None = None) -> Variant:
    """Read a variant written by ``write_variant``; ``source`` supplies a shared source text."""
    directory = Path(directory)
    meta = directory / "variant.json"
    data = read_json(meta)
    listings: dict[Stage, str] = {}
    for name in data.get("stages", []) if isinstance(data, dict) else []:
        try:
            stage = Stage(name)
        except ValueError:
            raise SessionError(f"{meta} names an unknown stage {name!r}") from None
        path = directory / stage.file_name(_kernel_file(data))
        if path.exists():
            listings[stage] = path.read_text(encoding="utf-8")
        elif stage is Stage.SOURCE and source is not None:
            listings[stage] = source
        else:
            raise SessionError(f"{path} is missing")
    cubin_path = directory / "kernel.cubin"
    cubin = cubin_path.read_bytes() if cubin_path.exists() else None
    return variant_from_json(data, listings, cubin)
