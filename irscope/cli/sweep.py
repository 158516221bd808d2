"""``irscope sweep``: capture every configuration of a sweep, into a session if asked."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..types import plural
from .options import MAX_JOBS, executor_options, kernel_options, sample_gpu_option
from .output import csv_option, echo


@click.command()
@kernel_options
@sample_gpu_option
@click.option(
    "-s",
    "sweeps",
    multiple=True,
    metavar="NAME=V1,V2,...",
    help="Values to sweep for NAME (repeatable). Default: the sweep ranges the kernel declares.",
)
@click.option(
    "-o", "out", type=click.Path(file_okay=False, path_type=Path), help="Session directory to write (or resume)."
)
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), help="Compile processes (default: one per core)."
)
@csv_option
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON lines instead.")
@click.option(
    "--bench", "with_bench", is_flag=True, help="Also check and time every variant on this GPU (see irscope bench)."
)
@click.option("--ncu", "with_ncu", is_flag=True, help="With --bench: also profile with Nsight Compute.")
@click.option(
    "--passes",
    "with_passes",
    is_flag=True,
    help="Also keep every compiler pass of each variant (Triton; see irscope passes).",
)
@executor_options
def sweep(
    kernel, assignments, arch, signature, sweeps, out, jobs, as_json, with_bench, with_ncu, with_passes, settings
) -> None:
    """Capture the cartesian product of -s values of KERNEL and print a table.

    KERNEL may also be a session directory: the sweep that made it is resumed
    (or, with -s/-c, a new one is added to it); so does -o naming an existing
    session without -s/-c. A tritonparse trace (trace.ndjson[.gz|.zst][:kernel]) is
    swept from its recorded source, into -o only. Triton's cache or dump folder
    (FOLDER[:kernel]) keeps no source: its compiles are listed, nothing compiled. Variants that failed for a reason outside the kernel
    (a full disk, a timeout) are compiled again. Exits 1 when a variant failed
    (after the table), so a script can tell.

    \b
    Examples:
      irscope sweep square_kernel -o runs/square
      irscope sweep square_kernel -s BLOCK_SIZE=256,1024 -s num_warps=4,8 -c n_cols=1024
    """
    from ..errors import UsageError
    from ..named import configs_of, plan
    from .options import open_named

    named = open_named(kernel, settings, signature)
    if named.held_only and not sweeps and not assignments and out is None and not with_bench:
        _print_held(named, as_json)  # Triton's cache or dump folder: its compiles, as Triton wrote them
        return
    named.require_kernel(signature if signature is not None else getattr(settings, "signature", None))
    request, stored = _request(named, out, sweeps, assignments, arch)
    arch = arch or request.arch
    configs = configs_of(named, request.fixed, request.sweep, whole_space=True, stored=stored)
    if with_bench and with_passes:
        raise UsageError("--passes goes with a sweep that compiles; run it before --bench")
    if with_bench and arch is not None:  # refused before a session is written
        from ..measure.bench import not_measured_for

        raise UsageError(not_measured_for(arch) or "--bench runs on this machine's GPU; --arch does not apply")
    # Ray missing or unreachable: refused before a session is written
    todo = plan(named, settings, configs=configs, out=out)
    if todo.session is not None and named.trace is not None and out is None:
        todo.session = None  # a trace's session is the trace's, read only: new variants go only to -o
    if todo.session is not None:
        todo.session.keep_request(request)
        todo.session.save()
    if with_bench:
        _bench(todo, jobs, with_ncu, as_json)
    else:
        _capture(todo, arch, jobs, with_passes, as_json)


def _request(named, out, sweeps, assignments, arch):
    """The sweep asked for, and whether it was read from a session (``irscope sweep SESSION``, or ``FILE:NAME -o
    SESSION``, without -s/-c: resume the sweep that made it; a bad value there fails its variant, not the sweep)."""
    from ..frontends.config import parse_sweep
    from ..session import Session
    from ..session.header import SweepRequest
    from .options import overrides

    session = named.session if named.trace is None else None  # a trace's session is the trace's, read only
    resumed = session if session is not None else Session.open(out) if out and Session.is_session(out) else None
    if resumed is not None and not sweeps and not assignments:
        stored = resumed.request
        if stored is not None:
            return stored, True
    return SweepRequest(parse_sweep(sweeps), overrides(assignments), arch), False


def _bench(todo, jobs, with_ncu, as_json) -> None:
    from ..measure.bench import bench as run_bench
    from .bench import exit_if_any_failed, print_bench_table
    from .progress import Phases

    latest = {}
    runs = run_bench(
        todo.kernel,
        todo.configs,
        todo.session,
        compile_timeout=todo.named.compile_timeout,
        ncu=with_ncu,
        jobs=jobs,
        executor=todo.executor,
    )
    for result in Phases(quiet=as_json).counted(runs, len(todo.configs), "capturing", detail=todo.executor.per_node):
        latest[result.index] = result
    rows = [latest[i] for i in sorted(latest)]
    print_bench_table(rows)
    exit_if_any_failed(rows)


def _capture(todo, arch, jobs, with_passes, as_json) -> None:
    from ..errors import ExitCode
    from ..session import run_sweep
    from .progress import Phases

    session, results = todo.session, []
    captures = run_sweep(
        todo.kernel,
        todo.configs,
        arch,
        session,
        jobs=jobs,
        passes=with_passes,
        compile_timeout=todo.named.compile_timeout,
        executor=todo.executor,
    )
    try:
        for result in Phases(quiet=as_json).counted(
            captures, len(todo.configs), "capturing", detail=todo.executor.per_node
        ):
            results.append(result)
    except KeyboardInterrupt:
        where = f"; saved in {session.path}, run again to resume" if session else ""
        echo(f"irscope: interrupted after {len(results)} of {len(todo.configs)} variants{where}", err=True)
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
    _print_table(sorted(results, key=lambda r: r.index), todo.kernel.identity(), as_json, todo.settings.sample_gpu)
    failed = sum(not r.ok for r in results)
    where = f" into {session.path}" if session else ""
    echo(
        f"{plural(len(results), 'variant')}{where}: {len(results) - failed} ok, {failed} failed, "
        f"{sum(r.reused for r in results)} reused",
        err=True,
    )
    if failed:
        raise SystemExit(int(ExitCode.FAILURE))


def _print_held(named, as_json: bool) -> None:
    """The variants a session holds, as a sweep's table, compiling nothing."""
    from types import SimpleNamespace

    session = named.session
    held = [SimpleNamespace(entry=e, variant=None, index=i) for i, e in enumerate(session.entries)]
    _print_table(held, session.kernel, as_json)
    echo(f"{len(held)} variants held in {named.trace} (nothing compiled)", err=True)


