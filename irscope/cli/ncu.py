"""``irscope ncu``: where a kernel's time goes, per SASS line and per Python line, from Nsight Compute."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from .options import kernel_options
from .output import echo


@click.command()
@kernel_options
@click.option(
    "--report",
    "report",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An Nsight Compute report (.ncu-rep) of KERNEL's variant, read with Nsight Compute's ncu_report "
    "module. Default: the counters `irscope bench --ncu -o SESSION` kept for the variant.",
)
@click.option("--top", default=12, show_default=True, type=click.IntRange(min=1), help="SASS lines to show.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def ncu(kernel, assignments, arch, signature, report, top, as_json, settings) -> None:
    """The hottest SASS instructions of KERNEL's variant, each with its Python line and why warps stall there.

    Nsight Compute samples where warps are and counts what each instruction executes
    (its SourceCounters section); irscope joins those to its own SASS listing by
    instruction offset and, through the source map, to the kernel's Python lines.

    \b
    Examples:
      irscope bench square_kernel -s BLOCK_SIZE=128,1024 --ncu -o runs/square   # on a GPU: a report per variant
      irscope ncu runs/square -c BLOCK_SIZE=1024                               # anywhere
      irscope ncu square_kernel --report square.ncu-rep --arch sm_90           # a report made elsewhere
    """
    from ..annotating.hotspots import hot_lines, matched, python_line_shares, to_json
    from ..errors import UsageError
    from .options import open_named, overrides

    named = open_named(kernel, settings, signature)
    variant = named.variant(overrides(assignments), arch)
    counters = _counters(named, variant, report)
    hit, total = matched(variant, counters)
    if total and hit < total:
        raise UsageError(
            f"the report's instructions are not this variant's SASS ({hit} of {total} offsets match): "
            "profile the same config and arch"
        )
    hot = hot_lines(variant, counters)
    shares = python_line_shares(hot)
    if as_json:
        echo(
            json.dumps(
                {
                    "kernel": counters.name,
                    "config": variant.config.label(),
                    "arch": variant.arch,
                    "metrics": counters.metrics,
                    "hot_sass": to_json(hot[:top]),
                    "python_lines": {str(k): round(v, 4) for k, v in shares.items()},
                },
                indent=1,
            )
        )
    else:
        _print(counters, variant, hot, shares, top)


def _counters(named, variant, report):
    """The variant's Nsight Compute counters: from the report named, else the ones its session kept."""
    from ..errors import UsageError
    from ..measure.ncu_report import read_report, session_counters

    if report is not None:
        if not report.is_file():
            raise UsageError(f"no such report: {report}")
        kernels = [k for k in read_report(report) if k.name == variant.kernel.name] or read_report(report)
        if not kernels:
            raise UsageError(f"{report}: no profiled kernel")
        return kernels[0]
    if named.session is None:
        raise UsageError("give --report FILE.ncu-rep, or a session that `irscope bench --ncu -o` wrote")
    entry = named.session.find(variant.config, variant.arch)
    stored = session_counters(named.session.path, entry.id) if entry is not None else None
    if stored is None:
        raise UsageError(
            f"{named.session.path}: no Nsight Compute counters for {variant.config.label()} "
            "(bench it with --ncu on a GPU, where Nsight Compute is installed)"
        )
    return stored


def _print(counters, variant, hot, shares, top: int) -> None:
    from ..types import Stage

    m = counters.metrics
    figures = [
        f"{m['gpu_time_us']:.2f} us" if "gpu_time_us" in m else None,
        f"DRAM {m['dram_pct']:.0f}%" if "dram_pct" in m else None,
        f"SM {m['sm_pct']:.0f}%" if "sm_pct" in m else None,
        f"occupancy {m['occupancy_pct']:.0f}%" if "occupancy_pct" in m else None,
        f"{m['registers']:.0f} registers" if "registers" in m else None,
    ]
    echo(f"{counters.name} {variant.config.label()} · {variant.arch}: " + ", ".join(f for f in figures if f))
    python = variant.listings.get(Stage.SOURCE, "").splitlines()
    echo("\nwhere warps are (share of samples), by Python line")
    for line, share in list(shares.items())[:top]:
        text = python[line - 1].strip() if 0 < line <= len(python) else ""
        echo(f"  {100 * share:5.1f}%  line {line:<4} {text[:70]}")
    echo("\nhottest SASS instructions (share of samples, SASS line, instruction, Python line, top stall reasons)")
    for h in hot[:top]:
        stalls = ", ".join(f"{k} {v:.0f}" for k, v in list(h.stalls.items())[:2])
        where = f"line {h.python_line}" if h.python_line else "no line"
        echo(f"  {100 * h.share:5.1f}%  {h.index + 1:>5}  {h.text[:60]:60}  {where:9} {stalls}")
    reasons: Counter[str] = Counter()
    for h in hot:
        reasons.update(h.stalls)
    words = [f"  {reason}: {STALL_WORDS[reason]}" for reason, _ in reasons.most_common(3) if reason in STALL_WORDS]
    if words:
        echo("\nthe commonest stall reasons (Nsight Compute's warp states)")
        echo("\n".join(words))


# Nsight Compute's warp-state names, in plain words (Kernel Profiling Guide, "Warp Scheduler States")
STALL_WORDS = {
    "long_scoreboard": "waiting for the result of a global or local memory load (L1TEX)",
    "short_scoreboard": "waiting for shared memory or a special-function result (MIO)",
    "barrier": "waiting at a block-wide barrier for the other warps",
    "membar": "waiting on a memory fence",
    "mio_throttle": "the shared-memory / special-function instruction queue is full",
    "lg_throttle": "the global/local memory instruction queue is full",
    "tex_throttle": "the texture unit's queue is full",
    "drain": "waiting at exit for its memory writes to drain",
    "wait": "a fixed-latency dependency (a few cycles)",
    "math_pipe_throttle": "the math pipe it needs is busy",
    "not_selected": "ready, but another warp was picked",
    "selected": "issuing",
    "no_instructions": "waiting for instructions (an instruction cache miss or a branch)",
    "branch_resolving": "waiting for a branch target to be computed",
    "dispatch_stall": "the dispatcher could not issue",
    "imc_miss": "waiting for an immediate constant cache miss",
    "sleeping": "asleep (nanosleep) or waiting on a warp-level barrier",
    "misc": "miscellaneous hardware reasons",
}
