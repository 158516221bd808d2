"""What a run recorded, as one session per kernel and ``run.json``, the run's index ranked by GPU time.

A kernel here is one JIT specialization of one ``@triton.jit`` function (its
argument types, 16-byte divisibility and constant 1s); its variants are the
configs the program compiled (an autotuner's, say), each holding exactly the
stages the program's JIT wrote: every kernel the JIT compiled becomes a session. Kernels
rebuilt from their recorded source (with what the program recorded they read beyond it:
closure.py) can be swept, diffed and benched afterwards, on any machine; a kernel irscope
cannot rebuild keeps what the JIT compiled and says why. Without a GPU the program ran on a
stand-in card whose JIT compiled each launch the same way (``stand_in.json``); a kernel it
launched that has no session is listed in ``not_recorded`` with why.
A run on an AMD GPU (ROCm) is read the same way: its compiles are for the gfx processor
Triton's HIP backend targeted there, with AMDGCN and the HSACO where NVIDIA's have PTX and a
cubin, and its GPU times are ROCm's tracer's, on that GPU.

The profile links to variants by the GPU kernel's name, its block (a wave x num_warps:
32 lanes on NVIDIA, 64 on AMD's CDNA) and grid (from the recorded launches); GPU time that fits several variants stays
with the kernel, and the rest of the run's GPU work (torch's own kernels, copies)
is listed beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...arch import DEFAULT_CAPABILITY, arch_name, is_amd, recorded_arch, recorded_wave_size
from ...errors import IrscopeError, SessionError
from ...frontends.helion.recorded import read_helion
from ...frontends.triton.listen import STAND_IN
from ...frontends.triton.recorded import (
    QUIET_OPTIONS,
    Recorded,
    compiled_of,
    config_of,
    kernel_of,
    parameter_table,
    read_compiles,
    signature_of,
)
from ...frontends.triton.replay import launch_key
from ...records import Measurement
from ...session import Session
from ...storage.files import atomic_write, contained, read_json
from ...types import Config, KernelId, Status
from . import INDEX, INDEX_FORMAT, RAW
from .compiles import compile_rows
from .helion import helion_kernels, write_helion_session
from .hook import PROFILE
from .index import SESSION_FOLDERS, RunIndex, compiled_variant_row, unique_session_name
from .timeline import link_trace

PROFILE_METHOD = "CUPTI kernel durations over the program's run (torch.profiler)"
# On ROCm torch.profiler's GPU activities come from Kineto's ROCm tracer (roctracer, or rocprofiler-sdk).
PROFILE_METHOD_ROCM = "ROCm tracer kernel durations over the program's run (torch.profiler)"


@dataclass
class RunVariant:
    record: Recorded
    config: Config
    entry: str | None = None  # its id in the kernel's session
    launches: list[dict[str, Any]] = field(default_factory=list)  # grid, calls, arguments
    gpu: list[dict[str, Any]] = field(default_factory=list)  # the profile's entries for it (one per grid)
    autotuner_ms: float | None = None
    picked: bool = False
    helion: Any = None  # frontends/helion/recorded.HelionRecorded: the Helion config this compile is (helion.py)

    @property
    def threads(self) -> int:
        """A block's threads as the profiler reports it: num_warps waves of the record's GPU (64 lanes on CDNA)."""
        return recorded_wave_size(self.record.arch) * int(self.record.options.get("num_warps", 4))

    def gpu_totals(self) -> tuple[int, float]:
        return sum(g["calls"] for g in self.gpu), sum(g["total_us"] for g in self.gpu)


@dataclass
class RunKernel:
    name: str
    file: str
    inductor: bool
    variants: list[RunVariant]
    session: str | None = None
    why: str | None = None  # why it cannot be compiled again (then it keeps only what the JIT wrote)
    shared_gpu: list[dict[str, Any]] = field(default_factory=list)  # GPU time that fits several of its variants

    def gpu_totals(self) -> tuple[int, float]:
        calls = sum(v.gpu_totals()[0] for v in self.variants) + sum(g["calls"] for g in self.shared_gpu)
        total = sum(v.gpu_totals()[1] for v in self.variants) + sum(g["total_us"] for g in self.shared_gpu)
        return calls, total


def collect(
    out: Path,
    *,
    command: list[str],
    exit_code: int,
    wall_s: float,
    arch: str | None = None,
    on_note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Sessions under ``out/kernels`` and ``out/run.json`` from ``out/raw``; returns the index."""
    raw = out / RAW
    note = on_note or (lambda _: None)
    _refuse_links(out)
    records, skipped = read_compiles(raw)
    stand_in = _stand_in(raw, note)  # no GPU: the card the program ran on, as a stand-in
    outputs = _output_codes(raw, note)  # Inductor's, as the program logged them
    _sources_from_output_code(outputs, records)
    helion, helion_skipped = read_helion(raw)
    kernels = helion_kernels(_group(records), helion)
    skipped += helion_skipped
    tuners = _read_optional(raw, "autotuners.json", list) or []
    if stand_in is not None:  # the stand-in times nothing: every config its autotuner tried compiled, none is picked
        tuners = []
    _attach_launches(raw, kernels)
    used: set[str] = set()
    for kernel in kernels:
        try:
            _write_session(out, kernel, used, note)
        except IrscopeError as exc:  # this kernel's trouble, not the run's
            kernel.why = kernel.why or str(exc)
            note(f"{kernel.name}: {exc}")
    profile = _read_optional(raw, PROFILE, dict) or {}
    gpu = stand_in["arch"] if stand_in is not None else _gpu_arch(profile, records, note)
    others = _attach_profile(profile, kernels)
    _attach_autotuners(tuners, kernels)
    _store_measurements(out, kernels, profile, gpu)
    extra = [] if stand_in is not None else _inductor_rows(out, outputs, kernels, others, arch or gpu)
    extra += _load_inline_rows(out, raw, others, arch or gpu, note)
    languages, compiles_lost = compile_rows(out, raw, others, used, note)  # CuTe DSL's and TileLang's
    extra += languages
    covered = {row["name"] for row in extra if row["session"]}  # compiled from the output code instead
    kernels = [k for k in kernels if k.session is not None or k.name not in covered]
    index = _index(command, exit_code, wall_s, stand_in, profile, kernels, extra, others, skipped, raw)
    index["arch"] = gpu
    index["not_recorded"] = _not_recorded(stand_in, kernels, index["errors"]) + compiles_lost
    link_trace(out, raw, index, note)
    atomic_write(out / INDEX, json.dumps(index, indent=1, default=str))
    return index


