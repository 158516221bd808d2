"""``irscope bench``: check and time each variant on the GPU, and show how close it runs to the hardware."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..types import plural
from .options import executor_options, kernel_options, milliseconds, seconds
from .output import csv_option, echo


@click.command()
@kernel_options
@click.option(
    "-s",
    "sweeps",
    multiple=True,
    metavar="NAME=V1,V2,...",
    help="Values to sweep (default: -c values only; an autotuned kernel: its autotuner's configs).",
)
@click.option(
    "-o", "out", type=click.Path(file_okay=False, path_type=Path), help="Session directory to write (or resume)."
)
@click.option(
    "--ncu", "with_ncu", is_flag=True, help="Also profile each variant with Nsight Compute (--clock-control none)."
)
@click.option(
    "--method",
    type=click.Choice(["cupti", "events", "graph"]),
    default="cupti",
    show_default=True,
    help="cupti: the GPU's own kernel durations (L2 swept clean before each launch); events: CUDA events "
    "around each call (includes launch overhead); graph: CUDA-graph replays (no launch overhead, "
    "no L2 flush).",
)
@click.option("--graph", is_flag=True, hidden=True, help="Same as --method graph.")
@click.option("--gpus", metavar="IDS", help="GPUs to spread the variants over, e.g. 0,1 (default: every visible GPU).")
@click.option(
    "--min-time",
    "min_time_ms",
    type=milliseconds(),
    default=100.0,
    show_default=True,
    help="Milliseconds of timed calls per variant.",
)
@click.option(
    "--timeout", type=seconds(), default=300.0, show_default=True, help="Seconds per variant before it counts as hung."
)
@click.option(
    "--launch-stored-cubins",
    is_flag=True,
    help="Time the variants another Triton compiled from the cubins a session stores (a cubin is GPU code: "
    "only for a session you made). Without it, only the ones compiled in this run are timed.",
)
@csv_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per variant.")
@executor_options
def bench(
    kernel,
    assignments,
    arch,
    signature,
    sweeps,
    out,
    with_ncu,
    method,
    graph,
    gpus,
    min_time_ms,
    timeout,
    launch_stored_cubins,
    as_json,
    settings,
) -> None:
    """Check KERNEL's variants against the torch reference, then time them on this GPU.

    Correctness first: a variant whose output does not match is WRONG and never
    ranked. Timing (--method): by default each kernel's own GPU duration from CUPTI,
    L2 swept clean before every launch, enough launches to fill --min-time; median
    with p20/p80 and min, GB/s, and "% copy": a device-to-device copy of the same
    bytes, timed the same way, as a percentage of the variant's time (the memory
    roof at this size); compute-bound kernels show % of the fp16 tensor peak. Each
    GPU of the host gets a worker; a fault or a hang marks a variant CRASHED or
    TIMEOUT and the sweep goes on. Exits 1 when a variant was not OK (after the
    table), so a script can tell.

    \b
    Examples:
      irscope bench square_kernel -s BLOCK_SIZE=128,1024,8192
      irscope bench square_kernel -c n_rows=65536 -c n_cols=1024 --ncu -o runs/square-big
    """
    from ..errors import UsageError
    from ..frontends.config import parse_sweep
    from ..measure.bench import require_gpu, start_gpu_workers
    from ..named import plan
    from ..processes.timeline import mark
    from .options import open_named, overrides

    mark("bench command starts")
    runner = settings.runner()  # Ray missing or unreachable: refused before anything is compiled
    if not runner.remote:
        require_gpu()  # Ray's GPUs are the cluster's: bench asks it for them
        mark("GPU found")
    if arch is not None:
        raise UsageError("bench runs on this machine's GPU; --arch does not apply")
    if runner.remote and (gpus is not None or with_ncu):
        raise UsageError("--gpus and --ncu use this host's GPUs: they go with the local executor")
    # The GPU workers start up (torch, CUDA, CUPTI) while the kernel is found and compiled.
    workers = start_gpu_workers(runner, _gpus(gpus), timeout=timeout)
    try:
        named = open_named(kernel, settings, signature, need_kernel=True)
        mark("kernel resolved")
        kernel_to_time = named.require_kernel(signature)
        if not kernel_to_time.can_launch:
            raise UsageError(kernel_to_time.no_launch_reason())
        # One rule for which configs (named.configs_of): an autotuned kernel's own, as sweep and irscope.bench.
        todo = plan(named, settings, fixed=overrides(assignments), sweeps=parse_sweep(sweeps), out=out, executor=runner)
        options = {
            "method": "graph" if graph else method,
            "ncu": with_ncu,
            "min_time_ms": min_time_ms,
            "timeout": timeout,
            "gpus": _gpus(gpus),
            "launch_stored_cubins": launch_stored_cubins,
        }
        latest, notes, autotuner = _measure(todo, workers, options, as_json)
        _report(latest, notes, autotuner, as_json)
    finally:
        workers.close()


def _measure(todo, workers, options, as_json):
    """Run the bench: each variant's latest result, the notes it made, and the kernel's own autotuner's run."""
    from ..errors import ExitCode
    from ..measure.bench import bench as run_bench

    latest, notes, tuned = {}, [], []
    try:
        for result in run_bench(
            todo.kernel,
            todo.configs,
            todo.session,
            compile_timeout=todo.named.compile_timeout,
            on_note=notes.append,
            on_autotuner=tuned.append,
            executor=todo.executor,
            workers=workers,
            **options,
        ):
            latest[result.index] = result
            if not as_json:
                m = result.measurement
                echo(f"  {result.variant.config.label()}: {m.status.value} {m.label()}", err=True)
    except KeyboardInterrupt:
        echo(f"irscope: interrupted after {len(latest)} of {len(todo.configs)} variants", err=True)
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
    if todo.executor.per_node():
        echo(f"irscope: {todo.executor.per_node()}", err=True)
    autotuner = tuned[0] if tuned else None
    if autotuner is not None and autotuner.error:
        notes.append(f"Triton's autotuner could not be run, so only irscope's timings are shown: {autotuner.error}")
        autotuner = None
    return latest, notes, autotuner


