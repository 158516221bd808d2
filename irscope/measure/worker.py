"""The measurement worker: one GPU process that checks, then times, one variant per request.

Correctness first: outputs are poisoned (NaN) before the launch, compared with the
kernel's torch reference on the same inputs, and a mismatch or an unwritten
element makes the variant WRONG. Then timing (timing.py): by default the GPU's
own duration of each kernel from CUPTI, L2 swept clean before each launch; or
CUDA events, or CUDA graph replays, each named in the result. A device-to-device
copy of the same bytes, timed the same way, is the memory-bound reference.

A CUDA fault poisons the process's context, so on one the worker prints the
error and exits: the pool reports the variant CRASHED and starts a fresh worker.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import traceback
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from .. import frontends
from ..errors import exception_line
from ..processes.executors import Work
from ..processes.timeline import mark
from ..processes.workers import protocol_channel
from ..records import AutotunerRun, Measurement, code_hash
from ..types import Config, Status
from .autotuner import AUTOTUNER, autotune
from .faults import is_cuda_fault
from .results import derived, summarize

if TYPE_CHECKING:
    from .hardware import DeviceInfo

DEFAULTS = {"method": "cupti", "min_time_ms": 100.0, "warmup_ms": 25.0, "seed": 0, "check": True}


def failure(kind: str, message: str) -> Measurement:
    return Measurement(Status.CRASHED if kind == "crashed" else Status.TIMEOUT, error=message)


class MeasureState:
    """What one worker keeps between requests besides its kernels (frontends.load keeps those)."""

    def __init__(self) -> None:
        self.device: DeviceInfo | None = None
        self.copies: dict[tuple[float, str], float] = {}  # (bytes, method) -> us of a copy of those bytes


def measure(state: MeasureState, kernel, config: Config, options: dict[str, Any]) -> Measurement:
    """Check, then time ``config`` of ``kernel`` (a Kernel) on this process's GPU."""
    import torch

    from .hardware import current_device, device_json
    from .timing import DESCRIPTIONS, time_launches

    options = {**DEFAULTS, **options}
    method = options["method"]
    device = state.device = state.device or current_device()
    launch = _launch(kernel, config, options)
    mark(f"GPU worker: {config.label()}: inputs and reference ready")
    for out in launch.outputs.values():  # poison: an element the kernel never writes cannot pass as correct
        out.fill_(float("nan") if out.dtype.is_floating_point else -1)

    info = device_json(device)
    base = Measurement(
        Status.OK,
        device=device.name,
        driver=device.driver,
        torch=device.torch,
        triton=device.triton,
        date=info["date"],
        gpu_index=device.index,
    )
    try:
        kernel = launch.first()
        torch.cuda.synchronize()
    except Exception as exc:
        if is_cuda_fault(exc):
            raise
        return replace(base, status=Status.FAILED, error=_one_line(exc))
    status, abs_err, rel_err, why = Status.OK, None, None, None
    if options["check"] and launch.expected is not None:
        status, abs_err, rel_err, why = _check(launch)
    mark(f"GPU worker: {config.label()}: launched and checked")
    ran = launched_ptx(kernel, options)
    base = replace(base, ptx_sha256="" if ran is None else code_hash(ran))
    timing = time_launches(launch.run, method, min_time_ms=options["min_time_ms"], warmup_ms=options["warmup_ms"])
    mark(f"GPU worker: {config.label()}: timed")
    stats = summarize(timing.times_ms)
    copy_us = _copy_us(state, launch.bytes_moved, method)
    figures = derived(
        stats["median_us"],
        launch.bytes_moved,
        launch.flops,
        copy_us=copy_us,
        ceiling_gbps=device.copy_gbps,
        peak_gbps=device.datasheet_gbps,
        peak_tflops=device.datasheet_tflops,
    )
    loaded = {
        "gpu_registers": getattr(kernel, "n_regs", None),
        "gpu_spills": getattr(kernel, "n_spills", None),
        "copy_us": copy_us,
        "gpu_kernels": [k["name"] for k in timing.kernels] or None,
    }
    return replace(
        base,
        status=status,
        repetitions=len(timing.times_ms),
        method=DESCRIPTIONS[method],
        timing=method,
        kernels=timing.kernels if len(timing.kernels) > 1 else None,
        max_abs_error=abs_err,
        max_rel_error=rel_err,
        error=why,
        extra=loaded,
        **cast(dict[str, Any], stats),
        **cast(dict[str, Any], figures),
    )