# ------------------------------------------------------------------ kernels and their sessions


def _group(records: list[Recorded]) -> list[RunKernel]:
    """One kernel per (file, function, specialization); its variants the distinct configs compiled."""
    groups: dict[tuple, RunKernel] = {}
    seen_hashes: set[str] = set()
    for record in records:
        if record.hash is not None:
            if record.hash in seen_hashes:  # the same compile, reported twice (a second device cache, say)
                continue
            seen_hashes.add(record.hash)
        constexprs = record.constexprs
        if constexprs is None:  # a launch recorded without a GPU: the rebuilt function says
            try:
                constexprs = [p.name for p in kernel_of(record).fn.params if p.is_constexpr]
            except IrscopeError:
                constexprs = []
        params = record.params or list(record.signature)
        spec = tuple(
            (
                p,
                json.dumps(record.signature.get(p), sort_keys=True),
                p in record.divisible,
                json.dumps(record.constants.get(p), sort_keys=True) if record.signature.get(p) == "constexpr" else None,
            )
            for p in params
            if p not in constexprs
        )
        key = (record.file, record.kernel, spec)
        if key not in groups:
            groups[key] = RunKernel(record.kernel, record.file, record.inductor, [])
        config = config_of(record, constexprs)
        if all(v.config.key() != config.key() for v in groups[key].variants):
            groups[key].variants.append(RunVariant(record, config))
    return list(groups.values())


