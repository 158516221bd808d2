"""C++ names back from the mangled symbols nvcc gives kernels (``_ZN2v14normEPKfPfi`` -> ``v1::norm(...)``).

The CUDA toolkit's ``cu++filt`` beside nvcc, else the system's ``c++filt`` (binutils: nvcc
mangles as the host compiler does, by the Itanium C++ ABI). The symbols are PTX identifiers
checked to be one, passed as arguments, never through a shell.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

SYMBOL = re.compile(r"[A-Za-z_$][\w$]*")


def demangler(toolkit_bin: str | None = None) -> str | None:
    """cu++filt from the toolkit's ``bin`` folder, else c++filt on PATH; None when neither is there."""
    if toolkit_bin:
        beside = Path(toolkit_bin) / "cu++filt"
        if beside.is_file():
            return str(beside)
    return shutil.which("cu++filt") or shutil.which("c++filt")


def demangle(symbols: Sequence[str], toolkit_bin: str | None = None) -> dict[str, str]:
    """Each symbol's C++ name (itself where it is not mangled); {} when no demangler runs here."""
    tool = demangler(toolkit_bin)
    names = [s for s in dict.fromkeys(symbols) if SYMBOL.fullmatch(s)]
    if tool is None or not names:
        return {}
    try:
        proc = subprocess.run([tool, *names], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != len(names):
        return {}
    return dict(zip(names, lines))