def launched_ptx(compiled: Any, options: dict[str, Any]) -> str | None:
    """The PTX of the code a launch ran, where it shows it: another Triton's binary carries its own; the JIT's
    compiled kernel (Triton's CompiledKernel) keeps it in ``asm``. A measurement carries its hash, so a runtime
    recorded here is shown beside a variant elsewhere only when that variant's PTX is the same
    (measure/samples.py). None where the launch shows no PTX (CUDA C++ through torch, a torch reference)."""
    binary = options.get("binary")
    if binary:
        ptx = binary.get("ptx")
        return ptx if isinstance(ptx, str) else None
    if options.get("reference"):
        return None
    asm = getattr(compiled, "asm", None)
    try:
        ptx = asm.get("ptx") if asm is not None else None
    except Exception:  # an asm mapping of another shape: no PTX to vouch for
        return None
    return ptx if isinstance(ptx, str) else None


def _launch(kernel, config: Config, options: dict[str, Any]):
    """What is timed: the spec's PyTorch reference (irscope compare), another Triton's cubin, or the kernel."""
    if options.get("reference"):  # the spec's PyTorch reference, eager or torch.compile'd (irscope compare)
        from .reference import reference_launch

        return reference_launch(kernel, config, options["reference"], seed=options["seed"])
    if options.get("binary"):  # another Triton's variant: its own cubin, through irscope's launch
        return kernel.launch_binary(config, options["binary"], device="cuda", seed=options["seed"])
    return kernel.launch(config, device="cuda", seed=options["seed"])


def _copy_us(state: MeasureState, bytes_moved: float | None, method: str) -> float | None:
    """A device-to-device copy of the bytes a launch moves, timed the same way (once per size and method)."""
    if not bytes_moved:
        return None
    from .hardware import copy_time_us

    key = (float(bytes_moved), method)
    if key not in state.copies:
        state.copies[key] = copy_time_us(bytes_moved, method)
    return state.copies[key]


def warm_up(state: MeasureState) -> Measurement:
    """Pay a worker's one-time costs while the variants are still compiling.

    The first launch initialises CUDA and Triton's launcher (the L2 sweep's compile and
    launcher build: 1.3 s on an H200 from an empty cache), the first profiler session
    starts CUPTI, and the device's copy rate is measured once: bench asks each GPU's
    worker for this before the first variant is ready (tests/perf/probe_worker_start.py).
    """
    from .hardware import current_device
    from .timing import warm_up as start_timing

    device = state.device = state.device or current_device()
    mark("GPU worker: torch, CUDA and the device ready")
    start_timing()
    mark("GPU worker: CUPTI and the L2 sweep ready")
    return Measurement(Status.OK, method="warm-up", device=device.name, gpu_index=device.index)


