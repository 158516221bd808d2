"""``irscope check``: a kernel regression gate for CI, against a baseline (a session or a committed file)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from ..types import plural
from .options import MAX_JOBS, STAGE_CHOICES, Bounded, kernel_options
from .output import csv_option, echo

BOUND = re.compile(r"(\+?)(\d{1,10})")
IGNORABLE = ("spills", "occupancy", "access-width", "findings", "baseline")


class BoundType(click.ParamType):
    """``N`` (at most N) or ``+N`` (at most the baseline's plus N)."""

    name = "N|+N"

    def convert(self, value, param, ctx):
        from ..checking.conditions import MAX_BOUND, Bound

        if isinstance(value, Bound):
            return value
        m = BOUND.fullmatch(str(value).strip())
        if m is None or int(m[2]) > MAX_BOUND:
            self.fail(f"{value!r} is not N or +N (a whole number up to {MAX_BOUND})", param, ctx)
        return Bound(int(m[2]), relative=bool(m[1]))


@click.command()
@kernel_options
@click.option("-s", "sweeps", multiple=True, metavar="NAME=V1,V2,...", help="Check every combination (as sweep).")
@click.option(
    "--baseline",
    metavar="PATH",
    type=click.Path(path_type=Path),
    help="What to compare with: a session directory, or a file --write-baseline wrote.",
)
@click.option(
    "--write-baseline",
    "write_to",
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the variants' facts to FILE (JSON, to commit) instead of checking.",
)
@click.option("--max-registers", type=BoundType(), help="Fail above N registers per thread (+N: above baseline+N).")
@click.option("--max-spills", type=BoundType(), help="Fail above N bytes spilled (default with a baseline: +0).")
@click.option("--max-shared", type=BoundType(), help="Fail above N bytes of shared memory per block (+N: relative).")
@click.option(
    "--unchanged",
    multiple=True,
    type=click.Choice(STAGE_CHOICES),
    help="Fail on any change to this stage's normalised listing (repeatable).",
)
@click.option(
    "--runtime-tolerance",
    metavar="PCT",
    type=Bounded(min=0, max=1000),
    help="On a GPU: fail when a variant is more than PCT%% slower than the baseline's (skipped without one). "
    "With --write-baseline on a GPU: time the variants, so the file holds their runtimes.",
)
@click.option("--ignore", multiple=True, type=click.Choice(IGNORABLE), help="Leave out a condition a baseline sets.")
@csv_option
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as one JSON object.")
@click.option("--junit", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML.")
@click.option("--github", is_flag=True, help="Also print GitHub workflow annotations (::error) for each failure.")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), help="Compile processes (default: per core).")
@click.option("--no-cache", is_flag=True, help="Compile even where a variant is cached.")
def check(
    kernel,
    assignments,
    arch,
    signature,
    sweeps,
    baseline,
    write_to,
    max_registers,
    max_spills,
    max_shared,
    unchanged,
    runtime_tolerance,
    ignore,
    as_json,
    junit,
    github,
    jobs,
    no_cache,
    settings,
) -> None:
    """Fail (exit 1, after a table) when KERNEL's variants break a condition against a baseline.

    KERNEL is a kernel (FILE:NAME with -c/-S as for dump; -s for several configs) or a session.
    The baseline is a session or a file that --write-baseline wrote. With a baseline, a variant fails
    when it spills more, fits fewer warps on an SM, has a narrower global load or store, or raises a
    warning (annotate's findings) the baseline lacked; bounds, listings and runtimes as asked. A
    Triton upgrade (-c triton=X) is checked against the baseline's variant of the same config.
    Exit codes: 0 every condition holds, 1 one broke, 2 bad input, 5 a damaged baseline (docs/check.md).

    \b
    Examples:
      irscope check k.py:scale -S "*fp32:16, *fp32:16, i32:16, 1024" --write-baseline check.json
      irscope check k.py:scale -S "*fp32:16, *fp32:16, i32:16, 1024" --baseline check.json --junit out.xml
      irscope check k.py:scale -c triton=3.9.0 --baseline check.json --unchanged ptx --github
      irscope check k.py:scale --max-registers 128 --max-spills 0
    """
    from ..checking.conditions import Conditions
    from ..errors import UsageError
    from ..storage.files import replaceable

    conditions = Conditions(
        max_registers, max_spills, max_shared, tuple(unchanged), runtime_tolerance, frozenset(ignore)
    )
    if as_json and github:
        raise UsageError("--json and --github both print on stdout; choose one")
    if write_to is not None and baseline is not None:
        raise UsageError("--write-baseline writes a baseline; check against it in another run (--baseline)")
    if baseline is None and write_to is None:
        if conditions.relative():
            raise UsageError(f"{conditions.relative()[0]} compares with a baseline: give --baseline")
        if max_registers is None and max_spills is None and max_shared is None:
            raise UsageError("nothing to check: give --baseline, or a bound (--max-registers, --max-spills, ...)")
    for path in (write_to, junit):  # refused before anything compiles
        if path is not None:
            replaceable(path, UsageError)
    against = _baseline(baseline) if baseline is not None else None
    variants, runtimes = _variants(kernel, assignments, sweeps, arch, signature, settings, jobs, no_cache, conditions)
    _gate(variants, runtimes, against, conditions, write_to, as_json, junit, github)


def _baseline(path: Path):
    from ..checking.baseline import read_baseline, session_baseline, variant_key
    from ..session import Session

    if path.is_dir():
        session = Session.open(path)
        entries = [
            (variant_key(session.frontend, e.config, e.arch), lambda e=e: session.variant(e)) for e in session.entries
        ]
        return session_baseline(str(path), session.kernel.name, entries)
    return read_baseline(path)


