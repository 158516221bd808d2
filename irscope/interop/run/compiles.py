"""The CuTe DSL and TileLang compiles a run recorded (frontends/compile_record.py), as sessions and index rows.

Each record is what the language's frontend compiled, inside the program, for the function and
arguments the program compiled (``Compiled``: stages, cubin, metadata), read back here as data:
every field checked as a compile worker's answer is (``check_compiled``), every file a plain name
inside its record's folder, every stage one of that frontend's, the config plain scalars. The
variant is built as capture builds it (``build_variant``, then ``derive`` adds SASS from the cubin),
so a session holds what ``irscope dump`` of the same kernel keeps. One session per kernel (its file,
name and source; a CuTe DSL kernel's ``-S`` too), one variant per config it compiled. A compile that
failed in the program, or that irscope could not compile again, is returned with why: ``not_recorded``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import IrscopeError, SessionError
from ...frontends.compile_record import FOLDER, RECORD_FORMAT
from ...session import Session
from ...session.store import parameters_problem
from ...storage.files import contained, read_bytes, read_json, read_text, safe_name
from ...types import CaptureError, Config, KernelId, scalar_values
from .index import compiled_variant_row, unique_session_name

HASH = re.compile(r"[0-9a-f]{64}")


def _kernel_stages(frontend: str) -> tuple:
    """The stages a kernel of ``frontend`` produces (its ``Kernel.stages``); none for a language irscope does
    not record this way (a record naming ``triton`` is not one irscope wrote)."""
    from ...frontends.registry import register_stages

    register_stages(frontend)
    if frontend == "cute":
        from ...frontends.cute.kernel import CuteKernel

        return CuteKernel.stages
    if frontend == "tilelang":
        from ...frontends.tilelang.kernel import TileLangKernel

        return TileLangKernel.stages
    return ()


def compile_rows(
    out: Path,
    raw: Path,
    others: list[dict[str, Any]],
    used: set[str],
    note: Callable[[str], None],
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Index rows of the recorded compiles (each kernel's session under ``kernels/``), and those not recorded."""
    folder = raw / FOLDER
    if not folder.is_dir() or folder.is_symlink():
        return [], []
    rows: dict[tuple, dict[str, Any]] = {}
    sessions: dict[tuple, Session] = {}
    lost: list[dict[str, str]] = []
    for path in sorted(folder.glob("[0-9]*.json")):
        try:
            data = read_json(contained(raw, Path(FOLDER) / safe_name(path.name, "record")))
            if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
                raise SessionError("not a compile record irscope wrote")
            record = _record(raw, path.stem, data)
        except (IrscopeError, ValueError, TypeError) as exc:
            note(f"{FOLDER}/{path.name}: {exc}; skipped")
            continue
        if record["why"] is not None:
            lost.append({"kernel": record["name"], "file": record["file"], "why": record["why"]})
            continue
        key = (record["frontend"], record["file"], record["name"], record["identity"].source_hash)
        try:
            variant = _variant(record)
            if key not in sessions:
                stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", record["name"]).strip("._") or "kernel"
                name = unique_session_name(stem, used)
                sessions[key] = Session.create(
                    out / "kernels" / name,
                    record["identity"],
                    record["source"],
                    record["table"],
                    record["signature"],
                    frontend=record["frontend"],
                )
                rows[key] = _row(record, f"kernels/{name}")
            session, row = sessions[key], rows[key]
            if any(v["config"] == record["config"].values() for v in row["variants"]):
                continue  # the same compile, made again (a second cute.compile of the same arguments)
            entry = session.add(variant)
        except IrscopeError as exc:
            note(f"{record['name']}: {exc}")
            lost.append({"kernel": record["name"], "file": record["file"], "why": str(exc)})
            continue
        entry_name = (variant.compile_info.options.get("entry") if variant.compile_info else None) or ""
        mine = [o for o in others if o["name"] == entry_name]
        for item in mine:
            others.remove(item)
        row["variants"].append(compiled_variant_row(record["config"], mine, entry.id))
        row["gpu_calls"] += row["variants"][-1]["gpu_calls"]
        row["gpu_total_us"] = round(row["gpu_total_us"] + row["variants"][-1]["gpu_total_us"], 3)
        if not variant.ok:
            lost.append(
                {"kernel": record["name"], "file": record["file"], "why": f"irscope's compile: {variant.error}"}
            )
    return list(rows.values()), lost


def _row(record: dict[str, Any], session: str) -> dict[str, Any]:
    called = record["called_at"]
    how = "cute.compile" if record["frontend"] == "cute" else "a TileLang compile"
    return {
        "name": record["name"],
        "file": record["file"],
        "inductor": False,
        "frontend": record["frontend"],
        "session": session,
        "why": None,
        "from": f"{how} the program made{f' at {called}' if called else ''}: compiled again by irscope's "
        f"{record['frontend']} frontend with its arguments, for {record['arch']}",
        "gpu_calls": 0,
        "gpu_total_us": 0.0,
        "shared_gpu": [],
        "variants": [],
    }


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise SessionError(f"{what} is not text")
    return value


