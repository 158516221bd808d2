"""``irscope run``: run a program as it is and keep every Triton kernel it compiles and launches."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import click

from .options import complete_path
from .output import csv_option, echo


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
@click.option(
    "--gpu",
    "gpu_model",
    metavar="MODEL",
    envvar="IRSCOPE_GPU",
    help="Without a GPU: the card the program runs on, as a stand-in (H100, H200, B200, RTX5090, A100, MI300X, "
    "MI355X; MODEL:N for N of them). Its launches compile for that card, and torch.cuda and Triton's driver "
    "answer as it does. Default: an H100 (or the common card of --arch). [env: IRSCOPE_GPU]",
)
@click.option("--arch", metavar="SM", help="Without a GPU: stand in for the common card of this arch (sm_80: an A100).")
@click.option(
    "-k",
    "--kernel-name",
    "kernel",
    metavar="NAME",
    help="Keep only the Triton kernels of this name (regex:PATTERN: those it matches), as ncu's -k; a Helion"
    " kernel by its own name or its Triton name (_helion_NAME).",
)
@click.option(
    "--launch-skip",
    type=click.IntRange(0, 2**62),
    default=0,
    help="Of those kernels' launches, in the program's order, skip the first N (ncu's -s).",
)
@click.option(
    "--launch-count",
    type=click.IntRange(1, 2**62),
    help="Keep only M launches after the skipped ones (ncu's -c); a compile with no launch kept is not kept.",
)
@csv_option
@click.option("--json", "as_json", is_flag=True, help="Print run.json instead of the table.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, shell_complete=complete_path)
def run(out, profile, gpu_model, arch, kernel, launch_skip, launch_count, as_json, command) -> None:
    """Run COMMAND (a Python program) as it is and record every Triton kernel it compiles and launches.

    Nothing in the program changes: irscope starts inside it through Python's
    sitecustomize and listens with Triton's own hooks. Each kernel is kept with
    its source, the JIT's specialization, every config it compiled (an
    autotuner's included, with its timings and pick), the stages the JIT wrote,
    its launches (grid, argument dtypes, shapes, strides) and, on a GPU, its GPU
    time from torch.profiler. The folder holds one session per kernel and
    run.json, ranked by GPU time; open it with `irscope tui DIR`, and sweep,
    diff, bench or annotate DIR/kernels/NAME like any session, on any machine.

    Without a GPU the program runs on a stand-in for the card --gpu names: torch.cuda
    and Triton's driver answer as that card does (so libraries pick the configs they
    pick on it), each launch compiles through Triton's JIT for it and is not run (no
    runtimes). What the stand-in could not answer is listed. Only the first Python
    process records. Exits 1 when the program failed (after keeping what it launched)
    or a kernel it launched could not be recorded (listed with why).

    -k NAME keeps only the Triton kernels of that name, and --launch-skip N
    --launch-count M only the launches of those after the first N, M of them, as
    Nsight Compute's -k/-s/-c: a compile none of whose launches is kept is not kept.

    \b
    Examples:
      irscope run -- python train.py --steps 10
      irscope run -k matmul_kernel --launch-skip 10 --launch-count 1 -- python train.py
      irscope run -o runs/bench -- python bench_matmul.py
      irscope tui runs/bench
    """
    from ..interop.run.launch import check_program

    # First of all, before the recorder's imports and the GPU are asked for, and before its folder is
    # made: a program that cannot start says so at once and leaves nothing to block the rerun.
    check_program(command)
    from ..errors import ExitCode, UsageError

    if kernel and kernel.startswith("regex:"):
        import re

        try:
            re.compile(kernel[len("regex:") :])
        except re.error as exc:
            raise UsageError(f"-k {kernel}: not a regular expression ({exc})") from None
    from ..interop.run import RAW
    from ..interop.run.collect import collect
    from ..interop.run.launch import environment, run_program
    from ..nvidia.device import amd_gpu_arch, gpu_capability
    from . import USER_ENVIRONMENT

    # An AMD GPU (ROCm) runs the program as it is too: Triton's HIP backend compiles for it, and the
    # listener records what that JIT wrote. Without either, the stand-in driver answers (NVIDIA's).
    gpu = gpu_capability() or amd_gpu_arch()
    given = click.get_current_context().get_parameter_source("gpu_model") == click.core.ParameterSource.COMMANDLINE
    if (arch is not None or (gpu_model and given)) and gpu is not None:
        raise UsageError(
            f"{'--arch' if arch else '--gpu'} is for a machine without a GPU; here the program's own GPU compiles "
            "its kernels"
        )
    stand_in = None if gpu is not None else _stand_in(gpu_model, arch)
    if out is None:
        stem = next((Path(c).stem for c in command[1:] if c.endswith(".py")), Path(command[0]).stem)
        out = Path(f"irscope-run-{stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} exists and is not an empty folder; name a new one with -o")
    raw = out / RAW
    created = not out.exists()
    try:
        raw.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {raw}: {exc.strerror or exc}") from None

    base = _user_environment(USER_ENVIRONMENT)
    env = environment(
        raw,
        profile=profile,
        stand_in=stand_in,
        base=base,
        kernel=kernel,
        launch_skip=launch_skip,
        launch_count=launch_count,
    )
    try:
        finished = run_program(command, env)
    except UsageError:  # it never started: nothing was recorded, and the folder would refuse the rerun
        shutil.rmtree(raw if not created else out, ignore_errors=True)
        raise
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
    _say_stand_in(index)
    lost = index.get("not_recorded") or []
    for item in lost:
        echo(f"irscope: {item['kernel']} ({item['file']}) was launched but not recorded: {item['why']}", err=True)
    if finished.exit_code != 0:
        echo(
            f"irscope: the program exited with status {finished.exit_code}; kept what it compiled and "
            f"launched before, in {out}",
            err=True,
        )
        raise SystemExit(int(ExitCode.FAILURE))
    if lost:
        echo(f"irscope: {len(lost)} launched kernel(s) not recorded (listed above); the rest are in {out}", err=True)
        raise SystemExit(int(ExitCode.FAILURE))


def _stand_in(gpu_model: str | None, arch: str | None):
    """The card a program without a GPU runs on: --gpu's, else the common card of --arch, else an H100."""
    from ..arch import DEFAULT_CAPABILITY, is_amd, normalise_arch, parse_amd_arch, parse_arch
    from ..errors import UsageError
    from ..gpu_models import gpu_for_arch, parse_gpu

    if gpu_model:
        choice = parse_gpu(gpu_model)
        if arch is not None and normalise_arch(arch) != choice.model.arch:
            raise UsageError(f"--arch {arch} is not the arch of {choice.model.name} ({choice.model.arch}); give one")
        return choice
    if arch is None:
        return gpu_for_arch(DEFAULT_CAPABILITY)
    return gpu_for_arch(parse_amd_arch(arch) if is_amd(arch) else parse_arch(arch))


