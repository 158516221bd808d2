"""Bench a sweep on the GPU: capture each variant, then check and time it in a worker process.

A generator of results like ``run_sweep``: the CLI and the TUI drive it the same
way, and every measurement is in the session before it is yielded. Each GPU of
the host gets one worker process (``CUDA_VISIBLE_DEVICES`` set to it), fed from
one queue, so variants spread over the GPUs; each result names its GPU. A worker
is replaced after a fault or a timeout, so a kernel that faults or hangs costs
only its own row.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..arch import is_amd
from ..capturing.pipeline import DEFAULT_COMPILE_TIMEOUT
from ..errors import NoGpu, UsageError, exception_line
from ..frontends import Kernel, compiler_version
from ..nvidia.device import gpu_capability, visible_gpus
from ..processes.executors import Executor
from ..processes.executors.local import LocalExecutor
from ..processes.timeline import mark
from ..records import Measurement
from ..session import Session
from ..session.sweep import run_sweep
from ..types import Config, Stage, Status, Variant

DEFAULT_TIMEOUT = 300.0  # seconds per variant, compile included
WARM_UP = "warm-up"  # the tag of a worker's start-up job (worker.warm_up), not a variant


@dataclass
class GpuWorkers:
    """Measurement workers, started before the kernel is known so their start-up overlaps finding and compiling it.

    A GPU worker's start-up (import torch, CUDA's context, CUPTI's first session, the L2 sweep) is the
    longest step of a short bench; nothing in it depends on the kernel (tests/perf/probe_cli_timeline.py).
    """

    pool: Any
    count: int
    closed: bool = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            mark("closing the GPU workers")
            self.pool.close()
            mark("GPU workers closed")


def start_gpu_workers(
    executor: Executor | None = None, gpus: Sequence[str] | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> GpuWorkers:
    """One warming worker per GPU (``gpus``: host ids; default every visible one; Ray: the cluster's)."""
    from .worker import MEASURE

    mark("GPU worker module imported")
    executor = executor or LocalExecutor()
    gpus = list(gpus) if gpus is not None else [] if executor.remote else visible_gpus()
    count = executor.gpu_count(len(gpus))
    pool = executor.pool(MEASURE, count, timeout=timeout, envs=[{"CUDA_VISIBLE_DEVICES": g} for g in gpus])
    for _ in range(count):
        pool.submit(WARM_UP, (None, None, {"warm_up": True}))
    mark(f"{count} GPU worker(s) asked to warm up")
    return GpuWorkers(pool, count)


@dataclass(frozen=True)
class BenchResult:
    index: int
    variant: Variant
    measurement: Measurement


def require_gpu(command: str = "bench") -> int:
    capability = gpu_capability()
    if capability is None:
        raise NoGpu(
            f"irscope {command} needs a CUDA GPU and none was found on this machine; the other commands show "
            "runtimes recorded on real GPUs (samples/) where kernel, config and arch match"
        )
    return capability


def not_measured_for(arch: str) -> str | None:
    """Why variants for ``arch`` are never timed here, where that is its vendor (None: they may be).

    Timing launches through CUDA (CUPTI, events, graphs). An AMD variant's HSACO is kept with it, so a
    ROCm device could be measured behind this seam; until one is, AMD runtimes are not measured.
    """
    if is_amd(arch):
        return f"runtimes are measured on NVIDIA GPUs only: {arch} variants are compiled ahead of time, never run"
    return None


def bench(
    kernel: Kernel,
    configs: Sequence[Config],
    session: Session | None = None,
    *,
    method: str = "cupti",
    ncu: bool = False,
    min_time_ms: float = 100.0,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int | None = None,
    cancel: threading.Event | None = None,
    on_note=None,
    on_autotuner=None,
    gpus: Sequence[str] | None = None,
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT,
    launch_stored_cubins: bool = False,
    executor: Executor | None = None,
    workers: GpuWorkers | None = None,
) -> Iterator[BenchResult]:
    """Capture, check and time every config of ``kernel`` on this machine's GPUs, in completion order.

    ``method``: cupti, events or graph (measure/timing.py). ``gpus``: the host ids of the GPUs
    to use (default: every visible one). ``on_autotuner``: where the kernel has an autotuner of
    its own, it is run once after the measurements, in a worker, and its ``AutotunerRun`` (what
    it timed and picked, or its error) is handed to this callable and kept in the session as
    ``"autotuner"``; without it, or for any other kernel, nothing more runs. ``compile_timeout``: as
    ``capture_many``'s. ``launch_stored_cubins``: another Triton's variant read back (from the session or
    the cache) is launched from its stored cubin; else only one compiled in this run is.
    ``executor``: where compiles and measurements run (``executors``; default: this host's
    workers, one per GPU); Ray's measures on every GPU of its cluster, ``gpus`` and ``ncu`` are this host's.
    ``workers``: started ahead by ``start_gpu_workers`` with the same executor and gpus; closed here.
    """
    from .autotuner import autotuner_job

    try:
        executor = executor or LocalExecutor()
        executor.check_kernel(kernel)
        if executor.remote and (gpus is not None or ncu):
            raise UsageError("--gpus and --ncu use this host's GPUs: they go with the local executor")
        if not executor.remote:
            require_gpu()
    except BaseException:
        if workers is not None:
            workers.close()
        raise
    options = {"method": method, "min_time_ms": min_time_ms}
    if kernel.compiles_here:
        if workers is not None:
            workers.close()  # no worker can import a cell's kernel: it is measured in this process
        yield from _bench_here(kernel, configs, session, options, cancel, on_note)
        return
    if workers is None:  # CUDA, CUPTI and the copy rate start up while the variants compile
        workers = start_gpu_workers(executor, gpus, timeout=timeout)
    pool = workers.pool
    variants: dict[int, Variant] = {}
    entries: dict[int, Any] = {}
    done: list[BenchResult] = []
    try:
        for result in run_sweep(
            kernel,
            configs,
            None,
            session,
            jobs=jobs,
            cancel=cancel,
            compile_timeout=compile_timeout,
            executor=executor,
        ):
            variants[result.index] = result.variant
            entries[result.index] = result.entry
            mark(f"variant {result.index} compiled")
            binary, unlaunchable = _other_triton(result.variant)
            if binary is not None and result.reused and not launch_stored_cubins:
                # A cubin read back from a session or the cache is GPU code from a file: run only on the user's say-so.
                binary, unlaunchable = (
                    None,
                    (
                        f"not timed: compiled by {result.variant.frontend} {compiler_version(result.variant.frontend, result.variant.config.options)} and read back "
                        "with its cubin; bench --launch-stored-cubins runs a stored cubin (a session you made)"
                    ),
                )
            if result.variant.ok and unlaunchable is None:
                pool.submit(result.index, (kernel.handle(), result.variant.config, {**options, "binary": binary}))
            else:
                m = Measurement(Status.FAILED, error=unlaunchable or str(result.variant.error))
                done.append(BenchResult(result.index, result.variant, m))
                yield done[-1]
            yield from _collect(pool, variants, entries, session, done, wait=0.0)
            if cancel is not None and cancel.is_set():
                return
        while pool.outstanding:
            if cancel is not None and cancel.is_set():
                return
            yield from _collect(pool, variants, entries, session, done, wait=0.2)
        job = autotuner_job(kernel, configs) if on_autotuner is not None else None
        if job is not None:
            run = _run_autotuner(pool, job, cancel)
            if run is not None:
                if session is not None:
                    session.keep_autotuner(run)
                    session.save()
                on_autotuner(run)
    finally:
        workers.close()
    if ncu and not (cancel is not None and cancel.is_set()):
        yield from _add_ncu(kernel, done, entries, session, on_note)


def _bench_here(kernel: Kernel, configs, session, options, cancel, on_note) -> Iterator[BenchResult]:
    """Capture and time a kernel no worker can load (one defined in a notebook cell), in this process.

    The same checks and timing as a GPU worker's (worker.measure), one variant after another on this
    process's GPU; a CUDA fault here cannot be contained by restarting a worker, so it ends the bench.
    """
    from .faults import is_cuda_fault
    from .worker import MeasureState, measure

    if on_note is not None:
        on_note(f"{kernel.name} is defined in this process: measured here, on one GPU, one variant at a time")
    state = MeasureState()
    for result in run_sweep(kernel, configs, None, session, cancel=cancel, compile_timeout=None):
        if not result.variant.ok:
            m = Measurement(Status.FAILED, error=str(result.variant.error))
        else:
            try:
                m = measure(state, kernel, result.variant.config, options)
            except Exception as exc:
                if is_cuda_fault(exc):
                    raise
                m = Measurement(Status.FAILED, error=exception_line(exc))
        _keep(session, result.entry, m)
        yield BenchResult(result.index, result.variant, m)
        if cancel is not None and cancel.is_set():
            return


def _other_triton(variant: Variant) -> tuple[dict[str, Any] | None, str | None]:
    """``(binary, None)`` for a variant another Triton compiled, ``(None, why)`` if it cannot launch; else both None.

    The worker's JIT is the running Triton's and would time its own compile: another version's
    variant is launched from its own cubin (``Kernel.launch_binary``), in the same worker, on the
    same inputs.
    """
    version = compiler_version(variant.frontend, variant.config.options)
    if version is None or not variant.ok:
        return None, None
    import triton

    if version == triton.__version__:
        return None, None
    if variant.cubin is None or Stage.PTX not in variant.listings:
        return None, f"not timed: the triton {version} variant kept no cubin to launch"
    info = variant.compile_info
    if info is None:
        return None, f"not timed: the triton {version} variant kept no compile record to launch it from"
    binary = {
        "cubin": variant.cubin,
        "ptx": variant.listings[Stage.PTX],
        "signature": dict(info.signature),
        "shared": variant.resources.shared if variant.resources else 0,
        "num_warps": info.options.get("num_warps", 4),
        "num_ctas": info.options.get("num_ctas", 1),
    }
    return binary, None


def _keep(session: Session | None, entry: Any, measurement: Measurement) -> None:
    """Store ``measurement`` in the variant's session entry, where there is a session."""
    if session is not None and entry is not None:
        entry.measurement = measurement
        session.update(entry)


def _collect(pool, variants, entries, session, done, wait: float) -> Iterator[BenchResult]:
    for index, measurement in pool.results(timeout=wait):
        mark(f"variant {index} measured" if index != WARM_UP else "a GPU worker is warm")
        if index == WARM_UP:
            continue
        _keep(session, entries.get(index), measurement)
        done.append(BenchResult(index, variants[index], measurement))
        yield done[-1]


def _run_autotuner(pool, job: tuple, cancel: threading.Event | None):
    """The autotuner's run, in whichever worker is free (every measurement is in by now)."""
    from .autotuner import AUTOTUNER, as_run

    pool.submit(AUTOTUNER, job)
    while pool.outstanding:
        if cancel is not None and cancel.is_set():
            return None
        for tag, result in pool.results(timeout=0.2):
            if tag == AUTOTUNER:
                return as_run(result)
    return None


def _add_ncu(kernel: Kernel, done: list[BenchResult], entries, session, on_note) -> Iterator[BenchResult]:
    """Results again, now with ncu figures (a caller keeps the latest result per index)."""
    from .ncu import function_name, ncu_path, profile

    runnable = [r for r in done if r.measurement.status in (Status.OK, Status.WRONG)]
    if not runnable:
        return
    if ncu_path() is None:
        if on_note:
            on_note("ncu (Nsight Compute) is not installed here: no ncu figures")
        return
    try:
        figures = profile(
            kernel.handle(), [r.variant.config for r in runnable], [function_name(r.variant) for r in runnable]
        )
    except Exception as exc:
        if on_note:
            on_note(f"ncu failed, no ncu figures: {exc}")
        return
    said: set[str] = set()  # notes said once per bench, not once per variant
    for r, ncu_figures in zip(runnable, figures):
        if ncu_figures is None:
            continue
        keep: dict[str, Any] = {
            k: ncu_figures[k] for k in ("gpu_time_us", "dram_pct", "occupancy_pct", "registers") if k in ncu_figures
        }
        entry = entries.get(r.index)
        if session is not None and entry is not None:
            keep.update(_save_report(kernel, r.variant, session.path / "ncu" / entry.id, on_note, said))
        updated = replace(r.measurement, ncu=keep)
        _keep(session, entry, updated)
        yield BenchResult(r.index, r.variant, updated)


def _save_report(kernel: Kernel, variant: Variant, stem, on_note, said: set[str]) -> dict[str, str]:
    """The variant's Nsight Compute report (``ncu/<id>.ncu-rep``) and, where NVIDIA's ncu_report module is
    here, its per-instruction counters as JSON beside it (read anywhere later). Returns their names."""
    import json

    from ..storage.files import atomic_write, own_folder, replaceable
    from .ncu import function_name, save_report
    from .ncu_report import NcuReportUnavailable, read_report

    try:
        own_folder(stem.parent)  # ncu -f writes through whatever is there: a link is refused first
        replaceable(stem.with_suffix(".ncu-rep"))
        report = save_report(kernel.handle(), variant.config, function_name(variant), stem.with_suffix(".ncu-rep"))
    except Exception as exc:
        if on_note:
            on_note(f"{variant.config.label()}: no ncu report: {exc}")
        return {}
    saved = {"report": report.name}
    try:
        kernels = read_report(report)
    except NcuReportUnavailable as exc:
        if on_note and "ncu_report" not in said:
            said.add("ncu_report")
            on_note(f"{exc}: reports saved, per-instruction counters not read")
        return saved
    except Exception as exc:
        if on_note:
            on_note(f"{variant.config.label()}: ncu report not read: {exc}")
        return saved
    if kernels:
        counters = stem.with_suffix(".counters.json")
        atomic_write(counters, json.dumps(kernels[0].to_json(), indent=1))
        saved["counters"] = counters.name
    return saved