def _report(latest, notes, autotuner, as_json) -> None:
    """The notes, then the table (or JSON lines); exit 1 when a variant was not OK."""
    from ..processes import resident
    from ..processes.timeline import mark

    if resident.STARTED:
        notes.append(
            f"GPU workers now fork from a process kept {resident.keep_seconds():.0f} s after its last use "
            f"(pid {resident.STARTED[0]}; torch imported, no CUDA): the next bench starts at once; "
            f"{resident.KEEP_ENV}=0 keeps none"
        )
    for note in notes:
        echo(f"irscope: note: {note}", err=True)
    rows = [latest[i] for i in sorted(latest)]
    if as_json:
        for r in rows:
            record = {"config": r.variant.config.to_json(), "arch": r.variant.arch, **r.measurement.to_json()}
            echo(json.dumps({**record, **_autotuner_json(autotuner, r)}, default=str))
    else:
        mark("bench table made")
        print_bench_table(rows, autotuner)
    mark("bench table printed")
    exit_if_any_failed(rows)


def _gpus(text: str | None) -> list[str] | None:
    from ..errors import ParameterError
    from ..nvidia.device import visible_gpus

    if text is None:
        return None
    wanted = [g.strip() for g in text.split(",") if g.strip()]
    known = visible_gpus()
    unknown = [g for g in wanted if g not in known]
    if not wanted or unknown:
        raise ParameterError(f"--gpus {text!r}: this machine's GPUs are {', '.join(known) or 'none'}")
    return wanted


