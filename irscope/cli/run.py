"""``irscope run``: run a program as it is and keep every Triton kernel it compiles and launches."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from .output import echo


@click.command(context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})
@click.option(
    "-o",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    help="The run's folder (new or empty). Default: irscope-run-<program>-<time> here.",
)
@click.option(
    "--profile/--no-profile",
    default=True,
    show_default=True,
    help="Profile the run with torch.profiler (GPU time per kernel). Turn off for a program that "
    "runs torch.profiler itself: only one profiler can run.",
)
@click.option("--arch", metavar="SM", help="Without a GPU: compile the recorded kernels for this arch (default sm_90).")
@click.option("--json", "as_json", is_flag=True, help="Print run.json instead of the table.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(out, profile, arch, as_json, command) -> None:
    """Run COMMAND (a Python program) as it is and record every Triton kernel it compiles and launches.

    Nothing in the program changes: irscope starts inside it through Python's
    sitecustomize and listens with Triton's own hooks. Each kernel is kept with
    its source, the JIT's specialization, every config it compiled (an
    autotuner's included, with its timings and pick), the stages the JIT wrote,
    its launches (grid, argument dtypes, shapes, strides) and, on a GPU, its GPU
    time from torch.profiler. The folder holds one session per kernel and
    run.json, ranked by GPU time; open it with `irscope tui DIR`, and sweep,
    diff, bench or annotate DIR/kernels/NAME like any session, on any machine.

    Without a GPU the program runs with a stand-in driver: Triton's launches are
    recorded and skipped, and irscope compiles them ahead of time (no runtimes).
    Only the first Python process records. Exits 1 when the program failed
    (after keeping what it launched).

    \b
    Examples:
      irscope run -- python train.py --steps 10
      irscope run -o runs/bench -- python bench_matmul.py
      irscope tui runs/bench
    """
    from ..arch import DEFAULT_CAPABILITY, parse_arch
    from ..errors import ExitCode, UsageError
    from ..interop.run import RAW
    from ..interop.run.collect import collect
    from ..interop.run.launch import environment, run_program
    from ..nvidia.device import amd_gpu_arch, gpu_capability
    from . import USER_ENVIRONMENT

    # An AMD GPU (ROCm) runs the program as it is too: Triton's HIP backend compiles for it, and the
    # listener records what that JIT wrote. Without either, the stand-in driver answers (NVIDIA's).
    gpu = gpu_capability() or amd_gpu_arch()
    if arch is not None and gpu is not None:
        raise UsageError("--arch is for a machine without a GPU; here the program's own GPU compiles its kernels")
    gpu_free = None if gpu is not None else (parse_arch(arch) if arch else DEFAULT_CAPABILITY)
    if out is None:
        stem = next((Path(c).stem for c in command[1:] if c.endswith(".py")), Path(command[0]).stem)
        out = Path(f"irscope-run-{stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} exists and is not an empty folder; name a new one with -o")
    raw = out / RAW
    try:
        raw.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {raw}: {exc.strerror or exc}") from None

    base = _user_environment(USER_ENVIRONMENT)
    finished = run_program(command, environment(raw, profile=profile, gpu_free_capability=gpu_free, base=base))
    notes: list[str] = []
    index = collect(
        out,
        command=list(command),
        exit_code=finished.exit_code,
        wall_s=finished.wall_s,
        arch=arch,
        on_note=notes.append,
    )
    if as_json:
        echo(json.dumps(index, indent=1, default=str))
    else:
        _print(index, out)
    for line in notes:
        echo(f"irscope: {line}", err=True)
    if finished.exit_code != 0:
        echo(
            f"irscope: the program exited with status {finished.exit_code}; kept what it compiled and "
            f"launched before, in {out}",
            err=True,
        )
        raise SystemExit(int(ExitCode.FAILURE))


def _user_environment(changed: dict[str, str | None]) -> dict[str, str]:
    """This process's environment with what irscope changed for itself (TMPDIR...) put back as the user had it."""
    import os

    env = dict(os.environ)
    for name, value in changed.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _print(written: dict, out: Path) -> None:
    from rich.table import Table

    from ..interop.run.index import RunIndex
    from ..session.table import text
    from .output import table_console

    index = RunIndex.from_json(written, f"{out}/run.json")

    table = Table(box=None, pad_edge=False, header_style="bold")
    numbers = ("variants", "calls", "GPU total ms", "mean us", "% GPU")
    for column in ("kernel", "variants", "calls", "GPU total ms", "mean us", "% GPU", "autotuner pick", "session"):
        numeric = column in numbers
        table.add_column(column, justify="right" if numeric else "left", no_wrap=numeric, overflow="fold")
    for k in index.kernels:
        calls, total = k.gpu_calls, k.gpu_total_us
        launched = sum(v.calls or 0 for v in k.variants)
        picked = next((v.label for v in k.variants if v.picked_by_autotuner), "")
        table.add_row(
            k.name + (" (Inductor)" if k.inductor else ""),
            str(len(k.variants)),
            text(calls or launched or None),
            text(total / 1e3 if total else None),
            text(total / calls if calls and total is not None else None),
            text(k.gpu_share_pct),
            picked,
            k.session or f"(none: {k.why})",
            style=None if k.session else "yellow",
        )
    for o in index.other_gpu_work[:8]:
        name = o.name if len(o.name) <= 48 else o.name[:47] + "…"
        total = o.total_us or 0.0
        table.add_row(
            name,
            "",
            text(o.calls),
            text(total / 1e3),
            text(total / o.calls if o.calls else None),
            text(o.gpu_share_pct),
            "",
            "(not Triton)",
            style="grey50",
        )
    console = table_console(table)
    console.print(table)
    where = f"on {index.device}" if index.device else index.mode
    console.print(
        f"{len(index.kernels)} Triton kernels, {where}, program ran {index.wall_s or 0.0:.1f} s; "
        f"wrote {out}/run.json - open it with: irscope tui {out}",
        style="grey50",
    )
