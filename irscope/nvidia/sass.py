"""SASS for many cubins with one nvdisasm run, with Python line information.

nvdisasm costs ~0.3 s of start-up per call, so the code sections of every cubin
for one arch go into one raw instruction image and are disassembled together.
The result is split back per cubin and given the line comments ``nvdisasm -g``
would print, read from each cubin's own DWARF line table; where the PTX is known,
inlined code also gets its call chain (``inlined at``), through the cubin's
SASS-to-PTX line table and the PTX's own ``.loc`` chain.
"""

from __future__ import annotations

import bisect
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..ir.elf import Cubin, LineRow, Section
from ..ir.locations import ptx_locations
from ..types import SourceLoc

#         /*04d0*/                   BRA 0x4d0;
RAW_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s*(.*?)\s*$")
# Opcodes whose last hex operand is a code address (relative to the image in raw mode).
BRANCH_OPCODES = re.compile(r"^(?:@!?U?P\w+\s+)?(BRA|BRX|JMP|JMX|CALL|BSSY|SSY|PBK|PCNT|CAL|JCAL)\b")
HEX_TARGET = re.compile(r"0x([0-9a-f]+)(?=\s*;\s*$)")
# //--------------------- .text._Z8warp_sumPKfPf --------------------------
SECTION_HEADER = re.compile(r"^//-+ (\.text\.\S+)\s+-+\s*$")


@dataclass(frozen=True)
class SassResult:
    text: str | None
    error: str | None = None


def nvdisasm_path() -> str | None:
    """Triton's bundled nvdisasm, else one on PATH."""
    try:
        from triton import knobs

        path = knobs.nvidia.nvdisasm.path
        if path and os.access(path, os.X_OK):
            return path
    except Exception:
        pass
    return shutil.which("nvdisasm")


def disassemble(
    cubins: Sequence[bytes],
    ptx: Sequence[str | None] | None = None,
    sms: Sequence[int | None] | None = None,
    functions: Sequence[Collection[str] | None] | None = None,
) -> list[SassResult]:
    """SASS listings for ``cubins`` (in order), batching one nvdisasm run per arch.

    ``sms`` gives each cubin's SM (90 for sm_90) when the caller knows it; otherwise it is read
    from the ELF header, whose layout differs between CUDA releases. ``functions``: for each cubin,
    the functions whose code to show (a cubin of a whole ``.cu`` file holds every kernel of it;
    one kernel's listing shows its own); None shows them all.
    """
    tool = nvdisasm_path()
    if tool is None:
        return [SassResult(None, "nvdisasm not found (neither Triton's bundled copy nor one on PATH)")] * len(cubins)
    ptx = list(ptx) if ptx is not None else [None] * len(cubins)
    sms = list(sms) if sms is not None else [None] * len(cubins)
    shown = list(functions) if functions is not None else [None] * len(cubins)
    results: list[SassResult | None] = [None] * len(cubins)
    parsed: dict[int, Cubin] = {}
    by_sm: dict[int, list[int]] = {}
    for i, blob in enumerate(cubins):
        try:
            parsed[i] = Cubin(blob)
            by_sm.setdefault(sms[i] or parsed[i].sm, []).append(i)
        except (ValueError, IndexError) as exc:
            results[i] = SassResult(None, f"cubin could not be read: {exc}")
    for sm, indices in by_sm.items():
        try:
            batch = [parsed[i] for i in indices]
            sections = [_shown_sections(parsed[i], shown[i]) for i in indices]
            for i, text in zip(indices, _disassemble_batch(tool, sm, batch, [ptx[i] for i in indices], sections)):
                results[i] = SassResult(text)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            for i in indices:  # one at a time, the way nvdisasm reads a cubin itself
                why = f"batched nvdisasm failed for sm_{sm}: {exc}"
                results[i] = _disassemble_elf(tool, cubins[i], why, _shown_sections(parsed[i], shown[i]))
    return [r if r is not None else SassResult(None, "not disassembled") for r in results]


def _shown_sections(cubin: Cubin, functions: Collection[str] | None) -> list[Section]:
    """The code sections of ``functions`` (all of them where none is named, or none of those has one)."""
    sections = cubin.text_sections()
    if functions is None:
        return sections
    named = {f".text.{name}" for name in functions}
    return [s for s in sections if s.name in named] or sections


