"""Errors a user can cause, and the exit codes the CLI maps them to.

Anything raised as an ``IrscopeError`` is the user's to fix and is shown as one
line on stderr; anything else is a bug in irscope and keeps its traceback.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    FAILURE = 1  # the work ran and something in it failed (a variant did not compile)
    USAGE = 2  # bad input: unknown kernel, parameter, value, file
    COMPILE_ERROR = 3  # the requested variant did not compile
    NO_GPU = 4  # the command needs a CUDA GPU and there is none
    SESSION_ERROR = 5  # a session on disk is missing, corrupted or foreign
    INTERRUPTED = 130


def exception_line(exc: BaseException) -> str:
    """``Type: first line of the message``: an exception from third-party code, said in one line."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


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
    exit_code = ExitCode.COMPILE_ERROR


class NoGpu(IrscopeError):
    exit_code = ExitCode.NO_GPU


class SessionError(IrscopeError):
    exit_code = ExitCode.SESSION_ERROR
