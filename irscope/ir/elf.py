"""Just enough of ELF64 and DWARF .debug_line to read a Triton cubin.

nvdisasm spends ~0.3 s starting up, whatever it disassembles. Disassembling a
sweep one cubin at a time would cost more than compiling it, so irscope feeds
nvdisasm the raw code of many cubins at once and puts the line information back
itself, from each cubin's DWARF line table (the same table ``nvdisasm -g`` reads).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

from ..types import SourceLoc

_SHT_SYMTAB = 2
_SHT_RELA = 4


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    offset: int
    size: int
    link: int
    info: int


@dataclass(frozen=True)
class LineRow:
    """One row of a DWARF line table: code at ``address`` came from ``file:line``."""

    section: str  # the .text section the address is relative to
    address: int
    file: str
    line: int
    column: int
    callers: tuple[SourceLoc, ...] = ()  # where the code was inlined, innermost call site first


# ptxas's own extended opcode in a cubin's line program: the row this one's function was inlined at, as a
# 1-based index among the rows of the same sequence (0: not inlined), then the inlined function's name as an
# offset into .debug_str. It is how `.loc ..., inlined_at` reaches the cubin; `nvdisasm -gi` prints the
# chains it gives (the tests hold irscope's reading to that), `-g` ignores it.
DW_LNE_NVIDIA_INLINED_AT = 0x90


class Cubin:
    """Sections, code and line table of one CUDA ELF (cubin)."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != b"\x7fELF" or data[4] != 2:
            raise ValueError("not a 64-bit ELF file")
        self.data = data
        try:  # a cubin is data too (a Triton cache's, cut short): its header may point past its end
            self.flags = struct.unpack_from("<I", data, 0x30)[0]
            shoff = struct.unpack_from("<Q", data, 0x28)[0]
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
            raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        except struct.error as exc:
            raise ValueError(f"truncated ELF file ({len(data)} bytes: {exc})") from None
        strtab_off = raw[shstrndx][4]
        self.sections = [Section(self._cstr(strtab_off + r[0]), r[1], r[4], r[5], r[6], r[7]) for r in raw]

    @property
    def sm(self) -> int:
        """The SM version the code is for (e.g. 90), from the ELF header flags."""
        # CUDA ELF e_flags: CUDA 12 keeps the SM in bits 0-7 (0x5a0d5a for sm_90); CUDA 13 puts an
        # ABI version there and the SM above it. No SM is below 20, so take the first byte that can be one.
        for shift in (0, 8, 16):
            value = (self.flags >> shift) & 0xFF
            if value >= 20:
                return value
        return self.flags & 0xFF

    def _cstr(self, offset: int) -> str:
        end = self.data.index(b"\0", offset)
        return self.data[offset:end].decode("utf-8", "replace")

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def body(self, section: Section) -> bytes:
        return self.data[section.offset : section.offset + section.size]

    def text_sections(self) -> list[Section]:
        return [s for s in self.sections if s.name.startswith(".text.")]

    def embedded_ptx_lines(self) -> int | None:
        """How many lines the PTX this cubin was assembled from had, where it carries that PTX
        (``.nv_debug_ptx_txt``: one NUL-ended line each, comments and ``.loc`` lines blanked); else None."""
        section = self.section(".nv_debug_ptx_txt")
        return None if section is None else self.body(section).rstrip(b"\0").count(b"\0") + 1

    def _section_of_symbols(self) -> list[int]:
        """For each symbol index, the index of the section it is defined in."""
        symtab = next((s for s in self.sections if s.type == _SHT_SYMTAB), None)
        if symtab is None:
            return []
        return [struct.unpack_from("<IBBHQQ", self.data, symtab.offset + i * 24)[3] for i in range(symtab.size // 24)]

    def line_table(self, name: str = ".debug_line") -> list[LineRow]:
        """The source line for each code address, from .debug_line (empty if absent); or from
        another line program of the same form (``.nv_debug_line_sass``: SASS to PTX lines)."""
        debug_line = self.section(name)
        if debug_line is None:
            return []
        # DW_LNE_set_address operands are relocated against the section symbol of
        # the function they describe; the relocation tells us which .text section
        # (a cubin of several kernels, as nvcc makes from a .cu file, has one each).
        targets: dict[int, str] = {}
        rela = self.section(".rela" + name)
        if rela is not None:
            sym_sections = self._section_of_symbols()
            for i in range(rela.size // 24):
                r_offset, r_info, _addend = struct.unpack_from("<QQq", self.data, rela.offset + i * 24)
                sym = r_info >> 32
                if sym < len(sym_sections) and sym_sections[sym] < len(self.sections):
                    targets[r_offset] = self.sections[sym_sections[sym]].name
        default = self.text_sections()[0].name if self.text_sections() else ""
        return parse_line_program(self.body(debug_line), targets, default)


def _emit(rows: list[LineRow], sequence: list[LineRow], row: LineRow, inlined_at: int) -> None:
    """Add ``row`` to the table, with the call chain of the row of its sequence it was inlined at."""
    if 0 < inlined_at <= len(sequence):
        at = sequence[inlined_at - 1]
        row = replace(row, callers=SourceLoc(at.file, at.line, at.column, at.callers).as_caller())
    sequence.append(row)
    rows.append(row)


# .nv.info attributes (cuobjdump -elf names them): EIATTR_REGCOUNT and EIATTR_FRAME_SIZE, each
# "symbol index, value" (format EIFMT_SVAL: a u8 format, a u8 attribute, a u16 size, then the data).
_EIFMT_SVAL = 4
_EIATTR_REGCOUNT = 0x2F
_EIATTR_FRAME_SIZE = 0x11


def function_resources(cubin: Cubin) -> dict[int, dict[str, int]]:
    """``{symbol index: {"registers": n, "frame": bytes}}`` from .nv.info, what ``cuobjdump -res-usage`` reads.

    The figures the driver reports when it loads the module (``CU_FUNC_ATTRIBUTE_NUM_REGS``,
    ``LOCAL_SIZE_BYTES``): a machine without a GPU reads them here.
    """
    info = cubin.section(".nv.info")
    out: dict[int, dict[str, int]] = {}
    if info is None:
        return out
    body, pos = cubin.body(info), 0
    while pos + 4 <= len(body):
        fmt, attr, size = body[pos], body[pos + 1], struct.unpack_from("<H", body, pos + 2)[0]
        pos += 4
        if fmt != _EIFMT_SVAL:
            continue  # the u16 was the value itself
        if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and size == 8 and pos + 8 <= len(body):
            symbol, value = struct.unpack_from("<II", body, pos)
            out.setdefault(symbol, {})["registers" if attr == _EIATTR_REGCOUNT else "frame"] = value
        pos += size
    return out


def kernel_resources(cubin: bytes) -> dict[str, int]:
    """A cubin of one kernel: its registers and stack frame, as ``Compiled.cubin_resources`` holds them
    (``{"registers": n, "stack_frame": bytes}``); empty for any other cubin, whose figures are no one kernel's."""
    found = list(function_resources(Cubin(cubin)).values())
    if len(found) != 1:
        return {}
    out = {"registers": found[0]["registers"]} if "registers" in found[0] else {}
    if "frame" in found[0]:
        out["stack_frame"] = found[0]["frame"]
    return out


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def _sleb(data: bytes, pos: int) -> tuple[int, int]:
    """The signed LEB128 at ``pos``: the unsigned reading, sign-extended from its last byte's bit 6."""
    result, end = _uleb(data, pos)
    if data[end - 1] & 0x40:
        result -= 1 << (7 * (end - pos))
    return result, end


def parse_line_program(data: bytes, targets: dict[int, str], default_section: str) -> list[LineRow]:
    """Run every DWARF (v2-v4) line-number program in ``data``; return the emitted rows."""
    rows: list[LineRow] = []
    unit = 0
    while unit + 4 <= len(data):
        length = struct.unpack_from("<I", data, unit)[0]
        end = unit + 4 + length
        version = struct.unpack_from("<H", data, unit + 4)[0]
        header_length = struct.unpack_from("<I", data, unit + 6)[0]
        pos = unit + 10
        min_inst = data[pos]
        pos += 1
        if version >= 4:
            pos += 1  # maximum_operations_per_instruction
        pos += 1  # default_is_stmt
        line_base = struct.unpack_from("<b", data, pos)[0]
        line_range, opcode_base = data[pos + 1], data[pos + 2]
        std_lengths = list(data[pos + 3 : pos + 3 + opcode_base - 1])
        pos += 3 + opcode_base - 1
        dirs = [""]
        while data[pos] != 0:
            end_s = data.index(b"\0", pos)
            dirs.append(data[pos:end_s].decode("utf-8", "replace"))
            pos = end_s + 1
        pos += 1
        files = [""]
        while data[pos] != 0:
            end_s = data.index(b"\0", pos)
            name = data[pos:end_s].decode("utf-8", "replace")
            dir_index, pos = _uleb(data, end_s + 1)
            _, pos = _uleb(data, pos)  # mtime
            _, pos = _uleb(data, pos)  # length
            directory = dirs[dir_index] if dir_index < len(dirs) else ""
            files.append(name if name.startswith("/") or not directory else f"{directory}/{name}")
        pos = unit + 10 + header_length

        address, file, line, column, section, inlined_at = 0, 1, 1, 0, default_section, 0
        sequence: list[LineRow] = []  # this sequence's rows, which inlined_at counts

        while pos < end:
            op = data[pos]
            pos += 1
            if op >= opcode_base:
                adjusted = op - opcode_base
                address += (adjusted // line_range) * min_inst
                line += line_base + adjusted % line_range
                _emit(
                    rows,
                    sequence,
                    LineRow(section, address, files[file] if file < len(files) else "", line, column),
                    inlined_at,
                )
            elif op == 0:  # extended opcode
                size, pos = _uleb(data, pos)
                sub = data[pos]
                if sub == 1:  # end_sequence
                    address, file, line, column, inlined_at = 0, 1, 1, 0, 0
                    sequence.clear()
                elif sub == DW_LNE_NVIDIA_INLINED_AT and size > 1:
                    inlined_at, _ = _uleb(data[: pos + size], pos + 1)
                elif sub == 2:  # set_address
                    section = targets.get(pos + 1, default_section)
                    address = int.from_bytes(data[pos + 1 : pos + size], "little")
                pos += size
            elif op == 1:  # copy
                _emit(
                    rows,
                    sequence,
                    LineRow(section, address, files[file] if file < len(files) else "", line, column),
                    inlined_at,
                )
            elif op == 2:  # advance_pc
                delta, pos = _uleb(data, pos)
                address += delta * min_inst
            elif op == 3:  # advance_line
                delta, pos = _sleb(data, pos)
                line += delta
            elif op == 4:  # set_file
                file, pos = _uleb(data, pos)
            elif op == 5:  # set_column
                column, pos = _uleb(data, pos)
            elif op == 8:  # const_add_pc
                address += ((255 - opcode_base) // line_range) * min_inst
            elif op == 9:  # fixed_advance_pc
                address += struct.unpack_from("<H", data, pos)[0]
                pos += 2
            else:  # negate_stmt, basic_block, and any opcode we do not use: skip its operands
                for _ in range(std_lengths[op - 1] if op - 1 < len(std_lengths) else 0):
                    _, pos = _uleb(data, pos)
        unit = end
    return rows
