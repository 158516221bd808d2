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

import functools
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
TARGET = re.compile(r'ttg\.target\s*=\s*"(cuda|hip):(\w{1,12})"')
FORMAT = 1  # bump when what a log's session holds changes
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


# A line another tool wrote on the same stderr while the program compiled: under Triton 3.7.1, with the dump folder
# on, nvdisasm's "Disassembling Std Elf to Old format ..." warning lands inside the last LLVM pass's IR. No MLIR
# line starts so.
TOOL_LINE = re.compile(r"^(?:nvdisasm|ptxas|nvlink|fatbinary|cuobjdump) (?:warning|error|info|fatal)\b[^\n]*\n?", re.M)


def read_log(path: Path) -> list[LoggedCompile]:
    """Every compile in the file, in its order (a SessionError where it holds none)."""
    dumps = split_dumps(TOOL_LINE.sub("", read_text(path)))
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


def log_sessions(path: Path, which: str | None = None) -> list:
    """Each kernel of the log as a session (of ``which``'s compile alone where named): a variant per compile holding
    its TTIR and TTGIR (the IR after each stage's last pass: Triton's own listings, byte for byte) and its passes.
    Written once per log (by its bytes' digest) under irscope's cache."""
    import hashlib

    from ..capturing.housekeeping import mark_used
    from ..paths import TRITON_CACHES, cache_dir
    from ..session import Session
    from ..storage.files import read_bytes
    from .tritonparse.session import build_session

    compiles = read_log(path)
    if which is not None:
        compiles = [choose(compiles, which, path)]
    digest = hashlib.sha256(read_bytes(path)).hexdigest()
    root = cache_dir() / TRITON_CACHES / f"log-{digest[:24]}-{which or 'all'}-v{FORMAT}"
    sessions = []
    for kernel in sorted({c.kernel for c in compiles}):
        folder = root / kernel
        if not Session.is_session(folder):
            mine = [c for c in compiles if c.kernel == kernel]
            build_session(folder, functools.partial(_write_session, path=path, digest=digest, compiles=mine), "a log")
        sessions.append(Session.open(folder))
    mark_used(root)
    return sessions


def _write_session(folder: Path, *, path: Path, digest: str, compiles: list[LoggedCompile]) -> None:
    from dataclasses import replace

    from ..arch import Target, recorded_arch
    from ..capturing import build_variant
    from ..frontends.base import Compiled
    from ..ir.passes import ir_after
    from ..session import Session
    from ..types import Config, KernelId

    kernel = compiles[0].kernel
    identity = KernelId(kernel, str(path), f"mlir-log-{digest[:32]}")
    shared = len({c.num_warps for c in compiles}) < len(compiles)
    configs = [
        Config({}, {**({"num_warps": c.num_warps} if c.num_warps else {}), **({"compile": c.index} if shared else {})})
        for c in compiles
    ]
    from ..frontends.triton.recorded import parameter_table

    session = Session.create(folder, identity, "", parameter_table(None, configs), None)
    for c, config in zip(compiles, configs):
        stages = {}
        for stage in (Stage.TTIR, Stage.TTGIR):
            ends = [s.index for s in c.log.steps if s.stage == stage]
            following = [s for s in c.log.steps if s.stage != stage and ends and s.index > ends[-1]]
            if ends and following:  # a stage the log holds whole: its last pass's IR is the stage's listing
                stages[stage] = ir_after(c.log, ends[-1])
        target_text = TARGET.search(stages.get(Stage.TTGIR, ""))
        try:
            arch = recorded_arch(
                int(target_text.group(2))
                if target_text and target_text.group(2).isdigit()
                else target_text.group(2)
                if target_text
                else None,
                backend=target_text.group(1) if target_text else None,
            )
        except ValueError:
            arch = None
        target = Target.recorded(arch or "sm_90")
        compiled = Compiled(
            stages=stages, options=dict(config.options), compiler="triton (from an MLIR_ENABLE_DUMP log)"
        )
        variant = build_variant(identity, config, target, compiled, "", [Stage.TTIR, Stage.TTGIR], "triton")
        session.add(replace(variant, passes=c.log))
    session.save()


__all__ = ["LoggedCompile", "choose", "is_mlir_log", "log_sessions", "read_log", "split_argument"]
