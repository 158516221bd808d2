"""A tritonparse trace's kernel as an irscope session: every compile a variant, every launch a rerunnable launch.

The session is written once per trace (by the digest of its bytes) and kernel under
irscope's cache, atomically (built beside, then renamed into place), so every command
that reads a session reads a trace the same way. Each compilation event becomes a
variant holding exactly the stages the program's JIT produced, its config the
event's constexprs and options; registers and spills come from ptxas run on the
recorded PTX (tritonparse records the cubin by name only). A trace taken on an AMD GPU
(Triton's HIP backend: target ``hip``, ``gfx942``) holds AMDGCN where NVIDIA's hold PTX and
SASS, and its variants are that processor's; tritonparse keeps no HSACO's bytes either, so
their resources beyond LDS are not known. The kernel's signature is
read from the TTIR's ``tt.func`` (the types the JIT specialized to) and the event's
constants and attributes, so a sweep can rebuild the kernel from the recorded source
(``frontends/triton/rebuild.py``: none of the text runs). Launch events become the
session's recorded launches (grid, argument layouts) that bench reruns on a GPU.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...arch import DEFAULT_CAPABILITY, arch_name, recorded_arch, vendor_of
from ...capturing.housekeeping import mark_used
from ...errors import IrscopeError, KernelNotFound, SessionError
from ...frontends.triton.recorded import Recorded, compiled_from, config_of, parameter_table, signature_of
from ...frontends.triton.signature import is_type
from ...paths import TRACES, cache_dir
from ...session import Session
from ...session.header import TraceOrigin
from ...spec import DTYPES
from ...stages import Stage
from ...types import KernelId
from . import mappings
from .events import CompileEvent, LaunchEvent, Trace, kernel_parameters, read_trace
from .launches import recorded_launches, specialization

FORMAT = 1  # bump when what a trace's session holds changes: older ones are rebuilt
OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "waves_per_eu", "matrix_instr_nonkdim", "kpack")
TRITON_ASM = ("ttir", "ttgir", "llir", "ptx", "amdgcn")  # the stages Triton's compile gives, as its asm keys
STAGES = {
    "ttir": Stage.TTIR,
    "ttgir": Stage.TTGIR,
    "llir": Stage.LLIR,
    "ptx": Stage.PTX,
    "amdgcn": Stage.AMDGCN,
    "sass": Stage.SASS,
}
# `tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), %n: i32 ...`
TT_FUNC = re.compile(r"^\s*tt\.func\s+(?:public\s+|private\s+)?@(\w+)\((.*)\)\s*(?:attributes\s*\{.*\})?\s*\{\s*$")
# one argument of it: `%x_ptr: !tt.ptr<f32>` or `%n_elements: i32`
TT_ARG = re.compile(r"%[\w.$-]+:\s*(!tt\.ptr<(\w+)(?:,\s*\d+)?>|[\w!.<>]+)")
MLIR_TYPES = {d.mlir: d.triton for d in DTYPES.values() if d.mlir}  # f16 -> fp16


def trace_session(path: Path, kernel: str | None, note: Callable[[str], None] | None = None) -> Session:
    """The session of ``kernel`` (the trace's only kernel when None) in the trace at ``path``."""
    note = note or (lambda _: None)
    trace = read_trace(path)
    names = list(dict.fromkeys(e.kernel for e in trace.compiles))
    if kernel is None:
        if len(names) > 1:
            raise KernelNotFound(
                f"{path} holds {len(names)} kernels; name one: {path}:{names[0]} (kernels: {', '.join(names)})"
            )
        kernel = names[0]
    if kernel not in names:
        raise KernelNotFound(f"{path} has no compilation of a kernel named {kernel!r}; it has: {', '.join(names)}")
    folder = cache_dir() / TRACES / f"{trace.digest[:24]}-v{FORMAT}" / kernel
    if not Session.is_session(folder):
        _build(trace, kernel, folder)
    mark_used(folder.parent)  # the trace's entry in the cache, for irscope cache --trim
    session = Session.open(folder)
    origin = session.trace
    for line in origin.notes if origin is not None else ():
        note(line)
    return session


def _build(trace: Trace, kernel: str, folder: Path) -> None:
    build_session(folder, lambda building: _write(trace, kernel, building), "the trace's session")


def build_session(folder: Path, write: Callable[[Path], None], what: str) -> None:
    """``write(building)`` a session beside ``folder`` and rename it into place; a concurrent builder's copy wins.
    Sessions read from other tools' files (a trace's, a Triton cache's) are built this way in irscope's cache."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = folder.with_name(f".{folder.name}.{os.getpid()}.building")
    shutil.rmtree(building, ignore_errors=True)  # a leftover of this process id: only ever ours
    try:
        write(building)
        try:
            os.rename(building, folder)
        except OSError:
            if not Session.is_session(folder):
                raise
    except OSError as exc:
        raise SessionError(f"cannot write {what} under {folder.parent}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _write(trace: Trace, kernel: str, folder: Path) -> None:
    from ...capturing import build_variant

    notes = list(trace.skipped)
    first_launch: dict[str | None, LaunchEvent] = {}
    for launch in trace.launches:
        first_launch.setdefault(launch.hash, launch)
    read: list[tuple[CompileEvent, Recorded]] = []
    seen: set[str] = set()
    for event in trace.compiles:
        if event.kernel != kernel or event.hash in seen:  # a cache hit records the same compile again
            continue
        seen.add(event.hash)
        try:
            read.append((event, record_of(event, first_launch.get(event.hash), notes.append)))
        except ValueError as exc:
            notes.append(f"{kernel} (line {event.line}): {exc}")
    if not read:
        raise SessionError(f"{trace.path}: no compilation of {kernel} irscope can read: {notes[-1]}")
    first = read[0][1]
    constexprs = first.constexprs or []
    configs: dict[str, Any] = {}  # compile hash -> config
    variants: list[tuple[CompileEvent, Recorded, Any]] = []
    for event, record in read:
        config = config_of(record, constexprs)
        if any(c.key() == config.key() for c in configs.values()):
            notes.append(
                f"{kernel} (line {event.line}): {config.label()} again, specialized otherwise; irscope keeps the first"
            )
            continue
        configs[event.hash] = config
        variants.append((event, record, config))
    signature = None
    try:
        if not first.signature:
            raise SessionError("the trace does not say how its arguments were specialized")
        signature = [a.to_json() for a in signature_of(first)]
    except IrscopeError as exc:
        notes.append(f"{kernel} cannot be compiled again: {exc}")
    source = first.source or ""  # a trace's compile event carries the kernel's source (events.CompileEvent)
    digest = hashlib.sha256(source.encode("utf-8", errors="surrogatepass")).hexdigest()[:32]
    identity = KernelId(kernel, first.file, f"tritonparse-{digest}")
    session = Session.create(folder, identity, source, parameter_table(None, list(configs.values())), signature)
    checks = {}
    for event, record, config in variants:
        compiled = compiled_from(record, {k: v for k, v in event.stages.items() if k in TRITON_ASM}, event.metadata)
        target = record.target
        variant = build_variant(identity, config, target, compiled, source, list(STAGES.values()), "triton")
        sass = event.stages.get("sass")
        if target.gfx is None:  # an AMD compile has no SASS: build_variant said why
            variant = replace(
                variant,
                listings={**variant.listings, **({Stage.SASS: sass} if sass else {})},
                stage_errors={
                    **variant.stage_errors,
                    **(
                        {}
                        if sass
                        else {Stage.SASS: "not in the trace (tritonparse records SASS with enable_sass_dump)"}
                    ),
                },
            )
        entry = session.add(variant)
        if event.mappings:
            result = mappings.check(event.stages, event.mappings, event.file)
            checks[entry.id] = {name: r.to_json() for name, r in result.items()}
            line = mappings.summary(result)
            if line:
                notes.append(f"{kernel} {config.label()}: {line}")
    launches = recorded_launches(trace.launches, kernel, configs)
    if launches:
        session.keep_recorded_launches(launches)
    session.keep_trace(TraceOrigin(str(trace.path), trace.digest, tuple(notes), checks, len(launches)))
    session.save()


# ------------------------------------------------------------------ one compilation event


def record_of(
    event: CompileEvent, launch: LaunchEvent | None = None, note: Callable[[str], None] | None = None
) -> Recorded:
    """The event as what ``irscope run`` records of a compile: the JIT's specialization of each parameter.

    The specialization is read from the TTIR; a ``launch`` of this compile says it
    again from its arguments: where the TTIR has none the launch's is taken, and where
    the two differ ``note`` is told (the TTIR's is kept: it is what was compiled).
    """
    meta = event.metadata
    params, constexprs = kernel_parameters(event.source, event.kernel)
    constants = _by_index(meta.get("src_constants"), params)
    attributes = _by_index(meta.get("src_attrs"), params)
    divisible = sorted(
        n for n, attrs in attributes.items() if isinstance(attrs, list) and ["tt.divisibility", 16] in attrs
    )
    # ROCm's JIT: a pointer whose tensor fits in 2 GB (HIPBackend.get_tensor_specialization)
    in_range = sorted(
        n for n, attrs in attributes.items() if isinstance(attrs, list) and ["tt.pointer_range", 32] in attrs
    )
    types = _ttir_types(event.stages.get("ttir", ""), event.kernel)
    signature: dict[str, Any] = {}
    if params is not None and types is not None:
        specialized = [p for p in params if p not in constants]  # the TTIR's arguments, in order
        if len(specialized) == len(types):
            signature = {**{p: "constexpr" for p in constants}, **dict(zip(specialized, types))}
        elif note:  # the stages still read; only a recompile needs the signature (a launch may give it)
            note(
                f"{event.kernel} (line {event.line}): the TTIR has {len(types)} arguments where the source's "
                f"parameters less the event's constants leave {len(specialized)}"
            )
    implied = specialization(launch, params, constexprs or []) if launch and params is not None else None
    if implied is not None:
        launched, launched_constants, launched_divisible = implied
        if not signature:
            signature, divisible = launched, sorted(launched_divisible)
            constants = {**launched_constants, **constants}
        elif note and (launched != signature or sorted(launched_divisible) != divisible):
            differ = [
                p
                for p in params or []
                if (launched.get(p), p in launched_divisible) != (signature.get(p), p in divisible)
            ]
            note(
                f"{event.kernel} (line {event.line}): its launch implies another specialization than its TTIR "
                f"for {', '.join(differ)}; the TTIR's is kept"
            )
    target: dict[str, Any] = meta["target"] if isinstance(meta.get("target"), dict) else {}
    try:  # Triton's GPUTarget: ("cuda", 90, 32), or ("hip", "gfx942", 64) on ROCm
        arch = recorded_arch(target.get("arch"), backend=target.get("backend"), warp_size=target.get("warp_size"))
    except ValueError as exc:
        raise ValueError(f"its target {exc}") from None
    _check_stages(event.stages, arch)
    return Recorded(
        kernel=event.kernel,
        file=event.file,
        source=event.source,
        signature=signature,
        constants=constants,
        divisible=tuple(divisible),
        options={k: meta[k] for k in OPTION_KEYS if isinstance(meta.get(k), int) and not isinstance(meta[k], bool)},
        arch=arch,
        hash=event.hash,
        name=event.kernel,
        params=params,
        constexprs=constexprs,
        pointer_range=tuple(in_range),
    )


def _check_stages(stages: dict[str, str], arch: str | None) -> None:
    """A compile for one vendor's GPU holds none of the other's stages (PTX for gfx942 is two records run together)."""
    vendor = vendor_of(arch or arch_name(DEFAULT_CAPABILITY))
    for name in stages:
        stage = STAGES.get(name)
        if stage is not None and not stage.spec.made_for(vendor.value):
            whose = "AMD" if stage.spec.vendor == "amd" else "NVIDIA"
            raise ValueError(f"its target is {arch or 'NVIDIA'} but it holds {stage.label}, a stage of {whose} GPUs")


def _by_index(value: Any, params: list[str] | None) -> dict[str, Any]:
    """``{"(4,)": 256}`` (tritonparse's spelling of Triton's index tuples) -> ``{"BLOCK_SIZE": 256}``."""
    out: dict[str, Any] = {}
    if not isinstance(value, dict) or params is None:
        return out
    for key, item in value.items():
        m = re.fullmatch(r"\((\d+),\)", str(key).replace(" ", ""))
        if m and int(m.group(1)) < len(params):
            out[params[int(m.group(1))]] = item
    return out


def _ttir_types(ttir: str, kernel: str) -> list[str] | None:
    """The Triton type of each argument of the kernel's ``tt.func``; None where one has no Triton spelling."""
    for line in ttir.splitlines():
        m = TT_FUNC.match(line)
        if m and m.group(1) == kernel:
            out = []
            for arg in TT_ARG.finditer(_without_parenthesised(m.group(2))):
                pointee = arg.group(2)
                ty = f"*{MLIR_TYPES.get(pointee, '?')}" if pointee else MLIR_TYPES.get(arg.group(1), "?")
                if not is_type(ty):
                    return None
                out.append(ty)
            return out
    return None


def _without_parenthesised(text: str) -> str:
    """``text`` without its ``loc(...)`` and ``{...}`` parts, whose strings may hold anything."""
    out, depth = [], 0
    in_string = False
    for ch in text:
        if in_string:
            in_string = ch != '"'
        elif ch == '"':
            in_string = True
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)