def _disassemble_elf(tool: str, cubin: bytes, why_batch_failed: str, sections: list[Section]) -> SassResult:
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
        path = f.name
    try:
        proc = subprocess.run([tool, "-c", "-g", path], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return SassResult(None, f"{why_batch_failed}; alone: {exc}")
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        return SassResult(None, f"{why_batch_failed}; alone: {proc.stderr.strip()[-200:]}")
    return SassResult(_only_sections(proc.stdout, {s.name for s in sections}))


def _only_sections(listing: str, names: set[str]) -> str:
    """nvdisasm's listing of a whole cubin with only the code sections ``names`` (and what precedes the first)."""
    out, keep = [], True
    for line in listing.splitlines():
        m = SECTION_HEADER.match(line)
        if m:
            keep = m.group(1) in names
        if keep:
            out.append(line)
    return "\n".join(out) + "\n"


def _disassemble_batch(
    tool: str, sm: int, cubins: list[Cubin], ptx: list[str | None], shown: list[list[Section]]
) -> list[str]:
    image = bytearray()
    spans: list[list[tuple[str, int, int]]] = []  # per cubin: (section, start, size)
    for cubin, sections in zip(cubins, shown):
        spans.append([])
        for section in sections:
            spans[-1].append((section.name, len(image), section.size))
            image += cubin.body(section)
            image += b"\0" * (-len(image) % 128)
    if not image:
        return ["" for _ in cubins]
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(image)
        path = f.name
    try:
        proc = subprocess.run([tool, "-b", f"SM{sm}", path], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        raise ValueError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}")
    instructions: dict[int, str] = {}
    for line in proc.stdout.splitlines():
        m = RAW_INSTRUCTION.match(line)
        if m:
            instructions[int(m.group(1), 16)] = m.group(2)
    return [_listing(cubin, span, instructions, text) for cubin, span, text in zip(cubins, spans, ptx)]


def _listing(cubin: Cubin, spans: list[tuple[str, int, int]], image: dict[int, str], ptx: str | None) -> str:
    table = cubin.line_table()
    rows = _rows_by_section(table)
    # Inlined code's call chain: the cubin's own (ptxas writes it into the line table), else through the
    # PTX it was assembled from; never through another PTX (a kernel's slice of its module: other lines).
    from_ptx = ptx is not None and not any(row.callers for row in table) and _assembled_from(cubin, ptx)
    ptx_rows = _rows_by_section(_sass_to_ptx_rows(cubin)) if from_ptx else {}
    ptx_locs = ptx_locations(ptx) if from_ptx and ptx else []
    out: list[str] = []
    for name, start, size in spans:
        code = {addr - start: text for addr, text in image.items() if start <= addr < start + size}
        targets = _branch_targets(code, start)
        labels = {addr: f".L_x_{n}" for n, addr in enumerate(sorted(targets))}
        line_rows, chain_rows = rows.get(name, []), ptx_rows.get(name, [])
        function = name[len(".text.") :]
        out.append(f"//--------------------- {name} --------------------------")
        out.append(f"{function}:")
        last_info = None
        for addr in sorted(code):
            info = _line_info(addr, line_rows, chain_rows, ptx_locs)
            if info is not None and info != last_info:
                out.append(info)
            last_info = info if info is not None else last_info
            if addr in labels:
                out.append(f"{labels[addr]}:")
            text = code[addr]
            if addr in targets.values() or BRANCH_OPCODES.match(text):
                text = _relabel(text, start, labels)
            out.append(f"        /*{addr:04x}*/{_opcode_column(text)}")
        out.append("")
    return "\n".join(out)


def _opcode_column(text: str) -> str:
    """Right-align a predicate guard before the opcode column, as nvdisasm does for ELF input."""
    if text.startswith("@"):
        guard, _, rest = text.partition(" ")
        return f"{guard:>18} {rest}"
    return f"{'':19}{text}"


def _branch_targets(code: dict[int, str], start: int) -> dict[int, int]:
    """Map branch target (section-relative) -> address of one branch to it."""
    targets: dict[int, int] = {}
    for addr, text in code.items():
        if BRANCH_OPCODES.match(text):
            m = HEX_TARGET.search(text)
            if m:
                targets.setdefault(int(m.group(1), 16) - start, addr)
    return targets


def _relabel(text: str, start: int, labels: dict[int, str]) -> str:
    m = HEX_TARGET.search(text)
    if not m:
        return text
    label = labels.get(int(m.group(1), 16) - start)
    if label is None:
        return text
    return text[: m.start()] + f"`({label})" + text[m.end() :]


def _rows_by_section(rows: list[LineRow]) -> dict[str, list[LineRow]]:
    out: dict[str, list[LineRow]] = {}
    for row in rows:
        out.setdefault(row.section, []).append(row)
    for value in out.values():
        value.sort(key=lambda r: r.address)
    return out


def _sass_to_ptx_rows(cubin: Cubin) -> list[LineRow]:
    return cubin.line_table(".nv_debug_line_sass")


def _row_at(rows: list[LineRow], addr: int) -> LineRow | None:
    """The last row at or before ``addr`` (line tables give ranges by their starts)."""
    i = bisect.bisect_right(rows, addr, key=lambda r: r.address)
    return rows[i - 1] if i else None


def _assembled_from(cubin: Cubin, ptx: str) -> bool:
    """Is ``ptx`` the module the cubin was assembled from (as far as the cubin can tell: its line count)?"""
    lines = cubin.embedded_ptx_lines()
    return lines is None or abs(lines - len(ptx.splitlines())) <= 1


def _line_info(addr: int, rows: list[LineRow], chain_rows: list[LineRow], ptx_locs: list) -> str | None:
    row = _row_at(rows, addr)
    if row is None:
        return None
    callers: tuple[SourceLoc, ...] = row.callers
    ptx_row = _row_at(chain_rows, addr) if not callers else None
    if ptx_row is not None and 0 < ptx_row.line <= len(ptx_locs):
        ptx_loc = ptx_locs[ptx_row.line - 1]
        if ptx_loc is not None and ptx_loc.line == row.line:
            callers = ptx_loc.callers
    text = f'\t//## File "{row.file}", line {row.line}'
    for caller in callers:
        text += f' inlined at "{caller.file}", line {caller.line}'
    return text