def _write_session(out: Path, kernel: RunKernel, used: set[str], note: Callable[[str], None]) -> None:
    from ...capturing import build_variant, derive
    from ...frontends.gluon.kernel import GluonKernel
    from ...frontends.triton.kernel import TritonKernel

    if kernel.variants[0].helion is not None:  # a Helion kernel's configs: a Helion session (helion.py)
        name = unique_session_name(kernel.name, used)
        write_helion_session(out / "kernels" / name, kernel)
        kernel.session = f"kernels/{name}"
        return
    first = kernel.variants[0].record
    language = GluonKernel if first.frontend == "gluon" else TritonKernel  # Triton's JIT compiles both
    compilable = None
    source = first.source or ""
    if first.inductor:
        # Rebuilding an Inductor kernel imports torch's Inductor (seconds): what the JIT recorded
        # names it as well (its hash; a kernel Inductor restored from its cache has none: the
        # source's), and a sweep rebuilds it when it needs to compile.
        digest = hashlib.sha256(source.encode("utf-8", errors="surrogatepass")).hexdigest()[:32]
        identity = KernelId(first.kernel, first.file, first.cache_key or f"recorded-{digest}")
        signature, rebuild = [a.to_json() for a in signature_of(first)], {"inductor": True}
    else:
        try:
            compilable = kernel_of(first, language)
        except IrscopeError as exc:
            kernel.why = str(exc)
        if compilable is not None:
            identity = compilable.identity()
            signature = [a.to_json() for a in compilable.signature or ()]
            extra = compilable.handle().extra
            rebuild = {k: v for k, v in extra.items() if k in ("inductor", "heuristics", "closure") and v}
        else:
            digest = hashlib.sha256(source.encode("utf-8", errors="surrogatepass")).hexdigest()[:32]
            identity, signature, rebuild = KernelId(first.kernel, first.file, f"recorded-{digest}"), None, None
    configs = [v.config for v in kernel.variants]
    table = parameter_table(compilable, configs)
    name = unique_session_name(kernel.name, used)
    if compilable is None and signature is None:  # still a session of what the JIT wrote: the record's own signature
        try:
            signature = [a.to_json() for a in signature_of(first)]
        except IrscopeError:
            signature = None
    session = Session.create(
        out / "kernels" / name, identity, source, table, signature, frontend=first.frontend, rebuild=rebuild
    )
    batch = []
    for i, v in enumerate(kernel.variants):
        compiled = compiled_of(v.record, dict(language.asm_stages))
        made = (first.frontend, "inductor" if kernel.inductor else "")
        batch.append((i, build_variant(identity, v.config, v.record.target, compiled, source, language.stages, *made)))
    for i, variant in derive(batch):
        kernel.variants[i].entry = session.add(variant).id
    launches = {
        launch_key(v.config): {"grid": v.launches[0]["grid"], "arguments": v.launches[0]["arguments"]}
        for v in kernel.variants
        if v.launches
    }
    if launches:  # what bench reruns: each config as the program launched it (its first launch)
        session.keep_recorded_launches(launches)
        session.save()
    kernel.session = f"kernels/{name}"


# ------------------------------------------------------------------ launches, profile, autotuners


def _stand_in(raw: Path, note: Callable[[str], None]) -> dict[str, Any] | None:
    """``stand_in.json`` (listen.GpuFreeListener), read as data: the card, its unanswered probes, what failed."""
    try:
        data = _read_optional(raw, STAND_IN, dict)
    except SessionError as exc:
        note(f"{STAND_IN}: {exc}")
        return None
    if data is None:
        return None
    from ...gpu_models import parse_gpu

    try:
        model = parse_gpu(str(data.get("gpu") or "")).model
    except IrscopeError as exc:
        note(f"{STAND_IN}: {exc}")
        return None
    unanswered = data.get("unanswered") if isinstance(data.get("unanswered"), dict) else {}

    def items(key: str, fields: tuple[str, ...], benchmark: bool = False) -> list[dict[str, str]]:
        value = data.get(key)
        rows = value if isinstance(value, list) else []
        return [
            {f: str(r.get(f) or "") for f in fields}
            for r in rows
            if isinstance(r, dict) and (key != "failed" or (r.get("benchmark") is True) == benchmark)
        ]

    return {
        "gpu": model.key,
        "name": model.name,
        "arch": model.arch,
        "unanswered": {str(k): str(v) for k, v in unanswered.items()},
        "launched": items("launched", ("kernel", "file")),
        "failed": items("failed", ("kernel", "file", "error")),
        # configs an autotuner tried and skipped: their compile failed on the stand-in as it would on the card
        "autotuner_skipped": items("failed", ("kernel", "file", "error"), benchmark=True),
    }