def _check(launch) -> tuple[Status, float | None, float | None, str | None]:
    import torch

    worst_abs = worst_rel = 0.0
    problems = []
    for (name, out), exp in zip(launch.outputs.items(), launch.expected):
        atol, rtol = launch.tolerance(name)
        got, want = out.double(), exp.to(out.device).double()
        unwritten = torch.isnan(got) & ~torch.isnan(want)
        diff = (got - want).abs()
        finite = torch.isfinite(want) & torch.isfinite(got)
        if finite.any():
            worst_abs = max(worst_abs, float(diff[finite].max()))
            worst_rel = max(worst_rel, float((diff[finite] / want[finite].abs().clamp_min(1e-30)).max()))
        bad = ~torch.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        if int(unwritten.sum()):
            problems.append(f"{name}: {int(unwritten.sum())} elements never written")
        elif int(bad.sum()):
            problems.append(
                f"{name}: {int(bad.sum())} of {bad.numel()} elements off (max abs error "
                f"{worst_abs:.3g}, tolerance atol={atol:g} rtol={rtol:g})"
            )
    if problems:
        return Status.WRONG, worst_abs, worst_rel, "; ".join(problems)
    return Status.OK, worst_abs, worst_rel, None


def _one_line(exc: Exception) -> str:
    return exception_line(exc)[:500]  # a measurement's error is stored in the session


def answer(state: MeasureState, handle, config: Config, options: dict[str, Any]) -> Any:
    """One job of a GPU worker: a Measurement (or, for the two jobs below, what they answer).

    ``{"warm_up": True}``: start-up costs, paid early; ``{"autotuner": True}``: the kernel's own
    autotuner (an AutotunerRun, or None). A CUDA fault is raised: it ends the process.
    """
    try:
        if options.get("warm_up"):
            return warm_up(state)
        if options.get(AUTOTUNER):
            return autotune(handle, config, options)
        kernel = frontends.load(handle)
        mark("GPU worker: kernel loaded")
        return measure(state, kernel, config, options)
    except Exception as exc:
        if is_cuda_fault(exc):
            raise
        traceback.print_exc(file=sys.stderr)
        return Measurement(Status.FAILED, error=_one_line(exc))


def serve() -> None:
    """Read ``(handle, config, options)``, write ``answer``'s result, until stdin closes."""
    requests, channel = protocol_channel()
    state = MeasureState()
    mark("GPU worker: up, irscope imported")
    while True:
        try:
            handle, config, options = pickle.load(requests)
        except EOFError:
            return
        try:
            result = answer(state, handle, config, options)
            mark("GPU worker: job answered")
        except Exception as exc:
            # The CUDA context is gone: say why on stderr (the pool reports it) and die.
            print(f"CUDA fault: {_one_line(exc)}", file=sys.stderr, flush=True)
            os._exit(70)
        pickle.dump(result, channel)
        channel.flush()


def check_answer(answer: Measurement | AutotunerRun | None) -> None:
    """A TypeError or ValueError where a measurement (a Ray node's too) holds what its session could not read
    back (a runtime of ``"soon"``, of 0, of 10**400): checked before it is written, as it would be read."""
    if isinstance(answer, Measurement):
        Measurement.from_json(json.loads(json.dumps(answer.to_json())))
    elif isinstance(answer, AutotunerRun):
        AutotunerRun.from_json(json.loads(json.dumps(answer.to_json())))


# A measurement, as every executor runs it: serve() in a worker of this host, answer() in any other process
# that keeps a GPU (a Ray actor); after a CUDA fault that process is replaced.
MEASURE = Work(
    serve="irscope.measure.worker:serve",
    run=answer,
    result=(Measurement, AutotunerRun, type(None)),
    failure=failure,
    check=check_answer,
    new_state=MeasureState,
    fatal=is_cuda_fault,
    gpu=True,
    # torch's import is most of a GPU worker's start-up: imported once, in a parent the workers fork from;
    # and Triton's hash of its own files (0.4 s), which every first JIT launch in a process would compute;
    # and what Triton's first JIT launch and the device's figures import (gluon's 39 modules, the specs).
    preload=(
        "torch",
        "triton",
        "triton.runtime.cache:triton_key",
        "triton.experimental.gluon",
        "triton.profiler.specs",
        "irscope.measure.worker",
        "irscope.measure.hardware",
        "irscope.measure.timing",
        "irscope.measure.l2",
    ),
)
