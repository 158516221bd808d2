"""A sweep: the cartesian product of parameter values (or a kernel's own list of configs), captured into a session.

``run_sweep`` is a generator of results, so the CLI's progress bar and the TUI's
worker drive it the same way; every variant is in the session before it is
yielded, and variants the session already holds are not compiled again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..capturing import capture_many, choose_target
from ..capturing.pipeline import DEFAULT_COMPILE_TIMEOUT
from ..frontends import Kernel
from ..processes.executors import Executor
from ..types import Config, Status, Variant
from .store import Entry, Session


@dataclass(frozen=True)
class SweepResult:
    """One finished variant of a sweep.

    A variant the session already held is read from its files only when ``variant`` is asked
    for: resuming a sweep of thousands needs only the index (``entry``) to say what each is.
    """

    index: int  # position in the configs swept
    entry: Entry | None  # its row in the session (None when no session is kept)
    _variant: Variant | None  # None: the session's stored variant, read on first use
    reused: bool  # already in the session (or the cache): not compiled this time
    _session: Session | None = field(default=None, repr=False, compare=False)

    @property
    def variant(self) -> Variant:
        """The variant; a stored one's damage is a SessionError here."""
        if self._variant is None:
            assert self._session is not None and self.entry is not None  # how run_sweep makes a stored one
            stored = self._session.variant(self.entry)
            object.__setattr__(self, "_variant", stored)
            return stored
        return self._variant

    @property
    def ok(self) -> bool:
        """Whether it compiled: what the index says of a stored variant, without reading it."""
        return self.entry.status is Status.OK if self.entry is not None else self.variant.ok


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
        if entry is None or entry.retry:
            todo.append(i)
        elif not passes or session is None:
            yield SweepResult(i, entry, None, True, session)
        else:  # whether it kept its passes is in its files, not the index
            stored = session.variant(entry)
            if stored.ok and stored.passes is None:
                todo.append(i)
            else:
                yield SweepResult(i, entry, stored, True)
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