def _not_recorded(stand_in: dict[str, Any] | None, kernels: list[RunKernel], errors: list[str]) -> list[dict[str, str]]:
    """Kernels the program launched that have no session, each with why: a compile that failed in the program
    (on the stand-in), or one the listener could not record."""
    out: list[dict[str, str]] = []
    # a Helion kernel was launched as the Triton kernel of its generated module (the record's name and file)
    kept = {where for k in kernels if k.session is not None for v in k.variants for where in _names(k, v)}
    if stand_in is not None:
        for failure in stand_in["failed"]:  # a launch whose compile failed: that specialization has no session
            item = {"kernel": failure["kernel"], "file": failure["file"], "why": failure["error"]}
            if item not in out:
                out.append(item)
        for launch in stand_in["launched"]:
            where = (launch["kernel"], launch["file"])
            if where not in kept and all((o["kernel"], o["file"]) != where for o in out):
                why = "no compile of it was recorded (see the run's errors)"
                out.append({"kernel": where[0], "file": where[1], "why": why})
    for kernel in kernels:
        if kernel.session is None and all(item["kernel"] != kernel.name for item in out):
            out.append({"kernel": kernel.name, "file": kernel.file, "why": kernel.why or "no session was written"})
    out += [{"kernel": "?", "file": "", "why": error} for error in errors if "not recorded" in error]
    return out


def _names(kernel: RunKernel, variant: RunVariant) -> tuple[tuple[str, str], ...]:
    return ((kernel.name, kernel.file), (variant.record.kernel, variant.record.file))


def _refuse_links(out: Path) -> None:
    """The program may have left links where irscope reads and writes: a linked raw/ or session folder is refused."""
    for name in (RAW, *SESSION_FOLDERS):
        if (out / name).is_symlink():
            raise SessionError(f"{out / name} is a symbolic link; irscope reads and writes only inside {out}")


def _read_optional(raw: Path, relative: str, kind: type) -> Any:
    """``raw/relative`` as JSON of ``kind``; None where the program wrote none. Never read through a link out of raw/."""
    path = contained(raw, relative)
    if not os.path.lexists(path):
        return None
    data = read_json(path)
    if not isinstance(data, kind):
        raise SessionError(f"{path} is not a JSON {kind.__name__}")
    return data


def _attach_launches(raw: Path, kernels: list[RunKernel]) -> None:
    by_hash = {v.record.hash: v for k in kernels for v in k.variants if v.record.hash}
    for item in _read_optional(raw, "launches.json", list) or []:
        if not isinstance(item, dict):
            continue
        variant = by_hash.get(str(item.get("hash")))
        grid, calls = item.get("grid"), item.get("calls")
        if variant is not None and isinstance(grid, list) and isinstance(calls, int):
            arguments = item.get("arguments") if isinstance(item.get("arguments"), dict) else {}
            variant.launches.append({"grid": grid, "calls": calls, "arguments": arguments})


def _attach_profile(profile: dict[str, Any], kernels: list[RunKernel]) -> list[dict[str, Any]]:
    """Each profiled GPU kernel to the one variant it fits; the rest (torch's kernels, copies) returned."""
    by_name: dict[str, list[tuple[RunKernel, RunVariant]]] = {}
    for kernel in kernels:
        for v in kernel.variants:
            by_name.setdefault(v.record.name or kernel.name, []).append((kernel, v))
    others = []
    for item in profile.get("kernels") or []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        item = {k: item.get(k) for k in ("name", "grid", "block", "calls", "total_us", "median_us", "min_us", "max_us")}
        if not isinstance(item["calls"], int) or not isinstance(item["total_us"], (int, float)):
            continue
        candidates = by_name.get(item["name"], [])
        block = item["block"]
        if candidates and isinstance(block, list) and len(block) == 3:
            candidates = [(k, v) for k, v in candidates if v.threads == block[0] * block[1] * block[2]]
        grid = item["grid"]
        if len(candidates) > 1 and isinstance(grid, list):
            launched = [(k, v) for k, v in candidates if any(launch["grid"] == grid for launch in v.launches)]
            candidates = launched or candidates
        if len(candidates) == 1:
            candidates[0][1].gpu.append(item)
        elif candidates:
            candidates[0][0].shared_gpu.append(item)
        else:
            others.append(item)
    return others