def _record(raw: Path, stem: str, data: dict[str, Any]) -> dict[str, Any]:
    """One record, checked field by field (a SessionError names the first that is not what irscope wrote)."""
    frontend = _text(data.get("frontend"), "frontend")
    stages = _kernel_stages(frontend)
    if not stages:
        raise SessionError(f"frontend {frontend!r} is not one whose compiles irscope records this way")
    called = data.get("called_at")
    where = None
    if isinstance(called, dict) and isinstance(called.get("file"), str) and type(called.get("line")) is int:
        where = f"{called['file']}:{called['line']}"
    record: dict[str, Any] = {
        "frontend": frontend,
        "name": _text(data.get("name"), "name"),
        "file": _text(data.get("file"), "file"),
        "called_at": where,
        "why": None,
    }
    compiled = data.get("compiled")
    if compiled is None:
        record["why"] = _text(data.get("error"), "error")
        return record
    if not isinstance(compiled, dict):
        raise SessionError("compiled is not an object")
    config = data.get("config")
    table = data.get("table")
    signature = data.get("signature")
    if (
        not isinstance(config, dict)
        or not isinstance(table, dict)
        or not all(isinstance(v, dict) for v in table.values())
    ):
        raise SessionError("its config or parameter table is not an object")
    problem = parameters_problem(table)  # a session written with it would not open
    if problem is not None:
        raise SessionError(problem)
    if signature is not None and not isinstance(signature, str):
        raise SessionError("signature is not text")
    parsed = Config.from_json(config)
    for part in (parsed.constexprs, parsed.options, parsed.sizes):
        scalar_values(part, "config")
    source_hash = _text(data.get("source_hash"), "source_hash")
    if not HASH.fullmatch(source_hash):
        raise SessionError("source_hash is not a SHA-256")
    record.update(
        arch=_text(data.get("arch"), "arch"),
        source=_text(data.get("source"), "source"),
        table=table,
        signature=signature,
        config=parsed,
        identity=KernelId(record["name"], record["file"], source_hash),
        stages=stages,
        compiled=_compiled(raw, stem, compiled, stages),
    )
    return record


def _compiled(raw: Path, stem: str, data: dict[str, Any], allowed: tuple) -> Any:
    """The ``Compiled`` a record holds, checked as a compile worker's answer is."""
    from ...capturing.worker import check_compiled, cluster_shape
    from ...frontends import Compiled
    from ...stages import Stage

    here = Path(FOLDER) / safe_name(stem, "record")
    stages = {}
    named = data.get("stages")
    if not isinstance(named, dict):
        raise SessionError("compiled.stages is not an object")
    for name, file in named.items():
        try:
            stage = Stage(name)
        except (ValueError, TypeError):
            raise SessionError(f"names an unknown stage {name!r}") from None
        if stage not in allowed:
            raise SessionError(f"stage {name!r} is not one its frontend produces")
        stages[stage] = read_text(contained(raw, here / safe_name(file, "stage file")))
    cubin = None
    if data.get("cubin") is not None:
        cubin = read_bytes(contained(raw, here / safe_name(data["cubin"], "cubin")))
    error = data.get("error")
    if error is not None and not (
        isinstance(error, list) and len(error) == 2 and all(e is None or isinstance(e, str) for e in error)
    ):
        raise SessionError("compiled.error is not [stage, message]")
    resources = data.get("cubin_resources")
    if not isinstance(resources, dict) or not all(type(v) is int and v >= 0 for v in resources.values()):
        raise SessionError("compiled.cubin_resources is not a table of counts")
    cluster = data.get("cluster")
    if cluster is not None and not (isinstance(cluster, list) and cluster_shape(tuple(cluster))):
        raise SessionError("compiled.cluster is not a cluster's x, y, z")
    compiled = Compiled(
        stages=stages,
        cubin=cubin,
        shared=data.get("shared"),  # type: ignore[arg-type]
        options=data.get("options"),  # type: ignore[arg-type]
        threads_per_block=data.get("threads_per_block"),
        compiler=data.get("compiler"),  # type: ignore[arg-type]
        seconds=data.get("seconds"),  # type: ignore[arg-type]
        cubin_resources=resources,
        cluster=tuple(cluster) if cluster is not None else None,
        error=CaptureError(error[0], error[1]) if error else None,
    )
    check_compiled(compiled)
    return compiled


def _variant(record: dict[str, Any]) -> Any:
    from ...arch import Target
    from ...capturing import build_variant, derive

    target = Target.for_arch(record["arch"])
    variant = build_variant(
        record["identity"],
        record["config"],
        target,
        record["compiled"],
        record["source"],
        record["stages"],
        record["frontend"],
        "",
    )
    ((_, variant),) = derive([(0, variant)])
    return variant
