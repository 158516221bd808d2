"""Which Python line each line of each stage came from.

Every stage records source positions its own way: MLIR ``loc(...)`` references
into a ``#loc`` table (named, callsite and fused forms), LLVM ``!dbg`` metadata
chains, PTX and AMDGCN ``.loc`` directives with an inlining comment, and SASS line comments.
Each parser here turns a listing into one ``SourceLoc | None`` per line.
"""

from __future__ import annotations

import operator
import os
import re
from itertools import chain, compress, count

from ..types import SourceLoc

LineLocs = list["SourceLoc | None"]

# ---------------------------------------------------------------- MLIR (TTIR/TTGIR)

# #loc12 = loc("/work/kernels/square.py":14:26)
MLIR_LOC_DEF = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$")
# "/work/kernels/square.py":14:26   (optionally followed by " to 14:30")
LOC_NAME = re.compile(r"#loc\d*")  # #loc12, in `loc(#loc12)` or `callsite(#loc3 at #loc4)`
MLIR_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


class _MlirLocParser:
    """Resolves MLIR location expressions against the module's #loc table."""

    def __init__(self, defs: dict[str, str]) -> None:
        self.defs = defs
        self.cache: dict[str, SourceLoc | None] = {}

    def alias(self, name: str, depth: int = 0) -> SourceLoc | None:
        if name not in self.cache:
            self.cache[name] = None  # breaks accidental cycles
            body = self.defs.get(name)
            self.cache[name] = self.expr(body, depth + 1)[0] if body is not None and depth < 64 else None
        return self.cache[name]

    def expr(self, text: str, depth: int = 0) -> tuple[SourceLoc | None, str]:
        """Parse one location expression at the start of ``text``; return it and the rest."""
        text = text.lstrip()
        if text.startswith("#loc"):
            name = LOC_NAME.match(text)
            if name is not None:
                return self.alias(name.group(0), depth), text[name.end() :]
        if text.startswith("unknown"):
            return None, text[len("unknown") :]
        if text.startswith("callsite("):
            callee, rest = self.expr(text[len("callsite(") :], depth)
            rest = rest.lstrip()
            if rest.startswith("at "):
                rest = rest[3:]
            caller, rest = self.expr(rest, depth)
            rest = rest.lstrip()[1:]  # ")"
            if callee is None:
                return caller, rest
            if caller is None:
                return callee, rest
            return SourceLoc(callee.file, callee.line, callee.column, (*callee.callers, caller, *caller.callers)), rest
        if text.startswith("fused"):
            rest = text[len("fused") :]
            if rest.startswith("<"):
                rest = rest[_balanced_end(rest, "<", ">") :]
            rest = rest.lstrip()[1:]  # "["
            found: SourceLoc | None = None
            while rest and not rest.lstrip().startswith("]"):
                loc, rest = self.expr(rest, depth)
                found = found or loc
                rest = rest.lstrip()
                if rest.startswith(","):
                    rest = rest[1:]
            return found, rest.lstrip()[1:]
        if text.startswith('"'):
            m = MLIR_FILE_LOC.match(text)
            if m:
                rest = text[m.end() :]
                rest = re.sub(r"^\s*to\s*\d+:\d+", "", rest)
                return SourceLoc(m.group(1), int(m.group(2)), int(m.group(3))), rest
            # a named location: "name"(child) or a bare "name"
            end = _string_end(text)
            rest = text[end:]
            if rest.startswith("("):
                child, rest = self.expr(rest[1:], depth)
                return child, rest.lstrip()[1:]
            return None, rest
        # Something this parser does not know: skip to the end of the expression.
        return None, ""