def _attach_autotuners(tuners: list[Any], kernels: list[RunKernel]) -> None:
    for tuner in tuners:
        if not isinstance(tuner, dict) or "kernel" not in tuner:
            continue
        mine = [k for k in kernels if k.name == tuner["kernel"] and k.file == tuner.get("file")]
        for kernel in mine:
            for v in kernel.variants:
                values = v.config.values()
                for timing in tuner.get("timings") or []:
                    ms = timing.get("ms") if isinstance(timing, dict) else None
                    if _matches(values, timing.get("config")) and isinstance(ms, list) and ms:
                        v.autotuner_ms = ms[0] if isinstance(ms[0], (int, float)) else None
                v.picked = any(_matches(values, c) for c in tuner.get("picked") or [])


def _matches(values: dict[str, Any], config: Any) -> bool:
    if not isinstance(config, dict):
        return False
    return all(values.get(k) == v or (k not in values and v in QUIET_OPTIONS.get(k, ())) for k, v in config.items())


def _gpu_arch(profile: dict[str, Any], records: list[Recorded], note: Callable[[str], None]) -> str | None:
    """The run's GPU: the profile's ``arch`` (ROCm's gfx name), else the arch Triton compiled for (its
    GPUTarget's), else the profile's compute capability. A ROCm profile written before it had ``arch``
    says "94" for an MI300X (torch.cuda.get_device_capability), and "90" for an MI250X: read only last."""
    try:
        if profile.get("arch") is not None:
            return recorded_arch(profile["arch"], backend="hip")
    except ValueError as exc:
        note(f"the profile {exc}; the run's GPU is taken from its compiles")
    compiled = next((r.arch for r in records if r.arch), None)
    if compiled is not None or profile.get("capability") is None:
        return compiled
    try:
        return recorded_arch(str(profile["capability"]), backend="cuda")
    except ValueError as exc:
        note(f"the profile {exc}")
        return None


def _store_measurements(out: Path, kernels: list[RunKernel], profile: dict[str, Any], gpu: str | None) -> None:
    method, timing = (PROFILE_METHOD_ROCM, "rocm") if gpu and is_amd(gpu) else (PROFILE_METHOD, "cupti")
    for kernel in kernels:
        if kernel.session is None:
            continue
        session = Session.open(out / kernel.session)
        for v in kernel.variants:
            entry = session.entry(v.entry) if v.entry else None
            if entry is None or not v.gpu:
                continue
            calls, total = v.gpu_totals()
            one = v.gpu[0] if len(v.gpu) == 1 else None
            entry.measurement = Measurement(
                Status.OK,
                median_us=one["median_us"] if one else total / calls,
                min_us=min(g["min_us"] for g in v.gpu),
                repetitions=calls,
                method=method if one else method + ", mean over several grids",
                timing=timing,
                device=str(profile.get("device") or ""),
                torch=str(profile.get("torch") or ""),
                source="torch profiler (irscope run)",
                extra={"gpu_total_us": total},
            )
            session.update(entry)


# ------------------------------------------------------------------ Inductor's kernels loaded from its cache