def _variants(kernel, assignments, sweeps, arch, signature, settings, jobs, no_cache, conditions):
    """The variants to check, in config order, and their runtimes by index (None: nothing was timed): a session's
    stored ones (KERNEL named one, no -c/-s), else captured now (timed too with --runtime-tolerance on a GPU)."""
    from ..arch import normalise_arch
    from ..frontends.config import parse_sweep
    from ..named import configs_of
    from .options import open_named, overrides

    named = open_named(kernel, settings, signature)
    if named.session is not None and not assignments and not sweeps:
        wanted = normalise_arch(arch) if arch else None
        entries = [e for e in named.session.entries if wanted is None or e.arch == wanted]
        return [named.session.variant(e) for e in entries], None
    compiled = named.require_kernel(signature)
    configs = configs_of(named, overrides(assignments), parse_sweep(sweeps), whole_space=False)
    if conditions.runtime_tolerance is not None and arch is None and _gpu_here():
        return _timed(compiled, configs, named, jobs)
    from ..capturing import capture_many

    captured = capture_many(
        compiled, configs, arch, jobs=jobs, use_cache=not no_cache, compile_timeout=named.compile_timeout
    )
    return [c.variant for c in sorted(captured, key=lambda c: c.index)], None


def _gpu_here() -> bool:
    from ..nvidia.device import gpu_capability

    return gpu_capability() is not None


def _timed(compiled, configs, named, jobs):
    from ..measure.bench import bench
    from ..types import Status

    results = sorted(bench(compiled, configs, jobs=jobs, compile_timeout=named.compile_timeout), key=lambda r: r.index)
    runtimes = {
        r.index: r.measurement.median_us
        for r in results
        if r.measurement.status is Status.OK and r.measurement.median_us is not None  # a wrong result is no time
    }
    return [r.variant for r in results], runtimes


def _gate(variants, runtimes, against, conditions, write_to, as_json, junit, github) -> None:
    from ..checking.baseline import variant_key, write_baseline
    from ..checking.conditions import Row, Verdict, judge
    from ..checking.facts import variant_facts
    from ..errors import ExitCode, UsageError

    if not variants:
        raise UsageError("no variants to check (the session holds none for this arch)")
    facts = [
        (v, variant_key(v.frontend, v.config, v.arch), variant_facts(v, (runtimes or {}).get(i)))
        for i, v in enumerate(variants)
    ]
    if write_to is not None:
        n = write_baseline(write_to, variants[0].kernel.name, facts)
        failed = sum(not f.ok for _, _, f in facts)
        echo(
            f"wrote the facts of {plural(n, 'variant')} to {write_to}"
            + (f" ({failed} did not compile)" if failed else ""),
            err=True,
        )
        return
    rows = [
        Row(v.kernel.name, _label(v.config), v.arch, *verdict)
        for v, key, now in facts
        for verdict in judge(
            now,
            against.find(key) if against is not None else None,
            conditions,
            has_baseline=against is not None,
            gpu=runtimes is not None,  # timed here: a GPU, and a variant it could not time has no runtime
        )
    ]
    broke = [r for r in rows if r.verdict is Verdict.FAILED]
    if as_json:
        summary = {"ok": not broke, "variants": len(variants), "failed": len(broke)}
        echo(
            json.dumps(
                {**summary, "baseline": against.origin if against else None, "rows": [r.to_json() for r in rows]},
                indent=1,
            )
        )
    else:
        _print_table(rows, against.origin if against else None, len(variants))
    if junit is not None:
        from ..checking.outputs import junit_xml
        from ..storage.files import write_output

        write_output(junit, junit_xml(rows))
    if github:
        from ..checking.outputs import github_annotations

        for line in github_annotations(rows, _repo_relative(variants[0].kernel.file)):
            echo(line)
    if broke:
        raise SystemExit(int(ExitCode.FAILURE))


def _label(config) -> str:
    """The config's label with its input sizes: two variants that differ only in a size are two rows."""
    sizes = " ".join(f"{k}={v}" for k, v in config.sizes.items() if v is not None)
    return f"{config.label()} {sizes}".strip()


def _repo_relative(file: str) -> str | None:
    """The kernel's file relative to here (the checkout CI runs in), where it is inside it: a label worked out
    from the names alone, never a file looked at (a session's is data)."""
    import os

    try:
        return str(Path(os.path.abspath(file)).relative_to(Path.cwd()))
    except (ValueError, OSError):
        return None


def _print_table(rows, origin, n_variants) -> None:
    from rich.table import Table

    from ..checking.conditions import Verdict
    from .output import print_table

    table = Table(box=None, pad_edge=False)
    for column in ("variant", "condition", "", "baseline", "now", "why"):
        table.add_column(column)
    for r in rows:
        mark = {Verdict.FAILED: "FAIL", Verdict.SKIPPED: "skip", Verdict.PASSED: "ok"}[r.verdict]
        table.add_row(f"{r.kernel} {r.config} @{r.arch}", r.condition, mark, r.baseline, r.current, r.detail)
    print_table(table)
    broke = sum(r.verdict is Verdict.FAILED for r in rows)
    skipped = sum(r.verdict is Verdict.SKIPPED for r in rows)
    against = f" against {origin}" if origin else ""
    verdict = f"{broke} broke" if broke else "every condition holds"
    echo(
        f"{plural(n_variants, 'variant')}, {plural(len(rows), 'condition')}{against}: {verdict}"
        + (f", {skipped} skipped" if skipped else "")
    )