def _say_stand_in(index: dict) -> None:
    """Which card stood in, and each probe of the program it could not answer as that card would."""
    stand_in = index.get("stand_in")
    if not stand_in:
        return
    unanswered = stand_in.get("unanswered") or {}
    echo(
        f"irscope: no GPU here: the program ran on a stand-in {stand_in.get('name')} ({stand_in.get('arch')})"
        + (
            f"; it asked {len(unanswered)} thing(s) the stand-in cannot answer as that card would:"
            if unanswered
            else ""
        ),
        err=True,
    )
    for probe, why in unanswered.items():
        echo(f"irscope:   {probe}: {why}", err=True)


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
    from .output import print_table

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
    console = print_table(table)
    where = f"on {index.device}" if index.device else index.mode
    counted = _counted(index.kernels)
    console.print(
        f"{counted}, {where}, program ran {index.wall_s or 0.0:.1f} s; "
        f"wrote {out}/run.json - open it with: irscope tui {out}",
        style="grey50",
    )


def _counted(kernels) -> str:
    """Each language's kernels by its row's frontend, the most first (ties as the table lists them):
    ``2 Triton kernels, 1 Helion kernel, 1 Gluon kernel``. A row without one (run.json before rows named
    every language) is Triton's JIT's; one naming no language irscope knows (damaged) is "other"."""
    from ..frontends import FRONTENDS, frontend_info
    from ..types import plural

    counts: dict[str, int] = {}
    for k in kernels:
        counts[k.frontend or "triton"] = counts.get(k.frontend or "triton", 0) + 1
    if not counts:
        return plural(0, "Triton kernel")
    ranked = sorted(counts, key=lambda name: -counts[name])  # stable: ties keep the table's order
    return ", ".join(
        plural(counts[name], f"{frontend_info(name).display_name if name in FRONTENDS else 'other'} kernel")
        for name in ranked
    )