def _output_codes(raw: Path, note: Callable[[str], None]) -> list[Any]:
    """Every output-code module Inductor logged in the run (one per compiled graph), in order, parsed."""
    from ...storage.files import read_text
    from ..inductor.parse import InductorLogError, parse_output_code

    outputs = []
    for path in sorted((raw / "inductor").glob("*.py")) if (raw / "inductor").is_dir() else []:
        try:
            text = read_text(contained(raw, Path("inductor") / path.name))
        except SessionError as exc:
            note(f"Inductor output code {path.name}: {exc}")
            continue
        if "async_compile.triton(" not in text:
            continue
        try:
            outputs.append(parse_output_code(text, graph=f"[{path.stem}]"))
        except InductorLogError as exc:
            note(f"Inductor output code {path.name}: {exc}")
    return outputs


def _sources_from_output_code(outputs: list[Any], records: list[Recorded]) -> None:
    """A kernel Inductor restored from its cache has no source file of its own in the run: its output code has it."""
    missing = [r for r in records if r.source is None]
    if not missing:
        return
    from ..inductor.kernels import kernel_text

    by_name = {k.name: k for output in outputs for k in output.kernels}
    for record in missing:
        kernel = by_name.get(record.kernel)
        if kernel is not None:
            record.source = kernel_text(kernel)
            record.file = kernel.kernel_path or f"{record.kernel}.py"


def _inductor_rows(
    out: Path,
    outputs: list[Any],
    kernels: list[RunKernel],
    others: list[dict[str, Any]],
    arch: str | None,
) -> list[dict[str, Any]]:
    """Kernels of the output code Inductor logged that Triton did not compile in the run (cache hits).

    They are compiled here, ahead of time for ``arch`` (the run's GPU: else the one each kernel's
    DeviceProperties name), with the launch config each kernel's autotuner launched in the program;
    their GPU time is the profile's for their name.
    """
    from ..inductor.capture import InductorCapture, compile_all, plan, write_sessions
    from ..inductor.kernels import LaunchConfig

    captured = {k.name for k in kernels if k.session is not None}
    seen: set[str] = set()
    missing: list[Any] = []
    for output in outputs:
        fresh = tuple(k for k in output.kernels if k.name not in captured and k.name not in seen)
        seen.update(k.name for k in fresh)
        if fresh:
            missing.append(replace(output, kernels=fresh))
    if not missing:
        return []
    outputs = missing
    chosen: dict[str, Any] = {}
    for name, c in (_read_optional(out / RAW, "inductor/inductor_chosen.json", dict) or {}).items():
        if isinstance(c, dict) and isinstance(c.get("constexprs"), dict):
            # on ROCm the autotuner's config kwargs hold waves_per_eu and the like too: LaunchConfig.of parts them
            chosen[name] = LaunchConfig.of(
                dict(c["constexprs"]), int(c.get("num_warps", 4)), int(c.get("num_stages", 1))
            )
    planned = plan(outputs, out / "inductor", chosen)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for item in list(others):
        if any(item["name"] == ck.kernel.name for ck in planned):
            others.remove(item)
            by_name.setdefault(item["name"], []).append(item)
    rows = []
    for ck in compile_all(planned, arch, in_process=True):
        items = by_name.get(ck.kernel.name, [])
        calls, total = sum(i["calls"] for i in items), sum(i["total_us"] for i in items)
        if calls:
            ck.runtime_us, ck.calls = total / calls, calls
        rows.append((ck, calls, total))
    write_sessions(InductorCapture(planned, outputs, {"run": "irscope run"}), out / "inductor")
    return [
        {
            "name": ck.kernel.name,
            "file": str(ck.file),
            "inductor": True,
            "session": f"inductor/{ck.session}" if ck.session else None,
            "why": None if ck.session else (ck.refused or "it did not compile"),
            "from": "Inductor's output code: Inductor loaded this kernel from its cache, so Triton compiled nothing in "
            "the run; irscope compiled it ahead of time with the launch config its autotuner launched",
            "gpu_calls": calls,
            "gpu_total_us": round(total, 3),
            "shared_gpu": [],
            "variants": [
                {
                    "entry": None,
                    "config": {
                        **ck.chosen.constexprs,
                        "num_warps": ck.chosen.num_warps,
                        "num_stages": ck.chosen.num_stages,
                        **ck.chosen.options,
                    },
                    "label": ck.chosen.label(),
                    "chosen_by": ck.chosen_by,
                    "hash": None,
                    "cache_hit": None,
                    "launches": [],
                    "calls": None,
                    "gpu": by_name.get(ck.kernel.name, []),
                    "gpu_calls": calls,
                    "gpu_total_us": round(total, 3),
                    "autotuner_ms": None,
                    "picked_by_autotuner": False,
                }
            ],
        }
        for ck, calls, total in rows
    ]