def _string_end(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _balanced_end(text: str, open_: str, close: str) -> int:
    depth = 0
    for i, ch in enumerate(text):
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _trailing_loc(line: str) -> str | None:
    """The expression inside the ``loc(...)`` that ends ``line``, if any."""
    if not line.rstrip().endswith(")"):
        return None
    idx = line.rfind(" loc(")
    while idx != -1:
        inner = line[idx + 5 :].rstrip()
        if _balanced_end("(" + inner, "(", ")") == len(inner) + 1:
            return inner[:-1]
        idx = line.rfind(" loc(", 0, idx)
    return None


def mlir_locations(text: str, file: str = "") -> LineLocs:
    lines = text.splitlines()
    defs = {}
    for line in lines:
        if line.startswith("#loc"):
            m = MLIR_LOC_DEF.match(line)
            if m:
                defs[m.group(1)] = m.group(2)
    parser = _MlirLocParser(defs)
    out: LineLocs = []
    opened: list[int] = []  # lines that open a region (`scf.for ... {`, `"tt.reduce"(...) ({`): their op's
    for n, line in enumerate(lines):  # location is on the line that closes it (`} loc(#loc12)`)
        expr = None if line.startswith("#") else _trailing_loc(line)
        out.append(parser.expr(expr)[0] if expr else None)
        code = line.strip()
        if code.startswith("}") and opened:
            start = opened.pop()
            if out[start] is None:
                out[start] = out[n]
            if code.endswith("{"):  # `} else {`: the same op goes on
                opened.append(start)
        elif code.endswith("{") and not line.startswith("#"):
            opened.append(n)
    return out


# ---------------------------------------------------------------- LLVM IR

# %9 = mul i32 %2, %8, !dbg !8
LLVM_DBG_REF = re.compile(r"!dbg !(\d+)")
# !8 = !DILocation(line: 16, column: 42, scope: !4)      (also: inlinedAt: !17)
LLVM_META_DEF = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
LLVM_FIELD = re.compile(r'(\w+): (!\d+|"(?:[^"\\]|\\.)*"|-?\d+)')


def llvm_locations(text: str, file: str = "") -> LineLocs:
    lines = text.splitlines()
    meta: dict[str, tuple[str, dict[str, str]]] = {}
    for line in lines:
        if line.startswith("!"):
            m = LLVM_META_DEF.match(line)
            if m:
                meta["!" + m.group(1)] = (m.group(2), dict(LLVM_FIELD.findall(m.group(3))))

    def file_of(ref: str | None, depth: int = 0) -> str:
        kind, fields = meta.get(ref or "", ("", {}))
        if kind == "DIFile":
            name = fields.get("filename", '""').strip('"')
            directory = fields.get("directory", '""').strip('"')
            return name if name.startswith("/") or not directory else f"{directory}/{name}"
        if "file" in fields and depth < 32:
            return file_of(fields["file"], depth + 1)
        if "scope" in fields and depth < 32:
            return file_of(fields["scope"], depth + 1)
        return ""

    cache: dict[str, SourceLoc | None] = {}

    def resolve(ref: str, depth: int = 0) -> SourceLoc | None:
        if ref in cache:
            return cache[ref]
        cache[ref] = None
        kind, fields = meta.get(ref, ("", {}))
        loc = None
        if kind == "DILocation":
            callers: tuple[SourceLoc, ...] = ()
            if "inlinedAt" in fields and depth < 32:
                caller = resolve(fields["inlinedAt"], depth + 1)
                if caller is not None:
                    callers = (caller, *caller.callers)
            loc = _known(
                SourceLoc(
                    file_of(fields.get("scope")), int(fields.get("line", 0)), int(fields.get("column", 0)), callers
                )
            )
        elif kind == "DISubprogram":
            loc = SourceLoc(file_of(ref), int(fields.get("line", 0)), 0)
        cache[ref] = loc
        return loc

    out: LineLocs = []
    for line in lines:
        m = None if line.startswith("!") else LLVM_DBG_REF.search(line)
        out.append(resolve("!" + m.group(1)) if m else None)
    return out


# ---------------------------------------------------------------- PTX

# .file	1 "/work/main/kernels/softmax.py"     (LLVM may also split it: .file 1 "/dir" "name.py")
PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s*,\s*\d+\s*,\s*\d+)?(?:\s+"([^"]*)")?')
# .loc	2 170 27   // standard.py:170:27 @[ standard.py:191:40 @[ softmax.py:21:33 ] ]
PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?[^/]*(?://\s*(.*))?$")
# one frame of that comment: standard.py:191:40
PTX_COMMENT_FRAME = re.compile(r"([^\s@\[\]]+):(\d+):(\d+)")
# LLVM's AMDGPU backend writes the same directives, with ";" comments and no inlined_at (the chain is in the
# comment): .loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ k.py:11:25 ] ]
AMDGCN_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)()()()[^;]*(?:;\s*(.*))?$")


