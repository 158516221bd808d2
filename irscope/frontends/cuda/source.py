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

import bisect
import re
from dataclasses import dataclass

from .templates import is_template, with_instances

# __global__ void square_matrix_kernel(   /   extern "C" __global__ void __launch_bounds__(256) k(
GLOBAL = re.compile(r"__global__\s+(?:[\w:<>,\s*&]*?\s)?(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(")
IFNDEF = re.compile(r"^\s*#\s*ifndef\s+(\w+)\s*$")
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(.+?)\s*$")


# namespace v1 {     namespace a::b {     inline namespace detail {     namespace {     and every brace
SCOPE = re.compile(r"\bnamespace\s+((?:[A-Za-z_]\w*\s*::\s*(?:inline\s+)?)*[A-Za-z_]\w*)?\s*\{|[{}]")
MOST_NESTED = 64  # namespaces open at once that are read


@dataclass(frozen=True)
class CudaKernelDecl:
    name: str  # as C++ qualifies it: v1::norm (no namespace: norm)
    line: int  # 1-based
    template: bool = False
    # A template's instantiations the file spells out (explicit instantiation, launch, address taken): "<float>"
    instances: tuple[str, ...] = ()
    # Some use's arguments name a template parameter or a macro: nvcc may make instantiations not listed here.
    open_uses: bool = False

    @property
    def openable(self) -> list[str]:
        """The names that open it: each instantiation of a template, or the kernel itself."""
        return [self.name + args for args in self.instances] or [self.name]


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
    """Every ``__global__`` function, in file order (a name declared twice, once), named with its namespaces;
    a template with the instantiations the file spells out (templates.py)."""
    clean = blank_comments(text)
    scopes = Scopes(clean)
    newlines = [m.start() for m in re.finditer("\n", clean)]
    found: dict[str, CudaKernelDecl] = {}
    for m in GLOBAL.finditer(clean):
        name = m.group(1)
        if name == "__launch_bounds__":
            continue
        qualified = "::".join([*scopes.at(m.start()), name])
        if qualified not in found:
            line = bisect.bisect_left(newlines, m.start(1)) + 1
            found[qualified] = CudaKernelDecl(qualified, line, is_template(clean, m.start()))
    return with_instances(clean, list(found.values()), scopes)


class Scopes:
    """The namespaces open at each point of a (comment-blanked) text."""

    def __init__(self, clean: str) -> None:
        self.marks: list[int] = [0]  # where the namespaces open change: `namespace X {` and the brace closing it
        self.open: list[tuple[str, ...]] = [()]
        stack: list[bool] = []  # for each brace open: does it open a namespace
        names: list[str] = []  # the namespaces open, outermost first (`a::b` as two)
        for m in SCOPE.finditer(clean):
            token = m.group(0)
            if token == "{":
                stack.append(False)
                continue
            if token == "}":
                if not stack or not stack.pop():
                    continue
                names.pop()
            else:
                parts = [re.sub(r"^inline\s+", "", part.strip()) for part in (m.group(1) or "").split("::")]
                stack.append(True)
                # an anonymous namespace is no part of a name (nvcc's entries spell it `(anonymous namespace)`)
                names.append("::".join(part for part in parts if part))
            if len(names) <= MOST_NESTED:  # deeper is no real file's: its names are not spelled out
                self.marks.append(m.end())
                self.open.append(tuple(part for name in names if name for part in name.split("::")))

    def at(self, position: int) -> tuple[str, ...]:
        """The namespaces open at ``position``, outermost first (``a::b`` counted as two)."""
        return self.open[max(bisect.bisect_right(self.marks, position) - 1, 0)]


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
