"""A program's ``MLIR_ENABLE_DUMP=1`` output, captured to a file, read back as each compile's passes.

With ``MLIR_ENABLE_DUMP=1`` (or a kernel's name) Triton's pass managers print the IR before every pass
to stderr, every compile of the program one after another, with nothing between compiles or stages.
So the file is split where the IR starts over: a compile begins where the module is Triton IR again
(no ``ttg.`` module attributes) after TTGIR, or where a kernel's inliner runs a second time. Its stages
begin where Triton's pipelines do: TTGIR at ``convert-triton-to-tritongpu``, the LLVM stage at the
first pass of ``make_llir`` (``tritongpu-combine-tensor-select-and-if`` just before
``tritongpu-allocate-warp-groups``, ``tritongpu-global-sanitizer`` where sanitizing; AMD's
``tritonamdgpu-update-async-wait-count``; else ``convert-triton-gpu-to-llvm``). MLIR prints the IR
*before* each pass, so what the last pass of a compile printed is unknown: that pass is left out, and
said so. Each compile is then a ``PassLog`` as ``irscope passes`` records one itself (``ir/passes.py``).

The file is data: it is read as text (``storage.files``), never run, and a name in it is shown as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import KernelNotFound, SessionError, UsageError
from ..ir.passes import DUMP_HEADER, PassDump, build_pass_log, split_dumps
from ..storage.files import read_text
from ..types import PassLog, Stage

SNIFF = 1 << 16  # how much of a file is read to tell whether it is a pass dump
TTG_MODULE = re.compile(r'^module attributes \{[^\n]*"ttg\.num-warps"', re.M)
TT_FUNC = re.compile(r"^\s*(?:tt|llvm)\.func\s+(?:public\s+|private\s+)?@(\w+)", re.M)
NUM_WARPS = re.compile(r'"ttg\.num-warps"\s*=\s*(\d{1,6})')
LLIR_FIRST = ("tritongpu-global-sanitizer", "tritonamdgpu-update-async-wait-count")
TTGIR_FIRST = "convert-triton-to-tritongpu"


@dataclass(frozen=True)
class LoggedCompile:
    """One compile's passes, as the log printed them."""

    index: int  # 1-based, in the log's order
    kernel: str
    num_warps: int | None
    log: PassLog
    dropped: str  # the last pass, whose result the log does not hold

    def label(self) -> str:
        warps = f" num_warps={self.num_warps}" if self.num_warps else ""
        return f"compile {self.index}: {self.kernel}{warps}"


def is_mlir_log(text: str) -> bool:
    """A file (its name) whose first 64 KiB hold a pass dump's header."""
    path = Path(text)
    try:
        if not path.is_file() or path.suffix in (".py", ".cu", ".cuh", ".json", ".gz", ".zst"):
            return False
        with open(path, "rb") as f:
            head = f.read(SNIFF).decode("utf-8", errors="replace")
    except OSError:
        return False
    return DUMP_HEADER.search(head) is not None


def split_argument(text: str) -> tuple[Path, str | None]:
    """``LOG[:N|:KERNEL]`` -> the file and which compile (None: the only one)."""
    path, colon, which = text.rpartition(":")
    if colon and which and (which.isdigit() or which.isidentifier()) and Path(path).is_file():
        return Path(path), which
    return Path(text), None


def read_log(path: Path) -> list[LoggedCompile]:
    """Every compile in the file, in its order (a SessionError where it holds none)."""
    dumps = split_dumps(read_text(path))
    compiles: list[list[PassDump]] = []
    for dump in dumps:
        if not compiles or _starts_over(compiles[-1], dump):
            compiles.append([])
        compiles[-1].append(dump)
    out: list[LoggedCompile] = []
    for group in compiles:
        if len(group) < 2:
            continue  # one pass and no IR after it: nothing to show
        kernel = next((m.group(1) for d in group for m in [TT_FUNC.search(d.before)] if m), "?")
        warps = next((int(m.group(1)) for d in group for m in [NUM_WARPS.search(d.before)] if m), None)
        out.append(LoggedCompile(len(out) + 1, kernel, warps, _pass_log(group), f"{group[-1].name} ({group[-1].arg})"))
    if not out:
        raise SessionError(f"{path}: no compile's passes in it (MLIR_ENABLE_DUMP's '// -----// IR Dump' sections)")
    return out


def choose(compiles: list[LoggedCompile], which: str | None, path: Path) -> LoggedCompile:
    """The compile ``which`` names (its number, or its kernel's only compile); the only one where None."""
    listed = "; ".join(c.label() for c in compiles[:12]) + ("; ..." if len(compiles) > 12 else "")
    if which is None:
        if len(compiles) > 1:
            raise UsageError(f"{path} holds {len(compiles)} compiles; name one as {path}:N ({listed})")
        return compiles[0]
    if which.isdigit():
        if not 1 <= int(which) <= len(compiles):
            raise KernelNotFound(f"{path} holds compiles 1 to {len(compiles)}, not {which} ({listed})")
        return compiles[int(which) - 1]
    named = [c for c in compiles if c.kernel == which]
    if len(named) != 1:
        how = "no compile" if not named else f"{len(named)} compiles; name one by its number"
        raise KernelNotFound(f"{path} holds {how} of {which} ({listed})")
    return named[0]


def _starts_over(group: list[PassDump], dump: PassDump) -> bool:
    """Does ``dump`` begin another compile than the one ``group`` holds?"""
    if TTG_MODULE.search(dump.before) is not None:
        return False
    if any(TTG_MODULE.search(d.before) for d in group[-3:]):  # Triton IR again after TTGIR
        return True
    return dump.arg == "inline" and not dump.scope and any(d.arg == "inline" and not d.scope for d in group)


def _pass_log(group: list[PassDump]) -> PassLog:
    """The compile's PassLog: its stages where Triton's pipelines begin them, the last pass left out."""
    args = [d.arg for d in group]
    ttgir = args.index(TTGIR_FIRST) if TTGIR_FIRST in args else len(group)
    llir = len(group)
    for i in range(ttgir, len(group)):
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if args[i] in LLIR_FIRST or (
            args[i] == "tritongpu-combine-tensor-select-and-if" and nxt == "tritongpu-allocate-warp-groups"
        ):
            llir = i
            break
        if args[i] == "convert-triton-gpu-to-llvm":
            llir = i
            break
    last = len(group) - 1  # the last pass: its IR after is not in the log (a log cut short ends anywhere)
    ttgir, llir = min(ttgir, last), min(llir, last)
    bounds = [(Stage.TTIR, 0, ttgir), (Stage.TTGIR, ttgir, llir), (Stage.LLIR, llir, last)]
    stages = []
    for stage, start, end in bounds:
        if start >= end:
            continue
        text = "".join(_as_printed(d) for d in group[start:end])
        stages.append((stage, text, group[end].before))  # the IR the next stage (or the last pass) starts from
    return build_pass_log(stages)


def _as_printed(dump: PassDump) -> str:
    where = "('builtin.module' operation)" if not dump.scope else _scope(dump.scope)
    return f"// -----// IR Dump Before {dump.name} ({dump.arg}) {where} //----- //\n{dump.before}"


def _scope(scope: str) -> str:
    op, _, symbol = scope.partition(" ")
    return f"('{op}' operation: {symbol})" if symbol else f"('{op}' operation)"


__all__ = ["LoggedCompile", "choose", "is_mlir_log", "read_log", "split_argument"]
