"""``irscope export``: variants written as a tritonparse trace, for tritonparse's parser and viewer."""

from __future__ import annotations

from pathlib import Path

import click

from .options import kernel_options
from .output import echo

PARSER_PREFIX = "dedicated_log_triton_trace_"  # tritonparse/parse/common.py: the only names its parser takes


@click.command()
@kernel_options
@click.option(
    "-o",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The trace to write: FILE.ndjson, or FILE.ndjson.gz for gzip.",
)
def export(kernel, assignments, arch, signature, out, settings) -> None:
    """Write KERNEL's variants as a tritonparse trace (one compilation event each).

    A session or a trace gives all its variants (those -c picks, if given); a
    kernel gives the one variant -c names, compiled here.

    \b
    Examples:
      irscope export runs/square -o square.ndjson
      irscope export square_kernel -c BLOCK_SIZE=1024 -o square.ndjson.gz
      irscope export runs/square -o traces/dedicated_log_triton_trace_square.ndjson
      tritonparseoss parse traces/ -o parsed/    # then open it in tritonparse's viewer
    """
    from ..errors import UsageError
    from ..interop.tritonparse.events import SUFFIXES, kernel_parameters
    from ..interop.tritonparse.write import write_trace
    from ..stages import Stage
    from ..storage.files import replaceable
    from .options import open_named, overrides

    if not str(out).endswith(SUFFIXES[:2]):
        raise UsageError(f"{out}: a tritonparse trace is FILE.ndjson or FILE.ndjson.gz")
    replaceable(out, UsageError)  # before the work: a link, FIFO or device at -o is never written
    named = open_named(kernel, settings, signature)
    given = overrides(assignments)
    if named.session is not None:
        session = named.session
        picked = [
            e
            for e in session.entries
            if all(str(e.value(k)) == str(v) for k, v in given.items()) and (arch is None or e.arch == arch)
        ]
        variants = [session.variant(e) for e in picked]
    else:
        variants = [named.variant(given, arch)]
    if not variants:
        raise UsageError(f"{kernel} has no variant matching {' '.join(assignments) or 'the options given'}")
    parameters, _ = kernel_parameters(variants[0].listings.get(Stage.SOURCE, ""), named.name)
    written = write_trace(out, variants, parameters)
    echo(
        f"{written} compilation events of {named.name} into {out}"
        f"{f' ({len(variants) - written} failed variants left out)' if written < len(variants) else ''}",
        err=True,
    )
    if not out.name.startswith(PARSER_PREFIX):
        echo(
            f"irscope: note: tritonparse's parser reads only files named {PARSER_PREFIX}*; its viewer opens any name",
            err=True,
        )