# ------------------------------------------------------------------ load_inline's CUDA C++

# What torch's load_inline puts before the CUDA sources it is given (torch/utils/cpp_extension.py).
LOAD_INLINE_PRELUDE = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"


def _load_inline_rows(
    out: Path,
    raw: Path,
    others: list[dict[str, Any]],
    arch: str | None,
    note: Callable[[str], None],
) -> list[dict[str, Any]]:
    """A session per ``__global__`` kernel of each recorded load_inline call, its GPU time from the profile.

    The CUDA sources are written as torch compiled them (its prelude first) to
    ``load_inline/<name>.cu``; irscope's CUDA frontend compiles their device code for
    ``arch``, the run's GPU, mapped to that file's lines. On an AMD GPU torch hipified them and
    hipcc compiled them: irscope, whose CUDA C++ compiles for NVIDIA only, keeps the file and says so.
    """
    from ...frontends.config import resolve_config
    from ...frontends.cuda.frontend import CudaFrontend
    from ...frontends.cuda.source import kernels as cuda_kernels
    from ...nvidia.device import gpu_capability
    from ...session import run_sweep

    folder = raw / "load_inline"
    if not folder.is_dir():
        return []
    target = arch or arch_name(gpu_capability() or DEFAULT_CAPABILITY)
    not_here = (
        f"torch hipified these CUDA sources and hipcc compiled them for {target}; irscope compiles CUDA C++ "
        "for NVIDIA GPUs only"
        if is_amd(target)
        else None
    )
    rows, used = [], set()
    for path in sorted(folder.glob("[0-9]*.json")):
        try:
            data = _read_optional(raw, f"load_inline/{path.name}", dict)
        except SessionError as exc:
            note(f"{path.name}: {exc}; skipped")
            continue
        sources = data.get("cuda_sources") if data else None
        if not (
            isinstance(sources, list) and all(isinstance(t, str) for t in sources) and isinstance(data.get("name"), str)
        ):
            note(f"{path.name}: not a load_inline record irscope wrote; skipped")
            continue
        flags = [f for f in data.get("extra_cuda_cflags") or [] if isinstance(f, str)]
        where = f"{data.get('file')}:{data.get('line')}" if isinstance(data.get("line"), int) else "the program"
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", data["name"]).strip("._") or "extension"
        stem, n = base, 2
        while stem in used:
            stem, n = f"{base}-{n}", n + 1
        used.add(stem)
        cu = out / "load_inline" / f"{stem}.cu"
        cu.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(cu, LOAD_INLINE_PRELUDE + "\n".join(sources))
        for decl in cuda_kernels(cu.read_text(encoding="utf-8")):
            kernel = CudaFrontend().resolve(cu, decl.name)
            overrides: dict[str, Any] = {"fast_math": "--use_fast_math" in flags}
            for flag in flags:
                m = re.fullmatch(r"-maxrregcount[= ](\d+)", flag)
                if m:
                    overrides["maxrregcount"] = int(m.group(1))
            config = resolve_config(kernel, overrides)
            why = not_here
            if why is None:
                session_dir = out / "load_inline" / f"{stem}.{decl.name}"
                session = Session.create(
                    session_dir, kernel.identity(), kernel.source(), kernel.parameter_table(), frontend="cuda"
                )
                for result in run_sweep(kernel, [config], target, session):
                    if not result.variant.ok:
                        why = f"it did not compile: {result.variant.error}"
                        note(f"{decl.name} ({stem}): {result.variant.error}")
            mine = [o for o in others if o["name"] == decl.name or o["name"].startswith(decl.name + "(")]
            for item in mine:
                others.remove(item)
            calls, total = sum(i["calls"] for i in mine), sum(i["total_us"] for i in mine)
            rows.append(
                {
                    "name": decl.name,
                    "file": str(cu),
                    "inductor": False,
                    "frontend": "cuda",
                    "session": None if why else f"load_inline/{stem}.{decl.name}",
                    "why": why,
                    "from": f"load_inline(name={data['name']!r}) called at {where}: its CUDA sources as torch compiled "
                    f"them, device code compiled by irscope's nvcc for {target} "
                    f"(the program's nvcc flags: {' '.join(flags) or 'none'})",
                    "gpu_calls": calls,
                    "gpu_total_us": round(total, 3),
                    "shared_gpu": [],
                    "variants": [compiled_variant_row(config, mine)],
                }
            )
    return rows


