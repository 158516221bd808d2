"""Listings normalised for diffing: only real changes should survive.

Two compiles of the same code differ in ways that mean nothing: source locations
(``loc(...)``, ``!dbg``, ``.loc``, SASS line comments), the numbering of SSA
values, virtual registers and labels. Normalising drops the first and renames
the second canonically, by order of first appearance, so a listing and a
renumbered copy of it normalise to the same lines. Normalising is idempotent.
Each kept line remembers its index in the original listing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import repeat
from typing import NamedTuple

from .amdgcn import LABEL, NUMBERED_LABEL

WHITESPACE = re.compile(r"\s+")
# Within lines (newlines kept), a run of spaces and tabs that is not already one space: what `[ \t]+`
# replaced by a space would change, found without stopping at every single space of a long listing.
WHITESPACE_RUN = re.compile(r"[ \t][ \t]+|\t")


class NormalizedLine(NamedTuple):
    index: int  # type: ignore[assignment]  # 0-based line in the original listing (shadows tuple.index)
    text: str


def normalized_lines(indices: Iterable[int], texts: Iterable[str]) -> list[NormalizedLine]:
    """``NormalizedLine(i, text)`` for each pair, made in C (NamedTuple's own ``__new__`` is Python)."""
    return list(map(tuple.__new__, repeat(NormalizedLine), zip(indices, texts)))


class _Renamer:
    """Canonical names by order of first appearance, one counter per class."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, str], str] = {}
        self.counts: dict[str, int] = {}

    def __call__(self, cls: str, original: str, make: Callable[[int], str]) -> str:
        key = (cls, original)
        if key not in self.names:
            n = self.counts.get(cls, 0)
            self.counts[cls] = n + 1
            self.names[key] = make(n)
        return self.names[key]


# ---------------------------------------------------------------- PTX

# %r12, %rd3, %f4, %p1, %rs2, %fd1 (not %r<14> declarations, not %tid.x) and labels like $L__BB0_3
PTX_TOKEN = re.compile(r"%[a-z]+\d+\b|\$L__BB\d+_\d+|\$L\d+\b")
PTX_DEBUG_LABEL = re.compile(r"^\$L__(?:tmp|func_begin|func_end|info_string)\d+:")
PTX_REG_COUNT = re.compile(r"<\d+>")


def clean_ptx(text: str) -> list[NormalizedLine]:
    """The PTX's instructions and directives, without locations, comments and debug tables; names as they are."""
    kept: list[NormalizedLine] = []
    for i, line in enumerate(text.splitlines()):
        code = line.strip()
        if not code:
            continue
        first = code[0]
        if first == "/":
            continue  # a comment line
        if "//" in code:
            code = code[: code.index("//")].rstrip()
        if first == ".":
            if code.startswith(".section"):
                break  # DWARF tables follow the function
            if code.split(None, 1)[0] in (".loc", ".file"):  # not `.local`: a spill's stack is a real change
                continue
        elif first == "$" and PTX_DEBUG_LABEL.match(code):
            continue
        if code.startswith(".reg ") and "<" in code:
            # `.reg .b32 %r<36>;` counts the virtual registers: it changes with any added one and says
            # nothing of its own (ptxas's register count is in the summary)
            code = PTX_REG_COUNT.sub("<N>", code)
        kept.append(NormalizedLine(i, " ".join(code.split())))
    return kept


def normalize_ptx(text: str) -> list[NormalizedLine]:
    kept = clean_ptx(text)
    # One scan for the tokens and one substitution over the whole body: much faster
    # than per-line work on listings of tens of thousands of lines.
    body = "\n".join(code for _, code in kept)
    names: dict[str, str] = {}
    counts: dict[str, int] = {}
    for token in dict.fromkeys(PTX_TOKEN.findall(body)):
        cls = "$L" if token[0] == "$" else token[1:].rstrip("0123456789")
        n = counts.get(cls, 0)
        counts[cls] = n + 1
        names[token] = f"$L{n}" if cls == "$L" else f"%{cls}{n}"
    lines = PTX_TOKEN.sub(lambda m: names[m[0]], body).split("\n") if kept else []
    return [NormalizedLine(i, code) for (i, _), code in zip(kept, lines)]


# ---------------------------------------------------------------- MLIR (TTIR / TTGIR)

MLIR_VALUE = re.compile(r"%(?P<name>[A-Za-z_$.][\w$.]*|\d+)(?P<sub>#\d+)?")
MLIR_BLOCK = re.compile(r"\^bb\d+")
NAME_SUFFIX = re.compile(r"^(?P<base>.*?)(?:_\d+)?$")
# A JIT helper's symbol carries its specialisation: @"triton.language.standard.max__fp32S1024S__(1,)cconstexpr_0__"
# (Triton 3.6), @triton.language.standard.max__fp32S1024S_c0_cFalse (3.9). The shape in it follows the
# config, and the spelling follows the Triton version: neither is a change in the code.
MLIR_SYMBOL = re.compile(r'@(?:"(?P<quoted>[^"]*)"|(?P<bare>[\w.$]+))')
MANGLED = re.compile(r"^(?P<base>.+?)__")


def _symbol(m: re.Match) -> str:
    name = m["quoted"] if m["quoted"] is not None else m["bare"]
    mangled = MANGLED.match(name)
    return "@" + (mangled["base"] if mangled else name)


def _strip_locs(line: str) -> str:
    """Remove every ``loc(...)`` (balanced) from a line."""
    out, i = [], 0
    while True:
        j = line.find("loc(", i)
        if j == -1 or (j > 0 and (line[j - 1].isalnum() or line[j - 1] == "_")):
            if j == -1:
                out.append(line[i:])
                break
            out.append(line[i : j + 4])
            i = j + 4
            continue
        out.append(line[i:j])
        depth, k = 0, j + 3
        while k < len(line):
            if line[k] == "(":
                depth += 1
            elif line[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1
    return "".join(out)


def normalize_mlir(text: str) -> list[NormalizedLine]:
    rename = _Renamer()

    def value(m: re.Match) -> str:
        name = m["name"]
        if name.isdigit():
            return rename("num", m[0], lambda n: f"%{n}")
        suffixed = NAME_SUFFIX.match(name)
        base = "arg" if re.fullmatch(r"arg\d+", name) else (suffixed["base"] if suffixed else "") or name
        return rename("val:" + base, m[0], lambda n: f"%{base}" if n == 0 else f"%{base}_{n}")

    out = []
    for i, line in enumerate(text.splitlines()):
        if not line.strip() or line.startswith("#loc"):
            continue
        code = _strip_locs(line).rstrip()
        code = MLIR_VALUE.sub(value, code)
        code = MLIR_SYMBOL.sub(_symbol, code)
        code = MLIR_BLOCK.sub(lambda m: rename("block", m[0], lambda n: f"^bb{n}"), code)
        code = WHITESPACE.sub(" ", code).strip()
        if code:
            out.append(NormalizedLine(i, code))
    return out


# ---------------------------------------------------------------- LLVM IR

LLVM_NUMBERED = re.compile(r"%(\d+)\b")
LLVM_BLOCK_LINE = re.compile(r"^(\d+):")
LLVM_METADATA_ATTACHMENT = re.compile(r",\s*!\w+\s+!\d+")
LLVM_PREDS_COMMENT = re.compile(r"\s+;\s*preds = .*$")


def normalize_llvm(text: str) -> list[NormalizedLine]:
    rename = _Renamer()

    def numbered(original: str) -> str:
        return rename("num", original, lambda n: str(n))

    out = []
    for i, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if not stripped or stripped.startswith((";", "!", "source_filename", "attributes #")):
            continue
        code = LLVM_METADATA_ATTACHMENT.sub("", line)
        code = re.sub(r"\s!dbg\s!\d+", "", code)
        code = LLVM_PREDS_COMMENT.sub("", code)
        block = LLVM_BLOCK_LINE.match(code)
        if block:
            code = numbered(block.group(1)) + ":" + code[block.end() :]
        code = LLVM_NUMBERED.sub(lambda m: "%" + numbered(m.group(1)), code)
        out.append(NormalizedLine(i, WHITESPACE.sub(" ", code).strip()))
    return out


# ---------------------------------------------------------------- SASS

SASS_REGISTER = re.compile(r"\b(?P<cls>UR|UP|R|P|B)(?P<n>\d+)\b")
SASS_LABEL = re.compile(r"\.L_x_\d+")
SASS_ADDRESS = re.compile(r"/\*[0-9a-f]+\*/")


def clean_sass(text: str) -> list[NormalizedLine]:
    """The SASS instructions and branch labels, without addresses, line comments and headers; names as they are."""
    kept = []
    for i, line in enumerate(text.splitlines()):
        code = line.strip()
        if not code or code.startswith("//") or code.endswith(":") and not code.startswith(".L_x_"):
            continue
        kept.append((i, code))
    # `.reuse` marks an operand for the register reuse cache: the scheduler's hint, not what is computed
    body = WHITESPACE_RUN.sub(" ", SASS_ADDRESS.sub("", "\n".join(code for _, code in kept)).replace(".reuse", ""))
    return normalized_lines((i for i, _ in kept), map(str.strip, body.split("\n"))) if kept else []


def _named(cls: str) -> Callable[[int], str]:
    """A register class's n-th name: R0, UR3, P1."""
    return lambda n: f"{cls}{n}"


def normalize_sass(text: str) -> list[NormalizedLine]:
    rename = _Renamer()
    out = []
    for line in clean_sass(text):
        code = SASS_REGISTER.sub(lambda m: rename(m["cls"], m[0], _named(m["cls"])), line.text)
        code = SASS_LABEL.sub(lambda m: rename("label", m[0], lambda n: f".L_x_{n}"), code)
        out.append(NormalizedLine(line.index, code))
    return out


# ---------------------------------------------------------------- AMDGCN


def normalize_amdgcn(text: str) -> list[NormalizedLine]:
    """The function's instructions and directives, without locations, comments and debug data; the
    compiler-numbered labels renumbered by first appearance. Registers stay: they are physical (as in SASS)."""
    kept: list[tuple[int, str]] = []
    in_debug = False
    for i, line in enumerate(text.splitlines()):
        code = line.split(";", 1)[0].strip()
        if not code:
            continue
        word = code.split(None, 1)[0]
        if word == ".section" or word in (".text", ".amdgpu_metadata"):
            in_debug = ".debug_" in code
        if in_debug or word in (".loc", ".file", ".cfi_startproc", ".cfi_endproc", ".cfi_sections"):
            continue
        if LABEL.match(code) and code.startswith(".Ltmp"):
            continue  # a debug-info anchor: no code of its own
        kept.append((i, " ".join(code.split())))
    names: dict[str, str] = {}
    body = "\n".join(code for _, code in kept)
    for token in dict.fromkeys(NUMBERED_LABEL.findall(body)):
        names[token] = f".L{len(names)}"
    lines = NUMBERED_LABEL.sub(lambda m: names[m[0]], body).split("\n") if kept else []
    return normalized_lines((i for i, _ in kept), lines)


def normalize_source(text: str) -> list[NormalizedLine]:
    return [NormalizedLine(i, line.rstrip()) for i, line in enumerate(text.splitlines())]


def raw_lines(text: str) -> list[NormalizedLine]:
    return [NormalizedLine(i, line) for i, line in enumerate(text.splitlines())]