def ptx_locations(text: str, file: str = "") -> LineLocs:
    return dot_loc_locations(text, PTX_LOC)


def amdgcn_locations(text: str, file: str = "") -> LineLocs:
    return dot_loc_locations(text, AMDGCN_LOC)


def dot_loc_locations(text: str, loc_pattern: re.Pattern) -> LineLocs:
    """Locations from ``.file``/``.loc`` directives (PTX, AMDGCN): each line is where the last ``.loc`` said,
    until the function ends or a section of data begins."""
    lines = text.splitlines()
    files: dict[str, str] = {}
    for line in lines:
        if ".file" in line:
            m = PTX_FILE.match(line)
            if m:
                files[m.group(1)] = os.path.join(m.group(2), m.group(3)) if m.group(3) else m.group(2)
    by_basename: dict[str, str] = {}
    for path in files.values():
        by_basename.setdefault(os.path.basename(path), path)

    out: LineLocs = []
    current: SourceLoc | None = None
    # The same .loc recurs many times in unrolled code: each is parsed once, and resolved once per caller.
    parsed: dict[str, tuple[str | None, ...] | None] = {}
    resolved: dict[tuple[str, int], tuple[SourceLoc, SourceLoc | None]] = {}
    # A `.loc A, inlined_at B` names only B; B's own caller is on the .loc of B that came before it
    # (PTX ISA: "source location specified as part of .inlined_at must lexically precede"), so nvcc
    # writes a chain of inline levels as consecutive .loc lines, outermost first, and reuses them after.
    frames: dict[tuple[str | None, ...], SourceLoc] = {}
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(".loc"):
            if stripped not in parsed:
                m = loc_pattern.match(line)
                parsed[stripped] = m.groups() if m else None
            groups = parsed[stripped]
            if groups is None:
                current = None
            else:
                at = frames.get(groups[3:6]) if groups[3] else None
                key = (stripped, id(at))  # `at` stays alive in `resolved`, so its id is never reused here
                if key not in resolved:
                    raw = _ptx_loc(groups, at, files, by_basename)
                    resolved[key] = (raw, _known(raw))
                raw, current = resolved[key]
                frames[groups[0:3]] = raw
        elif line.startswith("}") or stripped.startswith(".section"):
            out.append(None)  # end of the function body: what follows is the debug tables
            current = None
            continue
        out.append(current if stripped else None)
    return out


def _ptx_loc(
    groups: tuple[str | None, ...], at: SourceLoc | None, files: dict[str, str], by_basename: dict[str, str]
) -> SourceLoc:
    """One ``.loc``'s location and its callers, innermost first: through ``at`` (its ``inlined_at`` frame as
    an earlier .loc gave it, callers included), else from the inlining comment Triton writes."""
    index, line, column, at_index, at_line, at_column, comment = groups
    callers: list[SourceLoc] = []
    if at_index:
        caller = at or SourceLoc(files.get(at_index, at_index), int(at_line or 0), int(at_column or 0))
        callers = list(caller.as_caller())
    elif comment and "@[" in comment:
        # The comment spells the whole inlining chain; its first frame is the .loc itself.
        frames = PTX_COMMENT_FRAME.findall(comment)[1:]
        callers = [SourceLoc(by_basename.get(name, name), int(ln), int(col)) for name, ln, col in frames]
    return SourceLoc(files.get(index or "", index or ""), int(line or 0), int(column or 0), tuple(callers))