def exit_if_any_failed(rows) -> None:
    """Exit 1 (ExitCode.FAILURE) with a line saying why when any variant was not OK."""
    from collections import Counter

    from ..errors import ExitCode
    from ..types import Status

    bad = Counter(r.measurement.status.value for r in rows if r.measurement.status is not Status.OK)
    if bad:
        kinds = ", ".join(f"{n} {status}" for status, n in sorted(bad.items()))
        echo(f"{sum(bad.values())} of {plural(len(rows), 'variant')} not ok: {kinds}", err=True)
        raise SystemExit(int(ExitCode.FAILURE))


def print_bench_table(rows, autotuner=None) -> None:
    """The table, with an ``autotuner ms`` column and its pick beneath where the kernel's autotuner ran."""
    from rich.table import Table

    from ..session.store import Entry, variant_facts
    from ..session.table import text, varying
    from .output import print_table

    entries = [
        Entry(
            "",
            r.variant.config,
            r.variant.arch,
            r.measurement.status,
            r.measurement.error,
            variant_facts(r.variant),
            r.measurement,
        )
        for r in rows
    ]
    names = varying(entries)
    ranked = [r for r in rows if r.measurement.ranked]
    best = min(ranked, key=lambda r: r.measurement.median_us) if ranked else None
    table = Table(box=None, pad_edge=False, header_style="bold")
    gpus = {r.measurement.gpu_index for r in rows if r.measurement.gpu_index is not None}
    tuned = ["autotuner ms"] if autotuner is not None and autotuner.configs else []
    for column in _columns(names, tuned, len(gpus) > 1):
        table.add_column(column, justify="left" if column in ("status", "note") else "right", no_wrap=column != "note")
    for r, e in zip(rows, entries):
        m = r.measurement
        ncu = m.ncu or {}
        spread = f"{m.p20_us:.1f}-{m.p80_us:.1f}" if m.p20_us is not None else "—"
        style = "bold green" if r is best else (None if m.status.value == "ok" else "red")
        table.add_row(
            *[text(e.value(n) if n != "arch" else e.arch) for n in names],
            m.status.value,
            text(m.median_us),
            spread,
            text(m.min_us),
            *([_tuned_cell(autotuner, r)] if tuned else []),
            text(m.gbps),
            text(m.pct_copy),
            text(m.tflops),
            _bound(m),
            text(e.facts.registers),
            text(ncu.get("gpu_time_us")),
            text(ncu.get("dram_pct")),
            text(ncu.get("occupancy_pct")),
            *([text(m.gpu_index)] if len(gpus) > 1 else []),
            (m.error or _kernels(m))[:80],
            style=style,
        )
    console = print_table(table)
    if autotuner is not None:
        for line in autotuner_lines(autotuner, rows):
            console.print(line, markup=False, highlight=False)
    if rows and rows[0].measurement.device:
        console.print(_machine_line(rows))


def _columns(names: list[str], tuned: list[str], several_gpus: bool) -> list[str]:
    return [
        *names,
        "status",
        "median us",
        "p20-p80 us",
        "min us",
        *tuned,
        "GB/s",
        "% copy",
        "TFLOP/s",
        "bound",
        "regs",
        "ncu us",
        "dram %",
        "occ %",
        *(["gpu"] if several_gpus else []),
        "note",
    ]


def _machine_line(rows) -> str:
    """Where the table was measured: the GPU, its driver, torch and Triton, the date, the method."""
    m = rows[0].measurement
    ceiling = (
        f" · 1 GiB copy: best at {max(r.measurement.pct_ceiling or 0 for r in rows):.0f}%"
        if any(r.measurement.pct_ceiling for r in rows)
        else ""
    )
    return f"{m.device} · driver {m.driver} · torch {m.torch} · triton {m.triton} · {m.date} · {m.method}{ceiling}"


