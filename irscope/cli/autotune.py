"""``irscope autotune``: what Triton's autotuner timed and picked, from its cache records or its printed log."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .output import echo


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("-k", "kernel", metavar="NAME", help="Only this kernel's decisions.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per decision, one a line.")
def autotune(path, kernel, as_json) -> None:
    """Every config Triton's autotuner timed, what each took and the one it picked (marked *).

    PATH is Triton's cache (~/.triton/cache, $TRITON_CACHE_DIR), where the autotuner keeps
    NAME.autotune.json per kernel and tuning key when cache_results=True or
    TRITON_CACHE_AUTOTUNING=1 (each config's median, 20th and 80th percentile in ms), or a
    file holding a program's output with TRITON_PRINT_AUTOTUNING=1 (the configs it timed
    and its pick: Triton prints no time per config).

    \b
    Examples:
      irscope autotune ~/.triton/cache
      irscope autotune train.log -k matmul_kernel
    """
    from ..errors import KernelNotFound, UsageError
    from ..interop.triton_autotune import read_autotuning

    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    records, skipped = read_autotuning(path)
    if kernel is not None:
        found = sorted({r.kernel for r in records})
        records = [r for r in records if r.kernel == kernel]
        if not records:
            raise KernelNotFound(f"{path} holds no autotuning of {kernel}; it has: {', '.join(found[:20])}")
    for line in skipped[:20]:
        echo(f"irscope: {path.name}: left out {line}", err=True)
    if as_json:
        for r in records:
            echo(
                json.dumps(
                    {
                        "kernel": r.kernel,
                        "key": r.key,
                        "source": r.source,
                        "picked": r.picked,
                        "configs": [{"values": c, "ms": t} for c, t in zip(r.configs, r.timings)],
                    }
                )
            )
        return
    for n, r in enumerate(records):
        if n:
            echo("")
        took = f", tuned in {r.seconds:.2f} s" if r.seconds is not None else ""
        echo(f"{r.kernel} · key {r.key} · {len(r.configs)} configs{took} · {r.source}")
        names = list(dict.fromkeys(k for c in r.configs for k in c))
        timed = any(t is not None for t in r.timings)
        header = [*names, *(["ms (median)", "p20", "p80"] if timed else [])]
        rows = []
        for i, (c, t) in enumerate(zip(r.configs, r.timings)):
            figures = [f"{v:.4f}" for v in (t or ())[:3]] if timed else []
            if timed and t is None:
                figures = ["failed"]
            rows.append(["*" if i == r.picked else " ", *[str(c.get(k, "")) for k in names], *figures])
        widths = [max(len(str(x)) for x in col) for col in zip(["", *header], *rows)]
        echo("  ".join(h.rjust(w) for h, w in zip(["", *header], widths)).rstrip())
        for row in rows:
            echo("  ".join(x.rjust(w) for x, w in zip(row, widths)).rstrip())
        if not timed:
            echo("(Triton prints no time per config: cache_results=True or TRITON_CACHE_AUTOTUNING=1 keeps them)")
