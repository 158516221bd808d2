"""``irscope compare``: one operation written several ways (Triton, CUDA C++, Numba, torch.compile), side by side."""

from __future__ import annotations

import json
from typing import Any

import click

from .options import complete_path, milliseconds
from .output import echo


@click.command()
@click.argument("kernels", nargs=-1, required=True, shell_complete=complete_path)
@click.option(
    "-c",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set a parameter in every implementation that has it (sizes such as n=4194304). Repeatable.",
)
@click.option(
    "--signature",
    "-S",
    "signatures",
    multiple=True,
    metavar="KERNEL=TYPES",
    help="Argument types of one of KERNELS (as written there) that declares no inputs: a CuTe DSL kernel's "
    "-S, a Triton file's. Repeatable.",
)
@click.option("--arch", metavar="SM", help="Compile for this arch (default: this machine's GPU, else sm_90).")
@click.option(
    "--bench/--no-bench",
    "with_bench",
    default=None,
    help="Check and time each implementation on this GPU (default: when there is one).",
)
@click.option(
    "--torch/--no-torch",
    "with_torch",
    default=True,
    show_default=True,
    help="With --bench, also time the first kernel's torch reference, eager and through torch.compile.",
)
@click.option(
    "--method",
    type=click.Choice(["cupti", "events", "graph"]),
    default="cupti",
    show_default=True,
    help="How to time (as for bench).",
)
@click.option(
    "--min-time",
    "min_time_ms",
    type=milliseconds(),
    default=100.0,
    show_default=True,
    help="Milliseconds of timed calls per implementation.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the table as one JSON object.")
def compare(kernels, assignments, signatures, arch, with_bench, with_torch, method, min_time_ms, as_json) -> None:
    """Compare implementations of one operation: KERNELS in any language irscope compiles.

    One row per implementation: registers, spills, shared memory, PTX and SASS
    instruction counts and the global loads and stores by width (bytes per thread
    per access) from each one's own compile, and on a GPU the runtime of each on
    the same sizes, timed the same way as bench, with the spec's PyTorch reference
    eager and through torch.compile beside them. Each kernel uses its own default
    config; -c sets a parameter wherever an implementation has one.

    \b
    Examples:
      irscope compare gelu_kernel gelu_tanh_kernel gelu_numba_kernel
      irscope compare square_kernel square_matrix_kernel square_numba_kernel -c fast_math=true
      irscope compare examples/row_sum.py:row_sum_kernel examples/cute_kernels.py:row_sum \\
          -S "examples/cute_kernels.py:row_sum=float32[4096,1024]:16, float32[4096]"
    """
    from ..capturing import choose_target
    from ..errors import ExitCode
    from ..frontends.config import parse_assignments
    from ..nvidia.device import gpu_capability
    from ..types import Status

    target = choose_target(arch)
    rows = _captured(kernels, parse_assignments(assignments), target.arch, _signatures(signatures, kernels))
    if with_bench is None:
        with_bench = gpu_capability() is not None
    if with_bench:
        rows += _measured(rows, with_torch, method, min_time_ms)
    if as_json:
        echo(json.dumps({"arch": target.arch, "rows": [_row_json(r) for r in rows]}, indent=2))
    else:
        _print(rows, target.arch)
    bad = [
        r
        for r in rows
        if (r["variant"] is not None and r["variant"].status is not Status.OK)
        or (r["measurement"] is not None and r["measurement"].status is not Status.OK)
    ]
    if bad:
        raise click.exceptions.Exit(int(ExitCode.FAILURE))


def _signatures(given: tuple[str, ...], kernels: tuple[str, ...]) -> dict[str, str]:
    """``-S KERNEL=TYPES`` words -> ``{KERNEL: TYPES}``; a KERNEL not among ``kernels`` is a usage error."""
    from ..errors import UsageError

    out = {}
    for word in given:
        name, sep, types = word.partition("=")
        if not sep or name not in kernels or not types.strip():
            raise UsageError(f"-S {word!r}: give KERNEL=TYPES, KERNEL one of {', '.join(kernels)} as written there")
        out[name] = types
    return out


def _captured(kernels, given: dict[str, Any], arch: str, signatures: dict[str, str]) -> list[dict[str, Any]]:
    """One row per kernel: its default config (with the -c values it has a parameter for), compiled for ``arch``."""
    from ..capturing import capture
    from ..diffing.compare import implementation_label, structure
    from ..frontends import frontend_info
    from ..types import Status
    from .options import open_named

    rows: list[dict[str, Any]] = []
    for name in kernels:
        named = open_named(name, signature=signatures.get(name))
        kernel = named.require_kernel()
        config = named.config({k: v for k, v in given.items() if k in named.table})
        variant = capture(kernel, config=config, arch=arch, compile_timeout=named.compile_timeout)
        rows.append(
            {
                "implementation": implementation_label(frontend_info(kernel.frontend).display_name, kernel.name),
                "kernel": kernel,
                "config": config,
                "variant": variant,
                "structure": structure(variant) if variant.status is Status.OK else None,
                "measurement": None,
            }
        )
    return rows


