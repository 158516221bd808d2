"""The measurement worker: one GPU process that checks, then times, one variant per request.

Correctness first: outputs are poisoned (NaN) before the launch, compared with the
kernel's torch reference on the same inputs, and a mismatch or an unwritten
element makes the variant WRONG. Then timing, with ``triton.testing.do_bench``:
CUDA events around each call, warm-up, the L2 cache flushed before every timed
call, and as many repetitions as fill ``min_time_ms``; or, in graph mode, with
``do_bench_cudagraph``, which replays the launches from a CUDA graph so the CPU's
launch overhead drops out (for tiny kernels, where it dominates; it does not
flush L2).

A CUDA fault poisons the process's context, so on one the worker prints the
error and exits: the pool reports the variant CRASHED and starts a fresh worker.
"""

from __future__ import annotations

import os
import pickle
import sys
import traceback
from dataclasses import replace
from typing import Any

from ..errors import exception_line
from ..types import Config, Status
from ..records import Measurement
from .results import derived, summarize

DEFAULTS = {"graph": False, "min_time_ms": 100.0, "warmup_ms": 25.0, "seed": 0, "check": True}


def failure(kind: str, message: str) -> Measurement:
    return Measurement(Status.CRASHED if kind == "crashed" else Status.TIMEOUT, error=message)


class _State:
    """What one worker keeps between requests besides its kernels (frontends.load keeps those)."""

    def __init__(self) -> None:
        self.device = None


def measure(state: _State, handle, config: Config, options: dict[str, Any]) -> Measurement:
    import torch
    from triton.testing import do_bench, do_bench_cudagraph

    from .. import frontends
    from .hardware import current_device, device_json

    options = {**DEFAULTS, **options}
    if state.device is None:
        state.device = current_device()
    device = state.device
    launch = frontends.load(handle).launch(config, device="cuda", seed=options["seed"])
    for out in launch.outputs.values():  # poison: an element the kernel never writes cannot pass as correct
        out.fill_(float("nan") if out.dtype.is_floating_point else -1)

    info = device_json(device)
    base = Measurement(Status.OK, device=device.name, driver=device.driver, torch=device.torch,
                       triton=device.triton, date=info["date"])
    try:
        kernel = launch.first()
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001
        if _is_cuda_fault(exc):
            raise
        return replace(base, status=Status.FAILED, error=_one_line(exc))
    status, abs_err, rel_err, why = Status.OK, None, None, None
    if options["check"] and launch.expected is not None:
        status, abs_err, rel_err, why = _check(launch)
    if options["graph"]:
        times = do_bench_cudagraph(launch.run, rep=options["min_time_ms"], return_mode="all")
        method = f"CUDA graph replays, {options['min_time_ms']:.0f} ms (no L2 flush)"
    else:
        times = do_bench(launch.run, warmup=options["warmup_ms"], rep=options["min_time_ms"], return_mode="all")
        method = f"CUDA events per call, L2 flushed before each, {options['warmup_ms']:.0f} ms warm-up, " \
                 f"{options['min_time_ms']:.0f} ms of calls"
    stats = summarize(list(times))
    figures = derived(stats["median_us"], launch.bytes_moved, launch.flops, device.copy_gbps, device.datasheet_gbps)
    loaded = {"gpu_registers": getattr(kernel, "n_regs", None), "gpu_spills": getattr(kernel, "n_spills", None)}
    return replace(base, status=status, repetitions=len(times), method=method, max_abs_error=abs_err,
                   max_rel_error=rel_err, error=why, extra=loaded, **stats, **figures)


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
            problems.append(f"{name}: {int(bad.sum())} of {bad.numel()} elements off (max abs error "
                            f"{worst_abs:.3g}, tolerance atol={atol:g} rtol={rtol:g})")
    if problems:
        return Status.WRONG, worst_abs, worst_rel, "; ".join(problems)
    return Status.OK, worst_abs, worst_rel, None


def _is_cuda_fault(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(s in text for s in ("illegal memory access", "illegal address", "unspecified launch failure",
                                   "misaligned address", "an illegal instruction", "device-side assert"))


def _one_line(exc: Exception) -> str:
    return exception_line(exc)[:500]  # a measurement's error is stored in the session


def serve() -> None:
    """Read ``(handle, config, options)``, answer a Measurement, until stdin closes."""
    from ..workers import protocol_channel

    requests, channel = protocol_channel()
    state = _State()
    while True:
        try:
            handle, config, options = pickle.load(requests)
        except EOFError:
            return
        try:
            result = measure(state, handle, config, options)
        except Exception as exc:  # noqa: BLE001
            if _is_cuda_fault(exc):
                # The CUDA context is gone: say why on stderr (the pool reports it) and die.
                print(f"CUDA fault: {_one_line(exc)}", file=sys.stderr, flush=True)
                os._exit(70)
            traceback.print_exc(file=sys.stderr)
            result = Measurement(Status.FAILED, error=_one_line(exc))
        pickle.dump(result, channel)
        channel.flush()
