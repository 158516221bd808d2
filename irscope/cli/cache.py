"""``irscope cache``: where the cache is, what it holds, and trimming it (capturing/housekeeping.py)."""

from __future__ import annotations

import json
import time

import click

from ..types import plural
from .output import echo

WHAT = {
    "variants": "captured variants",
    "tritonparse": "tritonparse traces read",
    "triton-caches": "Triton's cache and dump folders, pass logs read",
    "inductor": "Inductor kernels as files",
    "sessions": "sessions irscope.sweep() keeps",
    "tritons": "private Tritons (-c triton=X)",
    "triton-cache": "irscope's compiles in Triton's cache",
}


@click.command()
@click.option("--trim", "trim_to", metavar="SIZE", help="Remove the least recently used entries until they take SIZE.")
@click.option("--clear", is_flag=True, help="Remove every entry (what --trim 0 removes).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def cache(trim_to, clear, as_json) -> None:
    """Show the cache (location, size, entries), or trim it.

    Captured variants, tritonparse traces, Inductor's kernel files, the sessions
    irscope.sweep() keeps and irscope's folder in Triton's cache (~/.triton/cache/irscope,
    or under $TRITON_CACHE_DIR) are made again when needed: --trim removes the least
    recently used of them until they take at most SIZE (500M, 2G), --clear all of
    them. The private Tritons that -c triton=X installs (0.6-1 GB each) are shown,
    never removed (rm -r one by hand). Safe while other irscopes use the cache; links
    in it are left alone, never followed.

    \b
    Examples:
      irscope cache
      irscope cache --trim 2G
      IRSCOPE_CACHE_DIR=/scratch/irscope irscope cache --clear
    """
    from ..capturing.housekeeping import parse_size, trim, usage
    from ..errors import UsageError

    if trim_to is not None and clear:
        raise UsageError("give --trim SIZE or --clear, not both")
    if trim_to is not None or clear:
        done = trim(0 if clear else parse_size(trim_to))
        if as_json:
            echo(json.dumps(vars(done)))
            return
        echo(
            f"removed {plural(done.removed, 'entry', 'entries')} ({_bytes(done.freed)}), "
            "least recently used first; "
            f"what can be trimmed now takes {_bytes(done.kept)}"
            + (f"; {plural(done.leftovers, 'leftover')} of killed writers or trims removed" if done.leftovers else "")
            + (
                f"; {plural(done.in_use, 'entry', 'entries')} left while a compile writes into their folder"
                if done.in_use
                else ""
            )
        )
        return
    found = usage()
    if as_json:
        echo(json.dumps(found.to_json(), indent=1))
        return
    echo(f"irscope's cache: {found.root} ({_bytes(found.total)})")
    for s in found.sections:
        count = plural(s.entries, "folder") if s.name == "tritons" else plural(s.entries, "entry", "entries")
        line = f"  {s.name:12} {count:>13} {_bytes(s.size):>10}  {WHAT[s.name]}"
        if s.name == "triton-cache":
            line += f" ({s.folder})"
        if s.newest is not None:
            line += f", used {_day(s.oldest)} to {_day(s.newest)}"
        if not s.trimmed and s.names:
            line += f": {', '.join(sorted(s.names))}, never trimmed"
        echo(line)
    echo(f"  {'other':12} {'':>13} {_bytes(found.other):>10}")
    if found.links:
        echo(f"  {plural(len(found.links), 'link')} in the cache, left alone: {', '.join(found.links[:5])}")
    echo("trim with irscope cache --trim SIZE (least recently used first), or --clear")


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def _day(t: float | None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(t)) if t is not None else "—"
