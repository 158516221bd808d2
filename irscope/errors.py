"""Errors a user can cause, and the exit codes the CLI maps them to.

Anything raised as an ``IrscopeError`` is the user's to fix and is shown as one
line on stderr; anything else is a bug in irscope: one line too (``--debug``
shows its traceback), and its own exit code, so a script can tell the two apart.
"""

from __future__ import annotations

import enum
import signal


class ExitCode(enum.IntEnum):
    """What ``irscope``'s exit status means; docs/bad-input.md lists the same."""

    OK = 0
    # The work ran and something in it failed: a variant of a sweep did not compile, one
    # that bench ran was wrong, crashed or hung, a kernel inductor captured did not compile.
    # The table and summary are printed first, as on success.
    FAILURE = 1
    USAGE = 2  # bad input: unknown kernel, parameter, value, arch, option out of range, file
    COMPILE_ERROR = 3  # the one variant asked for (dump, annotate) did not compile
    NO_GPU = 4  # the command needs a CUDA GPU and there is none
    SESSION_ERROR = 5  # a session on disk is missing, corrupted or foreign
    INTERNAL = 70  # a bug in irscope (EX_SOFTWARE in sysexits.h)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as a shell reports it)


# Ctrl-C, a closed terminal, a job scheduler's or `kill`'s stop: each ends a command the one clean way, with
# INTERRUPTED, or 128 + the signal for TERM and HUP (cli/__init__.py; the TUI ends its app first, tui/app.py).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def exception_line(exc: BaseException) -> str:
    """``Type: first line of the message``: an exception from third-party code, said in one line."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


# What to install for each optional dependency, by its top-level module (pyproject's extras).
# A frontend's own extra is in its description (frontends/info.py: FrontendInfo.install_hint).
INSTALL = {
    "torch": "pip install irscope[torch]",
    "ray": "pip install irscope[ray]",
    "mcp": "pip install irscope[mcp]",
}


def install_hint(exc: BaseException) -> str | None:
    """``pip install ...`` where ``exc`` is an optional dependency found missing; None for anything else."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return INSTALL.get(exc.name.partition(".")[0])
    return None


class IrscopeError(Exception):
    """An error with a message meant for the user and an exit code."""

    exit_code = ExitCode.USAGE


class UsageError(IrscopeError):
    exit_code = ExitCode.USAGE


class KernelNotFound(UsageError):
    pass


class ParameterError(UsageError):
    pass


class KernelFileError(UsageError):
    """The user's kernel file is missing or does not import."""


class CompileFailed(IrscopeError):
    """The variant asked for did not compile; ``variant`` (where given) holds what was produced and why."""

    exit_code = ExitCode.COMPILE_ERROR

    def __init__(self, message: str, variant: object = None) -> None:
        super().__init__(message)
        self.variant = variant


class NoGpu(IrscopeError):
    exit_code = ExitCode.NO_GPU


class SessionError(IrscopeError):
    exit_code = ExitCode.SESSION_ERROR