def _measured(rows: list[dict[str, Any]], with_torch: bool, method: str, min_time_ms: float) -> list[dict[str, Any]]:
    """Each launchable row timed on this GPU (its ``measurement`` set), and rows of the PyTorch references."""
    from ..errors import UsageError
    from ..measure.compare import measure_all

    launchable = [(i, r) for i, r in enumerate(rows) if r["kernel"].can_launch and r["structure"] is not None]
    if not launchable:
        raise UsageError("none of the kernels declares example inputs to run them with (a KernelSpec or CudaSpec)")
    references = ("eager", "torch.compile") if with_torch else ()
    jobs = [(r["kernel"], r["config"]) for _, r in launchable]
    extra = []
    for tag, m in measure_all(jobs, references, method=method, min_time_ms=min_time_ms):
        if isinstance(tag, int):
            rows[launchable[tag][0]]["measurement"] = m
        else:
            extra.append(
                {
                    "implementation": f"PyTorch {tag}" if tag == "eager" else tag,
                    "kernel": None,
                    "config": launchable[0][1]["config"],
                    "variant": None,
                    "structure": None,
                    "measurement": m,
                }
            )
    extra.sort(key=lambda r: r["implementation"] != "PyTorch eager")
    return extra


def _row_json(row) -> dict:
    v, m, s = row["variant"], row["measurement"], row["structure"]
    out = {"implementation": row["implementation"], "config": row["config"].to_json()}
    if v is not None:
        out["status"] = v.status.value
        if v.error:
            out["error"] = str(v.error)
    if s is not None:
        out["structure"] = s.to_json()
    if m is not None:
        out["measurement"] = {
            "status": m.status.value,
            "median_us": m.median_us,
            "p20_us": m.p20_us,
            "p80_us": m.p80_us,
            "gbps": m.gbps,
            "pct_copy": m.pct_copy,
            "method": m.timing,
            "device": m.device,
            "gpu_kernels": m.extra.get("gpu_kernels"),
            "error": m.error,
            "max_abs_error": m.max_abs_error,
        }
    return out


def _print(rows, arch) -> None:
    from ..diffing.compare import widths

    timed = any(r["measurement"] is not None for r in rows)
    head = f"{'implementation':34s} {'regs':>4s} {'spill':>5s} {'PTX':>5s} {'SASS':>5s}  {'global loads':14s} {'global stores':14s}"
    clustered = any(r["structure"] is not None and r["structure"].cluster for r in rows)
    if clustered:  # a column only where a row is a cluster launch
        head += f" {'cluster':>7s}"
    if timed:
        head += f" {'median us':>10s} {'GB/s':>7s} {'% copy':>7s}"
    echo(f"compiled for {arch}" + ("; timed on this GPU (cupti unless --method)" if timed else ""))
    echo(head)
    for r in rows:
        s, m = r["structure"], r["measurement"]
        if s is not None:
            line = (
                f"{r['implementation']:34s} {_count(s.registers, 4)} {_count(s.spills, 5)} "
                f"{_count(s.ptx_instructions, 5)} {_count(s.sass_instructions, 5)}  "
                f"{widths(s.loads):14s} {widths(s.stores):14s}"
            )
        elif r["variant"] is not None:
            line = f"{r['implementation']:34s} {r['variant'].status.value}: {r['variant'].error}"
        else:
            line = f"{r['implementation']:34s} {'':4s} {'':5s} {'':5s} {'':5s}  {'':14s} {'':14s}"
        if clustered:
            line += f" {(s.cluster if s is not None else None) or '—':>7s}"
        if m is not None:
            if m.status.value == "ok":
                line += f" {m.median_us:10.2f} {m.gbps or 0:7.0f} {m.pct_copy or 0:6.1f}%"
            else:
                line += f" {m.status.value}: {m.error}"
            names = m.extra.get("gpu_kernels") or []
            if r["kernel"] is None and names:
                line += "  [" + ", ".join(n[:40] for n in names) + "]"
        echo(line.rstrip())


def _count(value: int | None, width: int) -> str:
    """A count right-aligned in ``width``; ``-`` where it is unknown, never 0: a CuTe DSL or TileLang compile asks
    ptxas for no report, so its spills are unknown (its registers come from the cubin), where Triton's are known
    from the ``ptxas -v`` report its compile keeps (``knobs.nvidia.dump_ptxas_log``)."""
    return f"{'-' if value is None else value:>{width}}"
