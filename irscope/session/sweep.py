"""A sweep: the cartesian product of parameter values (or a kernel's own list of configs), captured into a session.

``run_sweep`` is a generator of results, so the CLI's progress bar and the TUI's
worker drive it the same way; every variant is in the session before it is
yielded, and variants the session already holds are not compiled again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..capturing import capture_many, choose_target
from ..capturing.pipeline import DEFAULT_COMPILE_TIMEOUT
from ..executors import Executor
from ..frontends import Kernel
from ..types import Config, Variant
from .store import Entry, Session


@dataclass(frozen=True)
class SweepResult:
    """One finished variant of a sweep."""

    index: int  # position in the configs swept
    entry: Entry | None  # its row in the session (None when no session is kept)
    variant: Variant
    reused: bool  # already in the session (or the cache): not compiled this time


def run_sweep(
    kernel: Kernel,
    configs: Sequence[Config],
    arch: str | None,
    session: Session | None,
    *,
    jobs: int | None = None,
    cancel: threading.Event | None = None,
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT,
    passes: bool = False,
    executor: Executor | None = None,
) -> Iterator[SweepResult]:
    """Capture ``configs`` of ``kernel`` into ``session``; variants the session has are reused.

    ``passes``: keep every compiler pass of each variant too; one the session holds without
    them is compiled again. ``executor``: where the compiles run (``capture_many``'s).

    Except those that failed for a reason outside the kernel (a full disk, a killed
    compiler, a timeout: ``Entry.retry``): those are compiled again.
    """
    target = choose_target(arch)
    todo: list[int] = []
    for i, config in enumerate(configs):
        entry = session.find(config, target.arch) if session else None
        stored = session.variant(entry) if entry is not None and not entry.retry else None
        if stored is not None and not (passes and stored.ok and stored.passes is None):
            yield SweepResult(i, entry, stored, True)
        else:
            todo.append(i)
    for captured in capture_many(
        kernel,
        [configs[i] for i in todo],
        arch,
        jobs=jobs,
        cancel=cancel,
        compile_timeout=compile_timeout,
        passes=passes,
        executor=executor,
    ):
        entry = session.add(captured.variant) if session else None
        yield SweepResult(todo[captured.index], entry, captured.variant, captured.cached)
