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
from pathlib import Path
from typing import Any

from ..errors import exception_line
from ..types import Config, Status
from .results import Measurement, derived, summarize

DEFAULTS = {"graph": False, "min_time_ms": 100.0, "warmup_ms": 25.0, "seed": 0, "check": True}


def failure(kind: str, message: str) -> Measurement:
    return Measurement(Status.CRASHED if kind == "crashed" else Status.TIMEOUT, error=message)


class _State:
    """What one worker keeps between requests: kernels, inputs and references per size."""

    def __init__(self) -> None:
        self.refs: dict[tuple[str, str], Any] = {}
        self.inputs: dict[tuple, tuple[Any, Any]] = {}
        self.device = None

    def ref(self, file: str, name: str):
        from ..kernel import _kernel_in_file

        key = (file, name)
        if key not in self.refs:
            self.refs[key] = _kernel_in_file(Path(file), name, None)
        return self.refs[key]

    def inputs_for(self, ref, config: Config, seed: int):
        """Example tensors (filled) and the reference outputs, built once per sizes."""
        from ..inputs import example_namespace

        key = (ref.file, ref.name, tuple(sorted(config.sizes.items())), seed)
        if key not in self.inputs:
            if len(self.inputs) > 2:  # keep GPU memory bounded across sizes
                self.inputs.clear()
            ns = example_namespace(ref, config, device="cuda", fill=True, seed=seed)
            expected = ref.spec.reference(ns) if ref.spec.reference is not None else None
            if expected is not None and not isinstance(expected, (tuple, list)):
                expected = (expected,)
            self.inputs[key] = (ns, expected)
        ns, expected = self.inputs[key]
        return ref.spec.namespace(config.values(), {n: getattr(ns, n) for n in ref.spec.tensors}), expected


def measure(state: _State, file: str, name: str, config: Config, options: dict[str, Any]) -> Measurement:
    import torch
    from triton.testing import do_bench, do_bench_cudagraph

    from ..inputs import launch_arguments
    from .hardware import current_device, device_json

    options = {**DEFAULTS, **options}
    if state.device is None:
        state.device = current_device()
    device = state.device
    ref = state.ref(file, name)
    ns, expected = state.inputs_for(ref, config, options["seed"])
    args, kwargs = launch_arguments(ref, config, ns)
    grid = ref.spec.grid(ns)
    outputs = [getattr(ns, n) for n in ref.spec.outputs()]
    for out in outputs:  # poison: an element the kernel never writes cannot pass as correct
        out.fill_(float("nan") if out.dtype.is_floating_point else -1)

    def launch():
        ref.fn[grid](*args, **kwargs)

    info = device_json(device)
    base = Measurement(Status.OK, device=device.name, driver=device.driver, torch=device.torch,
                       triton=device.triton, date=info["date"])
    try:
        from ..capture.compile import _triton_cache_for

        with _triton_cache_for(ref):  # where the capture put this kernel's compiles
            kernel = ref.fn[grid](*args, **kwargs)  # compiles through the JIT
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001
        if _is_cuda_fault(exc):
            raise
        return replace(base, status=Status.FAILED, error=_one_line(exc))
    status, abs_err, rel_err, why = Status.OK, None, None, None
    if options["check"] and expected is not None:
        status, abs_err, rel_err, why = _check(ref, outputs, expected)
    if options["graph"]:
        times = do_bench_cudagraph(launch, rep=options["min_time_ms"], return_mode="all")
        method = f"CUDA graph replays, {options['min_time_ms']:.0f} ms (no L2 flush)"
    else:
        times = do_bench(launch, warmup=options["warmup_ms"], rep=options["min_time_ms"], return_mode="all")
        method = f"CUDA events per call, L2 flushed before each, {options['warmup_ms']:.0f} ms warm-up, " \
                 f"{options['min_time_ms']:.0f} ms of calls"
    stats = summarize(list(times))
    figures = derived(stats["median_us"], ref.spec.bytes_for(config.values()), ref.spec.flops_for(config.values()),
                      device.copy_gbps, device.datasheet_gbps)
    loaded = {"gpu_registers": getattr(kernel, "n_regs", None), "gpu_spills": getattr(kernel, "n_spills", None)}
    return replace(base, status=status, repetitions=len(times), method=method, max_abs_error=abs_err,
                   max_rel_error=rel_err, error=why, extra=loaded, **stats, **figures)


def _check(ref, outputs, expected) -> tuple[Status, float | None, float | None, str | None]:
    import torch

    worst_abs = worst_rel = 0.0
    problems = []
    for name, out, exp in zip(ref.spec.outputs(), outputs, expected):
        atol, rtol = ref.spec.tolerance_for(ref.spec.tensors[name].dtype)
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
    """Read ``(file, name, config, options)``, answer a Measurement, until stdin closes."""
    from ..workers import protocol_channel

    requests, channel = protocol_channel()
    state = _State()
    while True:
        try:
            file, name, config, options = pickle.load(requests)
        except EOFError:
            return
        try:
            result = measure(state, file, name, config, options)
        except Exception as exc:  # noqa: BLE001
            if _is_cuda_fault(exc):
                # The CUDA context is gone: say why on stderr (the pool reports it) and die.
                print(f"CUDA fault: {_one_line(exc)}", file=sys.stderr, flush=True)
                os._exit(70)
            traceback.print_exc(file=sys.stderr)
            result = Measurement(Status.FAILED, error=_one_line(exc))
        pickle.dump(result, channel)
        channel.flush()
