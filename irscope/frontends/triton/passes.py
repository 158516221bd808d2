"""Every MLIR pass of one Triton compile, through Triton's own pass dumps.

Triton's pass managers read ``MLIR_ENABLE_DUMP`` when each stage builds its pass
manager (a kernel name filters the dumps to that kernel) and print the IR before
every pass to LLVM's unbuffered error stream. ``MLIR_DUMP_PATH`` would send them to
a file instead, but Triton opens that file once per process and buffers it, so a
worker that compiles many variants could not tell one compile's dumps from the
next. Instead, around each MLIR stage, the process's stderr (and stdout: the
pipeliner prints internal dumps of its own) goes to a file of that stage's own: the
dumps are scoped to this kernel, this compile and that stage, and the stage
boundaries come from the files, not from guessing at pass names. The process must
compile one kernel at a time while it records (capture's workers do).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...ir.passes import build_pass_log
from ...types import PassLog, Stage

# The stages whose pass managers print dumps, and the stage each one is.
MLIR_STAGES = {"ttir": Stage.TTIR, "ttgir": Stage.TTGIR, "llir": Stage.LLIR}


class PassRecorder:
    """Wraps a stage's function: dumps its passes to a file of its own, keeps the module it hands on."""

    def __init__(self, kernel_name: str) -> None:
        self.kernel_name = kernel_name
        self.folder = Path(tempfile.mkdtemp(prefix="irscope-passes-"))
        self.stages: list[tuple[Stage, str, str]] = []

    def run(self, name: str, run: Callable[[Any, dict], Any], src: Any, metadata: dict) -> Any:
        if name not in MLIR_STAGES:
            return run(src, metadata)
        path = self.folder / f"{name}.mlir"
        with _environment(MLIR_ENABLE_DUMP=self.kernel_name, MLIR_DUMP_PATH=None), _output_to(path):
            result = run(src, metadata)
        # ttir and ttgir return the module they changed in place; llir returns LLVM IR text,
        # translated from the module it leaves behind in llvm-dialect MLIR: its last pass's IR.
        module = src if isinstance(result, (str, bytes)) else result
        dumps = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
        self.stages.append((MLIR_STAGES[name], dumps, str(module)))
        return result

    def log(self) -> PassLog | None:
        return build_pass_log(self.stages) if self.stages else None

    def close(self) -> None:
        for path in self.folder.glob("*"):
            with contextlib.suppress(OSError):
                path.unlink()
        with contextlib.suppress(OSError):
            self.folder.rmdir()


@contextlib.contextmanager
def _environment(**values: str | None):
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _output_to(path: Path):
    """File descriptors 1 and 2 into ``path`` while the block runs, where LLVM's streams write."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, target):
            os.close(fd)
