"""One crafted input's world: the input, a sentinel folder it must not touch, a canary folder, and the verdict.

Every case runs in a fresh workspace laid out as

    outside/   what belongs to the user: a secret, dot files, a folder; links in the input point here
    canary/    where every payload writes if it runs; it must stay empty
    work/      the current directory of the run, holding the input (a session copy, a trace, a kernel file)

and the verdict is the same for every case: no canary, nothing changed outside the paths the case
may write (its session, its output file), no exit 70, no traceback, no terminal control or secret in
what irscope printed, and a refusal exactly one ``irscope: error:`` line with a documented exit code.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..damage import fingerprint

SECRET = "TOPSECRET-battery-5e1f"
# ESC (every control sequence), BEL (ends a window title), CSI as one byte: none may reach a terminal.
CONTROLS = ("\x1b", "\x07", "\x9b")
# A hang is forever; a slow machine is not. The TORCH_TRACE cases compile the kernels the damaged trace still
# names: 21-22 s each on CI's 2 cores at load 2, past 60 s at load 14 (four of them failed a CI run there).
IN_PROCESS_LIMIT_S = 180


@dataclass
class Outcome:
    """What a run left: its exit code and its two streams."""

    code: int
    out: str
    err: str


class Hung(BaseException):
    """Raised by the alarm: a BaseException, so irscope's own handlers cannot turn it into an exit code."""


@dataclass
class Workspace:
    root: Path
    may_write: list[Path] = field(default_factory=list)

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def canary(self) -> Path:
        return self.root / "canary"

    @property
    def work(self) -> Path:
        return self.root / "work"

    def canary_path(self, name: str = "ran") -> Path:
        return self.canary / name

    def allow(self, path: Path) -> Path:
        """``path`` (a file or folder) is the case's own: the run may write there."""
        self.may_write.append(path)
        return path

    def unexpected_changes(self, before: dict[str, str], after: dict[str, str]) -> list[str]:
        own = [str(p.relative_to(self.root)) for p in self.may_write]

        def foreign(rel: str) -> bool:
            return not any(rel == o or rel.startswith(o + os.sep) for o in own)

        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        return sorted(k for k in changed if foreign(k))


def make_workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.outside.mkdir()
    (ws.outside / "secret.txt").write_text(SECRET + "\n")
    (ws.outside / ".tmux.conf").write_text("set -g mouse on\n")
    (ws.outside / ".emacs.d").mkdir()
    (ws.outside / ".emacs.d" / "init.el").write_text("(setq x 1)\n")
    (ws.outside / "projects").mkdir()
    (ws.outside / "projects" / "notes.md").write_text(SECRET + "\n")
    ws.canary.mkdir()
    ws.work.mkdir()
    return ws


# ---------------------------------------------------------------- ways to run irscope


def cli(*argv: str | os.PathLike[str]) -> Callable[[], Outcome]:
    """irscope in-process through click's runner (the cheap way: no interpreter start, no imports)."""

    def run() -> Outcome:
        from click.testing import CliRunner

        from irscope.cli import main

        result = CliRunner().invoke(main, [str(a) for a in argv])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Outcome(result.exit_code, result.stdout, result.stderr)

    return run


def api(call: Callable[[], object]) -> Callable[[], Outcome]:
    """A library entry point (the TUI's factory, a run's collect), judged as the CLI would report it."""

    def run() -> Outcome:
        from irscope.errors import ExitCode, IrscopeError

        try:
            call()
        except IrscopeError as exc:
            return Outcome(int(exc.exit_code), "", f"irscope: error: {exc}\n")
        except Exception as exc:
            return Outcome(int(ExitCode.INTERNAL), "", f"irscope: internal error: {type(exc).__name__}: {exc}\n")
        return Outcome(0, "", "")

    return run


def console_script(cwd: Path) -> Path:
    """A copy of irscope's console script beside ``cwd``: what ``irscope`` on PATH runs."""
    launcher = cwd.parent / "bin" / "irscope"
    launcher.parent.mkdir(exist_ok=True)
    launcher.write_text("import sys\n\nfrom irscope.cli import run\n\nsys.exit(run())\n")
    return launcher


def process(
    *argv: str, cwd: Path, timeout: float = 240, env: dict[str, str] | None = None, limit_memory: bool = False
) -> Callable[[], Outcome]:
    """irscope as its console script starts it, in ``cwd``: a script of its own (beside ``cwd``, not in it) is
    first on ``sys.path``, so only a process irscope starts itself can import from ``cwd``.

    Not ``python -P``: that flag is inherited by multiprocessing's children and would hide the hole.
    """
    launcher = console_script(cwd)

    def run() -> Outcome:
        proc = subprocess.run(
            [sys.executable, str(launcher), *map(str, argv)],
            check=False,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            preexec_fn=_memory_cap if limit_memory else None,
        )
        return Outcome(proc.returncode, proc.stdout, proc.stderr)

    return run


def _memory_cap() -> None:
    # A decompression bomb must fail inside its 3 GiB, not take the shared machine's memory with it.
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run_bounded(action: Callable[[], Outcome]) -> Outcome:
    """``action``, stopped by an alarm if it blocks (a FIFO opened for reading, a bomb being inflated)."""

    def hung(signum, frame):
        raise Hung(f"no answer in {IN_PROCESS_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(IN_PROCESS_LIMIT_S)
    saved = dict(os.environ)  # --compile-timeout and --sample-gpu travel in the environment
    try:
        return action()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.environ.clear()
        os.environ.update(saved)


# ---------------------------------------------------------------- the verdict


def verdict(ws: Workspace, before: dict[str, str], outcome: Outcome, codes: frozenset[int]) -> list[str]:
    """Everything wrong with ``outcome``; an empty list when the case held."""
    problems = []
    ran = sorted(p.name for p in ws.canary.iterdir())
    if ran:
        problems.append(f"code ran: canary {ran}")
    changed = ws.unexpected_changes(before, fingerprint(ws.root))
    if changed:
        problems.append(f"written or deleted outside its own paths: {changed[:6]}")
    streams = outcome.out + outcome.err
    if outcome.code == 70 or "internal error" in outcome.err:
        problems.append(f"internal error: {_last_line(outcome.err)}")
    if "Traceback (most recent call last)" in streams:
        problems.append("a traceback")
    if outcome.code not in codes:
        problems.append(f"exit {outcome.code}, documented {sorted(codes)}: {_last_line(outcome.err)}")
    errors = [ln for ln in outcome.err.splitlines() if ln.startswith("irscope: error:")]
    if outcome.code not in (0, 1) and len(errors) != 1:
        problems.append(f"a refusal of {len(errors)} error lines: {outcome.err[-300:]!r}")
    if any(c in streams for c in CONTROLS):
        problems.append("a terminal control sequence printed")
    if SECRET in streams:
        problems.append("a file from outside was shown")
    return problems


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1][:300] if lines else ""
