"""The one way to build the TUI from what ``irscope tui`` is given; the CLI and the tests both start here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..errors import UsageError
from ..types import KernelId
from .app import IrscopeApp
from .model import Model

if TYPE_CHECKING:
    from ..session import Session


def make_app(kernel: str, *, assignments: Sequence[str] = (), sweeps: Sequence[str] = (), arch: str | None = None,
             signature: str | None = None, out: str | Path | None = None, stage: str = "ptx",
             bench: bool | None = None) -> IrscopeApp:
    """An app, ready to run, for KERNEL: a kernel to sweep, a session directory, or an Inductor capture.

    ``assignments`` (``NAME=VALUE``, -c) and ``sweeps`` (``NAME=V1,V2``, -s) pick the configs; a session
    opened with neither shows what it holds. ``out`` keeps the variants in that session directory. ``bench``
    measures them on this GPU in the background (None: when there is one and no ``arch`` was asked for).
    """
    from ..interop.inductor.capture import is_inductor_dir
    from ..interop.run.collect import is_run_dir

    if is_inductor_dir(kernel):
        return _inductor_app(Path(kernel), stage)
    if is_run_dir(kernel):
        return _run_app(Path(kernel), stage)
    from ..cli.target import open_target, overrides
    from ..session import Session, parse_sweep, sweep_configs

    target = open_target(kernel, signature)
    if target.session is not None and not sweeps and not assignments:
        samples = _samples_note(_unmeasured([target.session]))
        return IrscopeApp(Model.from_session(target.session), [], f"session {target.session.path}{samples}",
                          initial_stage=stage)
    from ..device import gpu_capability
    from .jobs import bench_job, capture_job

    ref = target.ref if target.ref is not None else open_target(kernel, signature, need_kernel=True).ref
    configs = sweep_configs(target.table, target.name, parse_sweep(sweeps), overrides(tuple(assignments)))
    session = target.session
    if out is not None:
        session = Session.create(out, ref.identity(), ref.source(), target.table,
                                 signature=ref.handle().extra.get("signature"), frontend=ref.frontend)
    jobs = [capture_job(ref, configs, arch, session)]
    gpu = gpu_capability()
    measured = (bench if bench is not None else gpu is not None) and arch is None
    if measured:
        if gpu is None:
            raise UsageError("--bench needs a CUDA GPU")
        jobs.append(bench_job(ref, configs, session))
    where = f"sm_{gpu} (GPU)" if gpu is not None and arch is None else f"{arch or 'sm_90'} (ahead of time, no GPU)" \
        if gpu is None else f"{arch} (ahead of time)"
    samples = "" if measured else _samples_note([ref.identity()])
    return IrscopeApp(Model(ref.name, configs, session), jobs, f"{where} · {len(configs)} variants{samples}",
                      initial_stage=stage)


def _inductor_app(directory: Path, stage: str) -> IrscopeApp:
    """Every kernel of an Inductor capture, one session each."""
    from ..interop.inductor.capture import read_index
    from ..session import Session

    index = read_index(directory)
    sessions = [Session.open(directory / k["session"]) for k in index["kernels"] if k.get("session")]
    origin = index["origin"].get("function") or index["origin"].get("log")
    return IrscopeApp(Model.from_sessions(f"Inductor: {origin}", sessions), [],
                      f"{len(sessions)} Inductor kernels{_samples_note(_unmeasured(sessions))}",
                      initial_stage=stage)


def _run_app(directory: Path, stage: str) -> IrscopeApp:
    """Every kernel a program compiled (irscope run), ranked by the GPU time the run spent in it."""
    from ..interop.run.collect import read_index
    from ..session import Session

    index = read_index(directory)
    sessions = [Session.open(directory / k["session"]) for k in index["kernels"] if k.get("session")]
    if not sessions:
        raise UsageError(f"{directory}: the run recorded no kernel irscope could keep (see its run.json)")
    program = " ".join(str(c) for c in index.get("command") or [])[:80]
    where = f"on {index['device']}" if index.get("device") else str(index.get("mode") or "")
    return IrscopeApp(Model.from_sessions(f"run: {program}", sessions), [],
                      f"{len(sessions)} kernels of `{program}` {where}, ranked by GPU time",
                      initial_stage=stage)


def _samples_note(kernels: list[KernelId]) -> str:
    """`` · runtimes: H100 80GB HBM3 samples`` where the variants can show recorded runtimes; else nothing."""
    from ..measure.samples import samples_label

    label = samples_label(kernels)
    return f" · runtimes: {label}" if label else ""


def _unmeasured(sessions: Sequence[Session]) -> list[KernelId]:
    """The kernels of sessions with a variant measured on no GPU (only those can show a sample)."""
    return [s.kernel for s in sessions if any(e.measurement is None for e in s.entries)]
