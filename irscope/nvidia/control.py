"""Control bits of every instruction in a cubin (see ``irscope.ir.sass_control`` for the layout)."""

from __future__ import annotations

from ..ir.sass_control import Control, code_controls
from .elf import Cubin


def controls(cubin: bytes | Cubin) -> dict[str, dict[int, Control]]:
    """Per code section (``.text.<kernel>``), each instruction's address -> its control bits.

    Empty for code from before Volta (sm_70), which packs control bits differently.
    """
    elf = cubin if isinstance(cubin, Cubin) else Cubin(cubin)
    if elf.sm < 70:
        return {}
    return {section.name: code_controls(elf.body(section)) for section in elf.text_sections()}
