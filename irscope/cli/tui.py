"""``irscope tui``: a kernel's (or a session's) variants and every stage of each, in the terminal."""

from __future__ import annotations

import gc
from pathlib import Path

import click

from .options import ALL_STAGES, kernel_options, sample_gpu_option


@click.command()
@kernel_options
@sample_gpu_option
@click.option(
    "-s", "sweeps", multiple=True, metavar="NAME=V1,V2,...", help="Values to sweep (default: the declared ranges)."
)
@click.option("-o", "out", type=click.Path(file_okay=False, path_type=Path), help="Keep the variants in this session.")
@click.option(
    "--stage", "stage_name", default="ptx", show_default=True, type=click.Choice(ALL_STAGES), help="Stage to open on."
)
@click.option(
    "--bench/--no-bench",
    "with_bench",
    default=None,
    help="Measure the variants on this GPU in the background (default: when there is a GPU).",
)
@click.pass_context
def tui(ctx, kernel, assignments, arch, signature, sweeps, out, stage_name, with_bench, settings) -> None:
    """Open KERNEL (or a session directory) in the terminal UI.

    Captures the sweep in the background (cached variants appear at once), shows
    every stage linked to the Python source, annotations, diffs and a chart. Without
    a GPU it compiles for sm_90 (or --arch) and shows the runtimes recorded in samples/.

    A damaged variant in a session (a file missing, torn or not a file) shows as
    "damaged" in its row, with why; the other variants stay usable. Exit status: 0
    when you quit. If the TUI itself fails (a bug in irscope), it exits as any
    irscope command does on an internal error: non-zero, with one line on stderr
    (`irscope --debug tui ...` shows the traceback instead).

    \b
    Examples:
      irscope tui square_kernel
      irscope tui matmul_kernel -s num_stages=2,3,4 --arch sm_80
      irscope tui runs/square
    """
    # Starting allocates some 100,000 objects that live as long as the app (textual's modules, a
    # session's index): the collector's passes over them free nothing and cost 0.1-0.2 s of the first
    # paint here (tests/perf/RESULTS.md, bench_scale). So none until the first frame is out, and what
    # was built by then is left out of later passes (gc.freeze) while it runs.
    gc.disable()
    ctx.call_on_close(_collect_again)  # however the command ends
    from ..tui.factory import make_app

    app = make_app(
        kernel,
        assignments=assignments,
        sweeps=sweeps,
        arch=arch,
        signature=signature,
        out=out,
        stage=stage_name,
        bench=with_bench,
        settings=settings,
    )
    app.after_first_paint.append(_collect_from_now_on)
    app.run()
    if app.internal_error is not None:
        raise app.internal_error  # the irscope group says it in one line (the traceback under --debug)
    ctx.exit(app.return_code or 0)


def _collect_from_now_on() -> None:
    gc.freeze()
    gc.enable()


def _collect_again() -> None:
    gc.enable()
    gc.unfreeze()