def _tuned_cell(run, row) -> str:
    """The autotuner's figure for the config this row is: ``*`` marks its pick."""
    i = run.index_of(row.variant.config)
    if i is None:
        return "—"
    c = run.configs[i]
    figure = "pruned" if c.pruned else "failed" if c.failed else "—" if c.ms is None else f"{c.ms:.4g}"
    return figure + (" *" if i == run.picked else "")


def autotuner_lines(run, rows) -> list[str]:
    """What the kernel's autotuner picked, against irscope's fastest of the configs it timed, in words."""
    pick = run.pick
    if pick is None:
        return ["Triton's autotuner picked no config irscope could name"]
    if not run.benchmarked:
        if any(c.pruned for c in run.configs):  # Triton 3.8 on: a prune that keeps one times nothing
            return [
                f"prune_configs_by kept one config, {pick.label()}, which Triton's autotuner takes without timing it"
            ]
        return [f"Triton's autotuner has one config, {pick.label()}, which it takes without timing it"]
    took = f", in {run.seconds:.1f} s" if run.seconds is not None else ""
    lines = [
        f"* Triton's autotuner picked {pick.label()}: {_figure(pick)}{took}",
        f"  (ranked by its {run.ranked_by}: {run.method})",
    ]
    own: dict[int, Any] = {}  # the autotuner's config -> irscope's row of it, where irscope timed it correctly
    for r in rows:
        i = run.index_of(r.variant.config)
        if i is not None and r.measurement.ranked:
            own.setdefault(i, r)
    us = {i: r.measurement.median_us for i, r in own.items()}
    fastest_of_all = min(us, key=lambda i: us[i], default=None)
    if fastest_of_all is not None and run.configs[fastest_of_all].pruned:
        lines.append(
            f"irscope's fastest, {run.configs[fastest_of_all].label()} ({us[fastest_of_all]:.1f} us), is "
            "one prune_configs_by drops: the autotuner never times it"
        )
    timed = {i: t for i, t in us.items() if run.configs[i].ms is not None}
    if not timed:
        return lines + ["irscope timed none of the configs the autotuner timed correctly: nothing to compare"]
    fastest = min(timed, key=lambda i: timed[i])
    if fastest == run.picked:
        return lines + [
            (
                f"irscope agrees: its fastest of the configs the autotuner timed is the same, "
                f"{timed[fastest]:.1f} us median GPU time"
            )
        ]
    at_pick = f"{timed[run.picked]:.1f} us" if run.picked in timed else "no correct timing"
    return lines + [
        f"irscope disagrees: it ranks {run.configs[fastest].label()} first, the autotuner {pick.label()}",
        (
            f"  irscope's median GPU time: {timed[fastest]:.1f} us against {at_pick}; the autotuner's: "
            f"{_figure(run.configs[fastest])} against {_figure(pick)}"
        ),
        "  (the autotuner's CUDA events include launch overhead, so small differences are expected)",
    ]


def _figure(c) -> str:
    if c.pruned:
        return "pruned, not timed"
    return "failed" if c.failed else "not timed" if c.ms is None else f"{c.ms:.4g} ms"


def _autotuner_json(run, row) -> dict:
    """A --json row's autotuner figures, where the row is one of its configs."""
    i = None if run is None else run.index_of(row.variant.config)
    if i is None:
        return {}
    c = run.configs[i]
    return {
        "autotuner": {
            "ms": c.ms,
            "timings": list(c.timings),
            "pruned": c.pruned,
            "failed": c.failed,
            "picked": i == run.picked,
        }
    }


def _bound(m) -> str:
    """Which roof applies, and how close: compute-bound kernels against the tensor peak."""
    if m.bound == "compute" and m.pct_flops is not None:
        return f"compute {m.pct_flops:.0f}%"
    return m.bound or "—"


def _kernels(m) -> str:
    """A launch of several GPU kernels: each one's median."""
    return " + ".join(f"{k['name'][:24]} {k['median_us']:.1f}" for k in (m.kernels or []))