def _known(loc: SourceLoc) -> SourceLoc | None:
    """Line 0 is DWARF's "no source line" (code the compiler made up): the frame it was inlined into, if any."""
    if loc.line != 0:
        return loc
    callers = [c for c in loc.callers if c.line != 0]
    return SourceLoc(callers[0].file, callers[0].line, callers[0].column, tuple(callers[1:])) if callers else None


# ---------------------------------------------------------------- SASS

# 	//## File "/work/main/kernels/square.py", line 10 inlined at "/work/main/kernels/square.py", line 20
SASS_LINE_INFO = re.compile(r'^\s*//## File "([^"]*)", line (\d+)(.*)$')
SASS_INLINED_AT = re.compile(r'inlined at "([^"]*)", line (\d+)')
# 	//## File ".nv_debug_ptx_txt", line 20
# nvdisasm -g on a cubin that carries its PTX as debug text (Triton's own SASS dump, tritonparse's) follows
# each source line with the PTX line: a line of the listing above, not a source file, so the source stays.
PTX_DEBUG_TEXT = ".nv_debug_ptx_txt"


# A line where the location changes: a line-info comment, or the start of a function or section.
SASS_LOCATION_MARK = re.compile(r'\s*//## File "[^"]*", line \d+|//----|\t\.section')


def sass_locations(text: str, file: str = "") -> LineLocs:
    # A listing runs to tens of thousands of lines, half of them line-info comments: only the lines where
    # the location changes are looked at one by one, and a comment seen before is not parsed again.
    lines = text.splitlines()
    out: LineLocs = [None] * len(lines)
    current: SourceLoc | None = None
    start = 0
    seen: dict[str, SourceLoc | None] = {}
    for i in compress(count(), map(SASS_LOCATION_MARK.match, lines)):
        out[start:i] = [current] * (i - start)
        start = i
        line = lines[i]
        if line in seen:
            current = seen[line]
            continue
        m = SASS_LINE_INFO.match(line)
        if m and m.group(1) == PTX_DEBUG_TEXT:
            continue  # not a source line: the location stays (and this line may follow another one)
        if m:
            callers = tuple(SourceLoc(f, int(n)) for f, n in SASS_INLINED_AT.findall(m.group(3)))
            current = seen[line] = _known(SourceLoc(m.group(1), int(m.group(2)), 0, callers))
        else:
            current = None
    out[start:] = [current] * (len(lines) - start)
    # blank lines (empty, or whitespace only: what `\s*\S` does not match) have no location
    for i in chain(compress(count(), map(operator.not_, lines)), compress(count(), map(str.isspace, lines))):
        out[i] = None
    return out


def source_locations(text: str, file: str = "") -> LineLocs:
    """The source stage maps to itself: line i is line i + 1 of the kernel file."""
    return [SourceLoc(file, i + 1, 0) for i in range(len(text.splitlines()))]


def no_locations(text: str, file: str = "") -> LineLocs:
    """A listing that names no source position on any line (TileLang's printed TIR: its statements carry no span)."""
    return [None] * len(text.splitlines())


# #line 12 "/work/kernels/tl_add.py"      (TileLang's generated CUDA, with tl.emit_line_directives)
LINE_DIRECTIVE = re.compile(r'^\s*#\s*line\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')


def line_directive_locations(text: str, file: str = "") -> LineLocs:
    """Generated C++ with ``#line N "file"`` directives, read as the C preprocessor (and so nvcc's line table,
    the PTX's ``.loc``) reads them: the line after a directive is line N of that file, the next N + 1, and so
    on. Lines before the first directive, the directives themselves and blank lines have no location."""
    out: LineLocs = []
    current: tuple[str, int] | None = None
    for line in text.splitlines():
        m = LINE_DIRECTIVE.match(line)
        if m is not None:
            current = (m.group(2), int(m.group(1)))
            out.append(None)
            continue
        if current is None or not line.strip():
            out.append(None)
        else:
            out.append(SourceLoc(current[0], current[1], 0))
        if current is not None:
            current = (current[0], current[1] + 1)
    return out
