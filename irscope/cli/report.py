"""``irscope report``: a session as one self-contained HTML file to share."""

from __future__ import annotations

from pathlib import Path

import click

from .output import echo


@click.command()
@click.argument("session_dir", metavar="SESSION")
@click.option(
    "-o", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The HTML file to write."
)
@click.option(
    "--diff",
    "diffs",
    multiple=True,
    nargs=2,
    metavar="A B",
    help="Add the normalised diff of two variants, each NAME=VALUE[,NAME=VALUE] (values that tell it apart). "
    "Repeatable.",
)
@click.option(
    "--diff-stage",
    default="ptx",
    show_default=True,
    type=click.Choice(["ttir", "ttgir", "llir", "ptx", "sass"]),
    help="The stage the diffs compare.",
)
@click.option("--sample-gpu", metavar="NAME", help="Whose recorded runtimes to show where the session has none.")
@click.option(
    "--absolute-paths",
    is_flag=True,
    help="Keep file paths as the compilers wrote them. By default paths are relative to the kernel's "
    "folder and home folders are ~, so a shared report does not carry your home folder or user name.",
)
def report(session_dir, out, diffs, diff_stage, sample_gpu, absolute_paths) -> None:
    """Write SESSION as one HTML file: the variants table, the runtime chart, every stage of every variant
    (highlighted, each line linked to its Python line) and the diffs asked for. It needs no network and no
    irscope to open.

    \b
    Examples:
      irscope report runs/square -o square.html
      irscope report runs/square -o square.html --diff BLOCK_SIZE=128 BLOCK_SIZE=1024 --diff-stage sass
    """
    from ..errors import SessionError, UsageError
    from ..report.html import DiffRequest, build
    from ..session import Session
    from ..store import replaceable, write_output
    from ..types import Stage
    from .options import open_named, overrides

    replaceable(out, UsageError)  # before the work: a link, FIFO or device at -o is never written
    if not Session.is_session(session_dir):
        raise SessionError(f"{session_dir} is not an irscope session (make one with irscope sweep -o DIR)")
    named = open_named(session_dir)
    requests = []
    for a, b in diffs:
        ids = []
        for side in (a, b):
            given = overrides((side,))
            entry = named.find_entry(named.config(given), given, None)
            if entry is None:
                raise UsageError(f"--diff {side}: no variant of {session_dir} matches")
            ids.append(entry.id)
        requests.append(DiffRequest(ids[0], ids[1], Stage(diff_stage)))
    text = build(named.session, requests, sample_gpu, absolute_paths)
    write_output(out, text)
    echo(f"wrote {out} ({len(text.encode()) / 1e6:.1f} MB, {len(named.session.entries)} variants)", err=True)
