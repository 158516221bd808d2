"""``irscope tui``: a kernel's (or a session's) variants and every stage of each, in the terminal."""

from __future__ import annotations

from pathlib import Path

import click

from .options import ALL_STAGES, kernel_options


@click.command()
@kernel_options
@click.option("-s", "sweeps", multiple=True, metavar="NAME=V1,V2,...", help="Values to sweep (default: the declared ranges).")
@click.option("-o", "out", type=click.Path(file_okay=False, path_type=Path), help="Keep the variants in this session.")
@click.option("--stage", "stage_name", default="ptx", show_default=True,
              type=click.Choice(ALL_STAGES), help="Stage to open on.")
@click.option("--bench/--no-bench", "with_bench", default=None,
              help="Measure the variants on this GPU in the background (default: when there is a GPU).")
def tui(kernel, assignments, arch, signature, sweeps, out, stage_name, with_bench) -> None:
    """Open KERNEL (or a session directory) in the terminal UI.

    Captures the sweep in the background (cached variants appear at once), shows
    every stage linked to the Python source, annotations, diffs and a chart. Without
    a GPU it compiles for sm_90 (or --arch) and shows the runtimes recorded in samples/.

    \b
    Examples:
      irscope tui square_kernel
      irscope tui matmul_kernel -s num_stages=2,3,4 --arch sm_80
      irscope tui runs/square
    """
    from ..device import gpu_capability
    from ..session import Session, parse_sweep, sweep_configs
    from .target import open_target, overrides

    jobs = []
    from ..inductor.capture import is_inductor_dir

    if is_inductor_dir(kernel):
        from ..inductor.capture import read_index
        from ..tui.model import Model

        index = read_index(kernel)
        sessions = [Session.open(Path(kernel) / k["session"]) for k in index["kernels"] if k.get("session")]
        model = Model.from_sessions(f"Inductor: {index['origin'].get('function') or index['origin'].get('log')}", sessions)
        from ..tui.app import IrscopeApp

        IrscopeApp(model, [], f"{len(sessions)} Inductor kernels", initial_stage=stage_name).run()
        return
    target = open_target(kernel, signature)
    if target.session is not None and not sweeps and not assignments:
        from ..tui.model import Model

        model = Model.from_session(target.session)
        subtitle = f"session {target.session.path}"
    else:
        from ..tui.jobs import bench_job, capture_job
        from ..tui.model import Model

        ref = target.ref if target.ref is not None else open_target(kernel, signature, need_kernel=True).ref
        configs = sweep_configs(target.table, target.name, parse_sweep(sweeps), overrides(assignments))
        session = target.session
        if out is not None:
            session = Session.create(out, ref.identity(), Path(ref.file).read_text(encoding="utf-8"), target.table)
        model = Model(ref.name, configs, session)
        jobs.append(capture_job(ref, configs, arch, session))
        gpu = gpu_capability()
        if (with_bench if with_bench is not None else gpu is not None) and arch is None:
            if gpu is None:
                raise click.UsageError("--bench needs a CUDA GPU")
            jobs.append(bench_job(ref, configs, session))
        where = f"sm_{gpu} (GPU)" if gpu is not None and arch is None else f"{arch or 'sm_90'} (ahead of time, no GPU)" \
            if gpu is None else f"{arch} (ahead of time)"
        subtitle = f"{where} · {len(configs)} variants"
    from ..tui.app import IrscopeApp

    IrscopeApp(model, jobs, subtitle, initial_stage=stage_name).run()
