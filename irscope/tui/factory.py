"""The one way to build the TUI from what ``irscope tui`` is given; the CLI and the tests both start here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..arch import vendor_of
from ..errors import UsageError
from ..processes.workers import DEFAULT_COMPILE_TIMEOUT
from ..types import KernelId
from .app import IrscopeApp
from .model import Model

if TYPE_CHECKING:
    from ..named import Settings
    from ..session import Session


def make_app(
    kernel: str,
    *,
    assignments: Sequence[str] = (),
    sweeps: Sequence[str] = (),
    arch: str | None = None,
    signature: str | None = None,
    out: str | Path | None = None,
    stage: str = "ptx",
    bench: bool | None = None,
    spec_file: str | None = None,
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT,
    sample_gpu: str | None = None,
    settings: Settings | None = None,
) -> IrscopeApp:
    """An app, ready to run, for KERNEL: a kernel to sweep, a session directory, an Inductor capture or a run.

    KERNEL is resolved by the front door (``irscope.named``), as every command resolves it.
    ``assignments`` (``NAME=VALUE``, -c) and ``sweeps`` (``NAME=V1,V2``, -s) pick the configs; a session
    opened with neither shows what it holds. ``out`` keeps the variants in that session directory. ``bench``
    measures them on this GPU in the background (None: when there is one and no ``arch`` was asked for).
    ``spec_file``, ``compile_timeout`` and ``sample_gpu``: as the commands' ``--spec``, ``--compile-timeout`` and
    ``--sample-gpu``; ``settings``: all of them as a command was given them (``named.Settings``).
    """
    from ..frontends.config import parse_assignments, parse_sweep
    from ..named import open_named

    if settings is not None:
        spec_file, compile_timeout, sample_gpu = settings.spec_file, settings.compile_timeout, settings.sample_gpu
    named = open_named(kernel, signature=signature, spec_file=spec_file, several=True, compile_timeout=compile_timeout)
    if named.sessions:
        return IrscopeApp(
            Model.from_sessions(named.title, named.sessions, sample_gpu),
            [],
            f"{named.about}{_samples_note(_unmeasured(named.sessions), sample_gpu)}",
            initial_stage=stage,
        )
    if named.session is not None and not sweeps and not assignments:
        samples = _samples_note(_unmeasured([named.session]), sample_gpu)
        return IrscopeApp(
            Model.from_session(named.session, sample_gpu),
            [],
            f"session {named.session.path}{samples}",
            initial_stage=stage,
        )
    from ..nvidia.device import gpu_capability
    from ..session import Session
    from .jobs import bench_job, capture_job

    compiled = named.require_kernel(signature)
    configs = named.configs(parse_sweep(sweeps), parse_assignments(assignments))
    session = named.session
    if out is not None:
        session = Session.of_kernel(out, compiled, named.table)
    jobs = [capture_job(compiled, configs, arch, session, compile_timeout)]
    gpu = gpu_capability()
    measured = (bench if bench is not None else gpu is not None) and arch is None
    if measured:
        if gpu is None:
            raise UsageError("--bench needs a CUDA GPU")
        jobs.append(bench_job(compiled, configs, session, compile_timeout))
    where = (
        f"sm_{gpu} (GPU)"
        if gpu is not None and arch is None
        else f"{arch or 'sm_90'} (ahead of time, no GPU)"
        if gpu is None
        else f"{arch} (ahead of time)"
    )
    samples = "" if measured else _samples_note([compiled.identity()], sample_gpu)
    return IrscopeApp(
        Model(compiled.name, configs, session, sample_gpu),
        jobs,
        f"{where} · {len(configs)} variants{samples}",
        initial_stage=stage,
        vendors={vendor_of(arch).value} if arch else None,
    )


def _samples_note(kernels: list[KernelId], sample_gpu: str | None) -> str:
    """`` · runtimes: H100 80GB HBM3 samples`` where the variants can show recorded runtimes; else nothing."""
    from ..measure.samples import samples_label

    label = samples_label(kernels, sample_gpu)
    return f" · runtimes: {label}" if label else ""


def _unmeasured(sessions: Sequence[Session]) -> list[KernelId]:
    """The kernels of sessions with a variant measured on no GPU (only those can show a sample)."""
    return [s.kernel for s in sessions if any(e.measurement is None for e in s.entries)]
