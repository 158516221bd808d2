"""From Inductor's output code to irscope variants, sessions and a summary.

Each generated Triton kernel becomes a variant like any other (every stage,
source map, annotation), compiled for the arch Inductor recorded in its
DeviceProperties (or --arch), with the launch config Inductor chose: the one
its autotuner picked when the capture ran live on a GPU, else the one its
heuristics give (the first, when they give several for the autotuner to try).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...arch import vendor_of
from ...capturing import capture_many
from ...errors import UsageError
from ...frontends.config import config_from_table
from ...frontends.triton.kernel import TritonKernel
from ...processes.executors.local import KeptPoolExecutor
from ...processes.workers import DEFAULT_COMPILE_TIMEOUT
from ...records import Measurement
from ...session import Session
from ...storage.files import atomic_write, read_json
from ...types import Status, Variant
from .kernels import (
    LaunchConfig,
    config_of,
    default_directory,
    launch_configs,
    parameter_table,
    refused_variant,
    triton_kernel_of,
    write_kernel_file,
)
from .parse import InductorKernel, OutputCode

INDEX = "inductor.json"
INDEX_FORMAT = "irscope.inductor/1"


@dataclass
class CapturedKernel:
    kernel: InductorKernel
    graph: str
    triton: TritonKernel | None  # None: its source was refused (``refused`` says why); it fails, the others go on
    candidates: list[LaunchConfig]
    chosen: LaunchConfig
    chosen_by: str  # how the launch config was decided
    file: Path | None = None  # the kernel's file, written to be read (never imported)
    refused: str | None = None
    variant: Variant | None = None
    runtime_us: float | None = None  # per call, from the torch profiler (live captures on a GPU)
    calls: int | None = None  # launches per call of the compiled function
    session: str | None = None  # session directory name, when written

    def summary(self) -> dict[str, Any]:
        k, v, r = self.kernel, self.variant, self.variant.resources if self.variant else None
        return {
            "name": k.name,
            "kind": k.kind,
            "graph": self.graph,
            "arch": v.arch if v else k.arch,
            "aten_ops": list(k.aten_ops),
            "source_nodes": list(k.source_nodes),
            "node_map": list(k.node_map),
            "graph_fragment": list(k.graph_fragment),
            "user_source": list(k.user_source),
            "signature": dict(k.signature),
            "divisible_by_16": list(k.divisible_by_16),
            "launch_args": list(k.launch_args),
            "size_hints": k.heuristic_args.get("size_hints"),
            "chosen": asdict(self.chosen),
            "chosen_by": self.chosen_by,
            "candidates": [asdict(c) for c in self.candidates],
            "status": v.status.value if v else None,
            "error": str(v.error) if v and v.error else None,
            "registers": r.registers if r else None,
            "spills": ((r.spill_stores or 0) + (r.spill_loads or 0)) if r else None,
            "shared": r.shared if r else None,
            "runtime_us": self.runtime_us,
            "calls": self.calls,
            "session": self.session,
        }


@dataclass
class InductorCapture:
    kernels: list[CapturedKernel]
    outputs: list[OutputCode]
    origin: dict[str, Any] = field(default_factory=dict)  # log file, or function and inputs
    timing: dict[str, Any] = field(default_factory=dict)  # eager vs compiled, when live

    def to_json(self) -> dict[str, Any]:
        return {
            "format": INDEX_FORMAT,
            "origin": self.origin,
            "timing": self.timing,
            "graphs": [
                {"graph": o.graph, "kernels": [k.name for k in o.kernels], "extern_calls": list(o.extern_calls)}
                for o in self.outputs
            ],
            "kernels": [k.summary() for k in self.kernels],
        }


def plan(
    outputs: list[OutputCode], directory: Path | None, chosen: dict[str, LaunchConfig] | None = None
) -> list[CapturedKernel]:
    """Write each kernel's file and work out its launch configs (no compile yet)."""
    chosen = chosen or {}
    out = []
    for output in outputs:
        for kernel in output.kernels:
            file = write_kernel_file(kernel, (directory / "kernels") if directory else default_directory(kernel))
            try:
                triton, refused = triton_kernel_of(kernel, file), None
            except UsageError as exc:  # refused, or does not rebuild: this kernel's failure, not the log's
                triton, refused = None, str(exc)
            try:
                candidates = launch_configs(kernel)
            except Exception:
                candidates = []
            if kernel.name in chosen:
                pick, how = chosen[kernel.name], "picked by Inductor's autotuner on the GPU"
            elif len(candidates) == 1:
                pick, how = candidates[0], "Inductor's heuristics (one config)"
            elif candidates:
                pick, how = candidates[0], f"first of {len(candidates)} configs Inductor's autotuner chooses among"
            else:
                pick, how = LaunchConfig({}, 4, 1), "default (Inductor's heuristics unavailable)"
            out.append(CapturedKernel(kernel, output.graph, triton, candidates or [pick], pick, how, file, refused))
    return out