def _print_table(results, kernel, as_json: bool, sample_gpu: str | None = None) -> None:
    from dataclasses import replace

    from ..measure.runtimes import shown_measurement
    from ..session.store import Entry
    from ..session.table import FACT_COLUMNS, RUNTIME_COLUMNS, cell, note, shown, text, varying

    entries = []  # copies that carry the runtime shown: a session's entries keep only what was measured into them
    for r in results:  # from the index where the session has the variant: its files are not read
        entry = r.entry or Entry.of(r.variant)
        entries.append(
            replace(entry, measurement=shown_measurement(kernel, entry.config, entry.arch, entry, sample_gpu))
        )
    columns = shown(FACT_COLUMNS, (e.arch for e in entries))
    columns += RUNTIME_COLUMNS if any(e.measurement for e in entries) else []
    names = varying(entries)
    if as_json:
        for e in entries:
            echo(
                json.dumps(
                    {
                        **{n: cell(e, n) for n in names},
                        **{c.key: cell(e, c.key) for c in columns},
                        "arch": e.arch,
                        "note": note(e),
                    }
                )
            )
        return
    from rich.table import Table

    from .output import print_table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in names:
        table.add_column(name, justify="right", no_wrap=True)
    for column in columns:
        table.add_column(column.title, justify="right" if column.numeric else "left", no_wrap=True)
    table.add_column("note", overflow="fold")  # the one column that gives way on a narrow terminal
    for e in entries:
        style = None if e.status.value == "ok" else "red"
        table.add_row(
            *[text(cell(e, n)) for n in names], *[text(cell(e, c.key)) for c in columns], note(e), style=style
        )
    print_table(table)
