"""A PTX module's top-level items, and the part of it one kernel is made of.

nvcc compiles a whole ``.cu`` file into one PTX module: every ``__global__`` kernel is an
``.entry`` of it. A kernel's listing is its own ``.entry``, the ``.func``s it calls (and
theirs), the module variables they name, the module header and the ``.file`` table its
``.loc`` lines refer to, and the ``.debug_str`` labels those lines name; the other kernels
are left out, so every fact counted on the listing is the kernel's own. The slice is still
a PTX module ptxas assembles (its ``-v`` report for the entry is the whole module's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# .visible .entry _Z8warp_sumPKfPf(        .func  (.param .b32 func_retval0) _Z6helperf(
# (multiline: found across a whole listing at once, Triton's running to tens of thousands of lines)
FUNCTION_HEAD = re.compile(
    r"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.(entry|func)[ \t]+(?:\([^)]*\)\s*)?([\w$]+)", re.M
)
# .global .align 4 .b8 table[128] = {1, 2, ...};        .extern .shared .align 16 .b8 smem[];
VARIABLE_NAME = re.compile(r"([\w$]+)\s*(?:\[[^\]]*\]\s*)*(?:=|;)")
VARIABLE_HEAD = re.compile(
    r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.(?:global|const|shared|local|tex|surf|samplerref)\b"
)
# 	.file	1 "/tmp/k.cu"        .version 9.0        .target sm_90        .address_size 64
ONE_LINE_DIRECTIVE = re.compile(r"^\s*\.(?:file|version|target|address_size)\b")
# $L__info_string0:
DEBUG_LABEL = re.compile(r"^\s*([\w$]+):\s*$")
SYMBOL = re.compile(r"[A-Za-z_$][\w$]*")
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class Item:
    """Lines ``start`` to ``end`` (exclusive, 0-based) of the module: one top-level thing."""

    kind: str  # "entry", "func", "prototype", "variable", "section", "directive", "comment"
    name: str  # the symbol it defines ("" for none)
    start: int
    end: int


def _code(line: str) -> str:
    """The line without its comment and quoted strings (a ``.file`` path may hold braces)."""
    return QUOTED.sub('""', line).split("//", 1)[0]


def items(text: str) -> list[Item]:
    """The module's top-level items, in order."""
    lines = text.split("\n")
    out: list[Item] = []
    i = 0
    while i < len(lines):
        code = _code(lines[i]).strip()
        if not code:
            out.append(Item("comment", "", i, i + 1))
            i += 1
            continue
        if ONE_LINE_DIRECTIVE.match(code):
            out.append(Item("directive", "", i, i + 1))
            i += 1
            continue
        start, depth, opened = i, 0, False
        while i < len(lines):  # to the line that closes its braces, or ends it with ';' outside any
            code = _code(lines[i])
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            i += 1
            if depth <= 0 and (opened or code.rstrip().endswith(";")):
                break
        out.append(_classify(lines, start, i, opened))
    return out


def _classify(lines: list[str], start: int, end: int, has_body: bool) -> Item:
    head = " ".join(_code(line).strip() for line in lines[start:end])
    m = FUNCTION_HEAD.match(head)
    if m:
        return Item(m.group(1) if has_body else "prototype", m.group(2), start, end)
    if head.startswith(".section"):
        return Item("section", head.split()[1] if len(head.split()) > 1 else "", start, end)
    if VARIABLE_HEAD.match(head):
        m = VARIABLE_NAME.search(head.split("=", 1)[0] + ("=" if "=" in head else ";"))
        return Item("variable", m.group(1) if m else "", start, end)
    return Item("directive", "", start, end)


def entries(text: str) -> list[str]:
    """The names of the module's ``.entry`` functions (its kernels), in order."""
    return [name for kind, name in FUNCTION_HEAD.findall(text) if kind == "entry"]


def function_names(text: str) -> list[str]:
    """The functions (``.entry`` and ``.func``) the module names: a prototype's too, whose code it has not."""
    return list(dict.fromkeys(name for _, name in FUNCTION_HEAD.findall(text)))


def kernel_slice(text: str, entry: str) -> str:
    """The part of the module that makes up the kernel ``entry`` (the whole text when it is the only kernel)."""
    module = items(text)
    kernels = [item.name for item in module if item.kind == "entry"]
    if entry not in kernels or len(kernels) == 1:
        return text
    lines = text.split("\n")
    defined = {item.name: item for item in module if item.kind in ("entry", "func", "variable") and item.name}
    keep = _needed(entry, defined, lines)
    kept_text = "\n".join(line for name in keep for line in lines[defined[name].start : defined[name].end])
    used = set(SYMBOL.findall(kept_text))
    dropped = {name for name in defined if name not in keep}
    out: list[str] = []
    first_code = next((item.start for item in module if item.kind != "comment"), 0)
    for item in module:
        chunk = lines[item.start : item.end]
        if item.kind in ("entry", "func", "variable"):
            if item.name in keep:
                out += chunk
        elif item.kind == "prototype":  # of a kept .func, or of an external one it calls (vprintf)
            if item.name in used:
                out += chunk
        elif item.kind == "section":
            out += _section_slice(chunk, used) if item.name == ".debug_str" else chunk
        elif item.kind == "comment" and item.start >= first_code:
            # `// .globl NAME`, `// NAME has been demoted`: about one kernel or another
            names = set(SYMBOL.findall(chunk[0]))
            if not names & (dropped - used) and not _local_to_dropped(names, used, lines, module, keep):
                out += chunk
        else:
            out += chunk
    return "\n".join(_squeeze_blank(out))


def _needed(entry: str, defined: dict[str, Item], lines: list[str]) -> list[str]:
    """``entry`` and every function and variable it names, directly or through them, in module order."""
    keep = {entry}
    todo = [entry]
    while todo:
        item = defined[todo.pop()]
        for symbol in set(SYMBOL.findall("\n".join(_code(line) for line in lines[item.start : item.end]))):
            if symbol in defined and symbol not in keep:
                keep.add(symbol)
                todo.append(symbol)
    return sorted(keep, key=lambda name: defined[name].start)


def _local_to_dropped(names: set[str], used: set[str], lines: list[str], module: list[Item], keep: list[str]) -> bool:
    """Does a comment name something declared only inside a dropped function (a demoted ``__shared__`` array)?"""
    unknown = {name for name in names - used if name.startswith(("_", "$"))}
    if not unknown:
        return False
    for item in module:
        if item.kind in ("entry", "func") and item.name not in keep:
            body = set(SYMBOL.findall("\n".join(lines[item.start : item.end])))
            if unknown & body:
                return True
    return False


def _section_slice(chunk: list[str], used: set[str]) -> list[str]:
    """A ``.debug_str`` section with only the strings the kept ``.loc`` lines name (inlined functions' names)."""
    out, keeping = [], True
    for line in chunk:
        m = DEBUG_LABEL.match(line)
        if m:
            keeping = m.group(1) in used
        elif line.strip() in ("{", "}") or line.lstrip().startswith(".section"):
            keeping = True
        if keeping:
            out.append(line)
    return out


def _squeeze_blank(lines: list[str]) -> list[str]:
    """No run of more than two blank lines where dropped items stood."""
    out: list[str] = []
    for line in lines:
        if not line.strip() and len(out) >= 2 and not out[-1].strip() and not out[-2].strip():
            continue
        out.append(line)
    return out
