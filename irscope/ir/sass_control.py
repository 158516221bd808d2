"""The scheduling ("control") bits of each SASS instruction, read from the cubin.

Since Volta every instruction is one 128-bit word whose top bits carry what the
compiler decided about scheduling: how many cycles to stall before the next
instruction issues, whether the warp may yield, which of six scoreboards
("dependency barriers") the instruction sets when its result lands or when its
sources have been read, which scoreboards it waits on, and which source operands
are kept in the operand reuse cache. nvdisasm and cuobjdump do not print them;
Jia et al. worked the layout out ("Dissecting the NVIDIA Volta GPU Architecture
via Microbenchmarking", 2018, section 2.1), and CuAssembler, turingas and
Triton's own ``triton/tools/disasm.py`` read them the same way. irscope checks the
layout against the listing: the reuse bits match the ``.reuse`` operands nvdisasm
prints, and a load's write scoreboard is the one its consumer waits on.
"""

from __future__ import annotations

from dataclasses import dataclass

from .elf import Cubin

SECTION = "Jia et al. 2018, Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking, 2.1 Control information"
NO_BARRIER = 7  # the 3-bit barrier field's "none"
INSTRUCTION_BYTES = 16


@dataclass(frozen=True)
class Control:
    """What one instruction's control bits say (bits 105-125 of its 128-bit word)."""

    stall: int  # cycles before the warp issues its next instruction (0-15)
    yields: bool  # the scheduler may switch to another warp after this one
    write_barrier: int | None  # scoreboard set until the result is written (variable-latency ops), or None
    read_barrier: int | None  # scoreboard set until the source registers have been read, or None
    wait_mask: int  # bit i: wait until scoreboard i is clear before issuing
    reuse: int  # bit i: keep source operand slot i in the operand reuse cache

    @property
    def waits_on(self) -> tuple[int, ...]:
        return tuple(i for i in range(6) if self.wait_mask >> i & 1)

    section = SECTION

    def describe(self) -> str:
        """``waits on scoreboard 0, stalls 4 cycles, then yields``, in plain words."""
        words = []
        if self.waits_on:
            words.append(
                "waits on scoreboard" + ("s " if len(self.waits_on) > 1 else " ") + ", ".join(map(str, self.waits_on))
            )
        if self.write_barrier is not None:
            words.append(f"sets scoreboard {self.write_barrier} until its result is written")
        if self.read_barrier is not None:
            words.append(f"sets scoreboard {self.read_barrier} until its sources are read")
        words.append(f"stalls {self.stall} cycle{'s' if self.stall != 1 else ''}")
        text = ", ".join(words)
        text += ", then yields" if self.yields else ""
        if self.reuse:
            slots = [str(i) for i in range(4) if self.reuse >> i & 1]
            text += f"; keeps source slot{'s' if len(slots) > 1 else ''} {', '.join(slots)} in the reuse cache"
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "stall": self.stall,
            "yields": self.yields,
            "write_barrier": self.write_barrier,
            "read_barrier": self.read_barrier,
            "waits_on": list(self.waits_on),
            "reuse": self.reuse,
        }

    @property
    def code(self) -> str:
        """The compact form Triton's SASS dump prints: wait mask:read:write:yield:stall (``--:-:0:Y:4``)."""
        wait = f"{self.wait_mask:02d}" if self.wait_mask else "--"
        read = "-" if self.read_barrier is None else str(self.read_barrier)
        write = "-" if self.write_barrier is None else str(self.write_barrier)
        return f"{wait}:{read}:{write}:{'Y' if self.yields else '-'}:{self.stall:x}"


def decode(word: bytes) -> Control:
    """The control bits of one 16-byte instruction word (little-endian, as stored in the cubin)."""
    high = int.from_bytes(word[8:16], "little")
    write, read = high >> 46 & 7, high >> 49 & 7
    return Control(
        stall=high >> 41 & 0xF,
        yields=not high >> 45 & 1,  # the bit is clear when the warp may yield
        write_barrier=None if write == NO_BARRIER else write,
        read_barrier=None if read == NO_BARRIER else read,
        wait_mask=high >> 52 & 0x3F,
        reuse=high >> 58 & 0xF,
    )


def code_controls(code: bytes) -> dict[int, Control]:
    """Each instruction's address in one code section -> its control bits (Volta and later only)."""
    return {
        addr: decode(code[addr : addr + INSTRUCTION_BYTES])
        for addr in range(0, len(code) - INSTRUCTION_BYTES + 1, INSTRUCTION_BYTES)
    }


def controls(cubin: bytes | Cubin) -> dict[str, dict[int, Control]]:
    """Per code section (``.text.<kernel>``) of a cubin, each instruction's address -> its control bits.

    Empty for code from before Volta (sm_70), which packs control bits differently.
    """
    elf = cubin if isinstance(cubin, Cubin) else Cubin(cubin)
    if elf.sm < 70:
        return {}
    return {section.name: code_controls(elf.body(section)) for section in elf.text_sections()}
