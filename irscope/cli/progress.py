"""Progress on stderr while a command works: live on a terminal, a line a phase in a log.

A live display (a spinner, a bar) only makes sense where someone watches a terminal;
written to a file it is a mess of carriage returns. So on a terminal each phase shows
while it runs and is gone when it ends, and elsewhere (a pipe, a CI log) each phase
that finishes leaves one line with what it did and how long it took. A phase that fails
leaves nothing: its error is the one line a script reads.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from .output import Console, echo

T = TypeVar("T")


class Phases:
    """Steps of one command's work, each shown as it runs (terminal) or said when done (elsewhere)."""

    def __init__(self, quiet: bool = False) -> None:
        self.console = Console(stderr=True)
        # A real terminal, not only one rich was told to treat as such (FORCE_COLOR, set in Jupyter kernels,
        # colours a pipe; a live display there leaves cursor moves in whatever reads it).
        self.live = not quiet and self.console.is_terminal and sys.stderr.isatty()
        self.quiet = quiet

    @contextlib.contextmanager
    def phase(self, doing: str) -> Iterator[Callable[[str], None]]:
        """``with phases.phase("reading the trace") as said: ...; said("3 graphs")``: ``said`` names what was done."""
        done = [doing]
        start = time.perf_counter()
        if self.live:
            with self.console.status(f"{doing}...", spinner="dots"):
                yield done.append
        else:
            yield done.append
        if not self.live and not self.quiet:
            echo(f"irscope: {done[-1]} ({time.perf_counter() - start:.1f} s)", err=True)

    def counted(
        self,
        items: Iterable[T],
        total: int,
        doing: str,
        said: Callable[[int], str] | None = None,
        detail: Callable[[], str] | None = None,
    ) -> Iterator[T]:
        """``items`` passed through, a bar of ``total`` on a terminal; elsewhere one line once they are all through.

        ``detail``: more words beside the bar as it goes (variants done per node), said on a line of its own
        at the end elsewhere.
        """
        if not self.live:
            start, count = time.perf_counter(), 0
            for item in items:
                count += 1
                yield item
            if said is not None and not self.quiet:
                echo(f"irscope: {said(count)} ({time.perf_counter() - start:.1f} s)", err=True)
            if detail is not None and detail() and not self.quiet:
                echo(f"irscope: {detail()}", err=True)
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        columns = (
            TextColumn(doing),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[detail]}", markup=False),
        )
        with Progress(*columns, console=self.console, transient=True) as progress:
            task = progress.add_task(doing, total=total, detail="")
            for item in items:
                progress.update(task, advance=1, detail=detail() if detail is not None else "")
                yield item
