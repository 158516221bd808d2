"""``irscope report``: a session as one self-contained HTML file to share."""

from __future__ import annotations

from pathlib import Path

import click

from ..types import plural
from .options import complete_path
from .output import echo


@click.command()
@click.argument("session_dir", metavar="SESSION_OR_RUN", shell_complete=complete_path)
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
    (highlighted, each line linked to its Python line), the selected variant's findings and the diffs asked
    for. It needs no network and no irscope to open. A run folder (irscope run -o DIR) gives its kernels,
    each linked to its session, and its trace.json timeline, linked for Perfetto.

    \b
    Examples:
      irscope report runs/square -o square.html
      irscope report runs/square -o square.html --diff BLOCK_SIZE=128 BLOCK_SIZE=1024 --diff-stage sass
      irscope report runs/demo -o runs/demo/report.html
    """
    from ..errors import SessionError, UsageError
    from ..interop.run.collect import is_run_dir
    from ..report.html import DiffRequest, build
    from ..report.run import build_run
    from ..session import Session
    from ..storage.files import replaceable, write_output
    from ..types import Stage
    from .options import open_named, overrides

    replaceable(out, UsageError)  # before the work: a link, FIFO or device at -o is never written
    if not Session.is_session(session_dir) and is_run_dir(session_dir):
        if diffs:
            raise UsageError(f"--diff names two variants of one session: give one of {session_dir}'s kernels/ folders")
        text = build_run(Path(session_dir), out, sample_gpu, absolute_paths)
        write_output(out, text)
        echo(f"wrote {out} ({len(text.encode()) / 1e6:.1f} MB, the run {session_dir})", err=True)
        return
    if not Session.is_session(session_dir):
        raise SessionError(
            f"{session_dir} is not an irscope session or run (make one with irscope sweep -o DIR or irscope run -o DIR)"
        )
    named = open_named(session_dir)
    session = named.session
    if session is None:
        raise SessionError(f"{session_dir} holds several kernels' sessions: name one of them")
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
    text = build(session, requests, sample_gpu, absolute_paths)
    write_output(out, text)
    echo(f"wrote {out} ({len(text.encode()) / 1e6:.1f} MB, {plural(len(session.entries), 'variant')})", err=True)
