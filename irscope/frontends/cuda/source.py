"""What a CUDA C++ file declares, read from its text: its ``__global__`` kernels and its tunable macros.

Nothing here compiles. A kernel is a ``__global__`` function; a tunable is a macro the
file lets the command line override, the usual way::

    #ifndef TILE
    #define TILE 16
    #endif

so ``-c TILE=32`` becomes ``-DTILE=32``. Comments and string literals are blanked
(same line numbers) before anything is looked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# __global__ void square_matrix_kernel(   /   extern "C" __global__ void __launch_bounds__(256) k(
GLOBAL = re.compile(r"__global__\s+(?:[\w:<>,\s*&]*?\s)?(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(")
IFNDEF = re.compile(r"^\s*#\s*ifndef\s+(\w+)\s*$")
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(.+?)\s*$")


@dataclass(frozen=True)
class CudaKernelDecl:
    name: str
    line: int  # 1-based


def blank_comments(text: str) -> str:
    """``text`` with comments and string/char literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # keep `extern "C"` readable: it is the one string that matters here
            out.append(text[i:j] if text[i:j] == '"C"' else c + " " * max(j - i - 2, 0) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def kernels(text: str) -> list[CudaKernelDecl]:
    """Every ``__global__`` function, in file order (a name declared twice, once)."""
    clean = blank_comments(text)
    out: dict[str, CudaKernelDecl] = {}
    for m in GLOBAL.finditer(clean):
        name = m.group(1)
        if name not in out and name != "__launch_bounds__":
            out[name] = CudaKernelDecl(name, clean.count("\n", 0, m.start(1)) + 1)
    return list(out.values())


def entry_name(ptx: str, kernel: str) -> str | None:
    """The PTX entry of ``kernel``: its own name (``extern "C"``) or its C++ mangling (``_Z<len><name>...``)."""
    entries = re.findall(r"\.entry\s+(\w+)\s*\(", ptx)
    if kernel in entries:
        return kernel
    mangled = f"_Z{len(kernel)}{kernel}"
    return next((e for e in entries if e.startswith(mangled)), None)


def tunable_macros(text: str) -> dict[str, object]:
    """``#ifndef NAME / #define NAME value``: NAME's default, read as a number where it is one."""
    lines = blank_comments(text).splitlines()
    out: dict[str, object] = {}
    for i, line in enumerate(lines[:-1]):
        m = IFNDEF.match(line)
        if not m:
            continue
        d = DEFINE.match(lines[i + 1])
        if d and d.group(1) == m.group(1):
            out[m.group(1)] = _value(d.group(2))
    return out


def _value(text: str) -> object:
    text = text.strip().rstrip("fFuUlL") if re.fullmatch(r"[\d.eE+-]+[fFuUlL]*", text.strip()) else text.strip()
    for read in (int, float):
        try:
            return read(text)
        except ValueError:
            pass
    if text in ("true", "false"):
        return text == "true"
    return text