def compile_all(
    kernels: list[CapturedKernel], arch: str | None, *, in_process: bool = False
) -> Iterator[CapturedKernel]:
    """Compile each kernel's chosen config, for ``arch`` or the arch Inductor recorded.

    ``in_process``: in this process, with no time limit (no worker to start: a few kernels, quickly).
    Otherwise every kernel compiles in the same workers (``KeptPoolExecutor``), started once for the log.
    """
    executor = KeptPoolExecutor()
    try:
        yield from _compile_each(kernels, arch, in_process, executor)
    finally:
        executor.close()


def _compile_each(
    kernels: list[CapturedKernel], arch: str | None, in_process: bool, executor: KeptPoolExecutor
) -> Iterator[CapturedKernel]:
    for ck in kernels:
        target_arch = arch or ck.kernel.arch or "sm_90"
        if ck.triton is None:
            file = ck.file if ck.file is not None else Path(f"{ck.kernel.name}.py")
            ck.variant = refused_variant(ck.kernel, file, ck.chosen, target_arch, ck.refused or "refused")
            yield ck
            continue
        launch = config_of(ck.chosen, vendor_of(target_arch))
        config = config_from_table(ck.triton.parameter_table(), {**launch.values()}, ck.triton.name, "triton")
        ck.variant = next(
            iter(
                capture_many(
                    ck.triton,
                    [config],
                    target_arch,
                    compile_timeout=None if in_process else DEFAULT_COMPILE_TIMEOUT,
                    executor=executor,
                )
            )
        ).variant
        yield ck


def write_sessions(capture: InductorCapture, directory: Path) -> None:
    """``directory/<kernel>/`` sessions (one per kernel) and ``directory/inductor.json``."""
    directory.mkdir(parents=True, exist_ok=True)
    for ck in capture.kernels:
        if ck.variant is None or ck.triton is None:  # a refused kernel has nothing to sweep: inductor.json says why
            continue
        table = parameter_table(ck.candidates, ck.chosen)
        signature = [a.to_json() for a in ck.triton.signature or ()]
        session = Session.create(
            directory / ck.kernel.name,
            ck.triton.identity(),
            ck.triton.source(),
            table,
            signature,
            rebuild={"inductor": True},
        )
        entry = session.add(ck.variant)
        if ck.runtime_us is not None:
            entry.measurement = Measurement(Status.OK, median_us=ck.runtime_us, source="torch profiler")
            session.update(entry)
        ck.session = ck.kernel.name
    atomic_write(directory / INDEX, json.dumps(capture.to_json(), indent=1, default=str))


def is_inductor_dir(path: str | Path) -> bool:
    return (Path(path) / INDEX).is_file()


def read_index(path: str | Path) -> dict[str, Any]:
    """``inductor.json``, checked: every session it names is a folder of its own directory."""
    from ...errors import SessionError
    from ...storage.files import contained, safe_name

    index = contained(Path(path), INDEX)
    data = read_json(index)
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
        raise SessionError(f"{index} is not an irscope Inductor capture")
    kernels, origin = data.get("kernels"), data.get("origin")
    if not isinstance(kernels, list) or not all(isinstance(k, dict) for k in kernels) or not isinstance(origin, dict):
        raise SessionError(f"{index} is malformed: 'kernels' must be a list of objects and 'origin' an object")
    for k in kernels:
        if k.get("session") is not None:
            contained(Path(path), safe_name(k["session"], f"{index}: session"))
    return data