# ------------------------------------------------------------------ the index


def _index(command, exit_code, wall_s, stand_in, profile, kernels, extra, others, skipped, raw) -> dict[str, Any]:
    all_gpu = (
        sum(k.gpu_totals()[1] for k in kernels)
        + sum(r["gpu_total_us"] for r in extra)
        + sum(o["total_us"] for o in others)
    )
    listener = _read_optional(raw, "listener.json", dict) or {}

    def share(total: float) -> float | None:
        return round(100.0 * total / all_gpu, 2) if all_gpu else None

    rows = []
    for k in kernels:
        calls, total = k.gpu_totals()
        rows.append(
            {
                "name": k.name,
                "file": k.file,
                "inductor": k.inductor,
                "frontend": k.variants[0].record.frontend if k.variants else "triton",  # "gluon": Triton's JIT too
                **_helion_row(k),
                "session": k.session,
                "why": k.why,
                "gpu_calls": calls,
                "gpu_total_us": round(total, 3),
                "shared_gpu": k.shared_gpu,
                "variants": [
                    {
                        "entry": v.entry,
                        "config": v.config.values(),
                        "label": v.config.label(),
                        "hash": v.record.hash,
                        "cache_hit": v.record.cache_hit,
                        "launches": v.launches,
                        "calls": sum(launch["calls"] for launch in v.launches) if v.launches else None,
                        "gpu": v.gpu,
                        "gpu_calls": v.gpu_totals()[0],
                        "gpu_total_us": round(v.gpu_totals()[1], 3),
                        "autotuner_ms": v.autotuner_ms,
                        "picked_by_autotuner": v.picked,
                    }
                    for v in k.variants
                ],
            }
        )
    rows = sorted(rows + extra, key=lambda r: (-r["gpu_total_us"], r["name"]))
    for row in rows:
        row["gpu_share_pct"] = share(row["gpu_total_us"])
    return {
        "format": INDEX_FORMAT,
        "command": list(command),
        "exit_code": exit_code,
        "wall_s": round(wall_s, 3),
        "mode": "stand-in (no GPU)" if stand_in is not None else "gpu",
        **({"stand_in": stand_in} if stand_in is not None else {}),
        "device": profile.get("device"),
        "capability": profile.get("capability"),
        "profiled": bool(profile),
        "gpu_total_us": round(all_gpu, 3),
        "kernels": rows,
        "other_gpu_work": sorted(
            ({**o, "gpu_share_pct": share(o["total_us"])} for o in others), key=lambda o: -o["total_us"]
        ),
        "skipped": skipped + [f"not a Python kernel: {s}" for s in listener.get("skipped") or []],
        "errors": list(listener.get("errors") or []),
    }


def _helion_row(kernel: RunKernel) -> dict[str, Any]:
    """A Helion kernel's row names its language, its arguments and the Triton kernel Helion generated for it."""
    helion = kernel.variants[0].helion if kernel.variants else None
    if helion is None:
        return {}
    return {"frontend": "helion", "arguments": helion.arguments, "launched_as": kernel.variants[0].record.kernel}


def is_run_dir(path: str | Path) -> bool:
    return (Path(path) / INDEX).is_file()


def read_index(path: str | Path) -> RunIndex:
    """``run.json``, checked, as typed records: every session it names is a folder inside the run."""
    index = contained(Path(path), INDEX)
    return RunIndex.from_json(read_json(index), str(index), Path(path))
