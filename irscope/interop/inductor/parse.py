"""Read the Triton kernels out of torch.compile's Inductor "output code".

Why this exists: the kernels a ``torch.compile``-d model really runs are Triton
kernels that Inductor generated, and the one place a user usually gets to see
them is the *output code*: a Python module Inductor prints under
``TORCH_LOGS=output_code`` (one log line per module line, each behind a logging
prefix, mixed with whatever else was logged) or leaves behind as a ``.py`` file.
To inspect such a kernel with irscope we need it as a plain ``@triton.jit``
kernel, plus what Inductor knew about it: its heuristic kind, signature, device,
divisibility hints, the FX nodes it fused and how ``call()`` launches it.

This module recovers all of that from the text alone. It never imports,
executes or compiles the text it reads: ``ast.parse`` only builds a syntax tree,
and the decorator's arguments are evaluated by a small walker that accepts
literals and nothing else. So a log from anywhere is safe to open, and neither
torch nor Triton has to be installed.

``parse_log`` takes a log or a bare module and returns one ``OutputCode`` per
compiled graph; ``parse_output_code`` takes one module.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from dataclasses import dataclass, replace
from typing import Any

from ...arch import Vendor, recorded_arch, vendor_of
from ...errors import UsageError

__all__ = [
    "InductorKernel",
    "OutputCode",
    "InductorLogError",
    "NoTritonKernels",
    "TruncatedLog",
    "parse_output_code",
    "parse_log",
]


# ---------------------------------------------------------------- errors


class InductorLogError(UsageError, ValueError):
    """The text does not give usable Triton kernels; the message is one line telling the user why.

    It is a ``UsageError`` so that irscope's CLI shows it as one line with the
    usage exit code, and a ``ValueError`` because it is, at heart, bad input.
    """


class NoTritonKernels(InductorLogError):
    """Nothing in the text parses to a Triton kernel."""


class TruncatedLog(InductorLogError):
    """The text stops inside a kernel's source or inside the module."""


CPU_COMPILE_MESSAGE = (
    "the compile targeted the CPU: Inductor wrote C++ kernels, not Triton "
    "(compile on a CUDA device to get Triton kernels)"
)
NO_OUTPUT_CODE_MESSAGE = (
    "no Triton kernels were found: the text holds no Inductor output code "
    "(give the stderr of a run with TORCH_LOGS=output_code, or the output-code .py file it names)"
)
ONLY_EXTERN_MESSAGE = (
    "no Triton kernels were found: the output code only calls extern kernels ({calls}), "
    "nothing was fused into Triton (the log should come from TORCH_LOGS=output_code "
    "on a graph with pointwise or reduction work)"
)
NO_KERNELS_IN_MODULE_MESSAGE = (
    "no Triton kernels were found in the output code: it defines no async_compile.triton(...) kernel "
    "(the log should come from TORCH_LOGS=output_code on a CUDA compile)"
)


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class InductorKernel:
    """One ``async_compile.triton(...)`` kernel of an output-code module."""

    name: str  # the variable the module binds it to: 'triton_red_fused_mean_pow_0'
    kind: str  # the heuristic: 'pointwise' | 'reduction' | 'persistent_reduction' | 'template' | ...
    source: str  # the kernel module, exactly the string between the triple quotes
    jit_source: str  # `source` with the @triton_heuristics decorator blanked out, same line numbers
    heuristic_args: dict  # the decorator's keyword arguments, evaluated as literals only
    triton_meta: dict
    inductor_meta: dict
    signature: dict[str, str]
    device: dict  # DeviceProperties(...) as a dict of its keywords
    arch: str | None  # 'sm_90', or 'gfx942' for a kernel Inductor compiled on ROCm
    divisible_by_16: tuple[str, ...]
    constants: dict
    source_nodes: tuple[str, ...]
    aten_ops: tuple[str, ...]
    node_map: tuple[str, ...]
    graph_fragment: tuple[str, ...]
    kernel_path: str | None
    user_source: tuple[str, ...]
    launches: tuple[str, ...]
    launch_args: tuple[str, ...]
    # ROCm: the pointers whose buffers fit in 2 GB ('tt.pointer_range': 32), which AMD's buffer ops need
    pointer_range_32: tuple[str, ...] = ()

    @property
    def vendor(self) -> Vendor | None:
        """Whose GPU Inductor compiled for (None: the log does not say)."""
        return vendor_of(self.arch) if self.arch else None


@dataclass(frozen=True)
class OutputCode:
    """One output-code module: one compiled graph."""

    graph: str  # '[0/0]' from the log prefix, '' if unknown
    module: str  # the module text, log prefixes removed
    kernels: tuple[InductorKernel, ...]
    extern_calls: tuple[str, ...]


# ---------------------------------------------------------------- log structure

# V1121 08:30:38.701000 672 torch/_inductor/graph.py:2552] [0/0] [__output_code] # AOT ID: ['0_inference']
# (torch's own log format; "[rank0]:" leads it under torch.distributed, and the
# trace id "[0/0]" is missing when nothing was being compiled)
GLOG_PREFIX = re.compile(
    r"^(?:\[rank\d+\]:)?(?P<level>[A-Z])(?P<date>\d{4}) (?P<time>\d\d:\d\d:\d\d\.\d+) +(?P<pid>\d+) "
    r"(?P<where>\S+:\d+)\](?: \[(?P<graph>[^\]]*)\])? \[__output_code\] ?"
)
# 2025-11-21 08:30:38 [0/0] [__output_code] # AOT ID: ['0_inference']
# (any other leading text: everything up to the artifact tag is the prefix)
TAGGED_LINE = re.compile(r"^(?P<prefix>.*?\[__output_code\]) ?")
# ... [1/0] [__output_code]      -> the compile (trace) id right before the tag
TAGGED_GRAPH = re.compile(r"\[(?P<graph>[^\[\]]+)\][ \t]*\[__output_code\]$")
# [1/0] Output code:            -> a compile id anywhere in a foreign prefix
ANY_GRAPH = re.compile(r"\[(?P<graph>!?\d+(?:/\d+)+(?:_\d+)?)\]")

# Output code:
# (graph.py and codecache.py log "Output code: \n<module>"; the AOT path logs the other two)
MODULE_START = re.compile(r"^Output (?:wrapper |kernel )?code:[ \t]*(?P<rest>.*)$")
# DEBUG:torch._inductor.graph:Output code:
# (a start marker behind a prefix we do not know, in a log without artifact tags)
UNTAGGED_START = re.compile(r"^(?P<prefix>.*?)Output (?:wrapper |kernel )?code:[ \t]*$")
# Output code written to: /tmp/tmphq63mzyz/uy/cuybrplngwocrjtpbgc27xvnafz6ye2d7dmb3a673yt6o565fwad.py
# (the other records output_code logs; each ends a module where lines share one prefix)
MODULE_END = re.compile(
    r"(?:^|[\s:\]])(?:(?:Output|Wrapper|Kernel|Header|Auto-tuning) code written to\b"
    r"|Output graph module:|Serialized Extern Kernel Nodes:)"
)

# ---------------------------------------------------------------- module structure

# triton_poi_fused_pow_0 = async_compile.triton('triton_poi_fused_pow_0', '''
# (older torch passes 'triton_' as the label, so the kernel's name is the variable)
KERNEL_DEF = re.compile(
    r"^[ \t]*(?P<var>[A-Za-z_]\w*)[ \t]*=[ \t]*async_compile\.triton\(\s*"
    r"(?P<q>['\"])(?P<label>[^'\"\n]*)(?P=q)\s*,\s*(?P<raw>[rR]?)(?P<quote>'''|\"\"\")",
    re.MULTILINE,
)
# ''', device_str='cuda')
# (what must follow a kernel's closing quotes; anything else means we found the
# opening quotes of some later string, so the kernel itself never ended)
KERNEL_DEF_TAIL = re.compile(r"[ \t]*[,)]")
# cpp_fused_mul_0 = async_compile.cpp_pybinding(['const float*', 'float*'], '''
# extern "C"  void kernel(const float* in_ptr0, float* out_ptr0)
CPU_KERNEL = re.compile(r"\bcpp_fused_\w*|\basync_compile\.cpp(?:_pybinding)?\(|\bextern \"C\"")
# # kernel path: /tmp/tmphq63mzyz/rx/crxuf2uvvzzmhgspkfcmhdahmbuhcw4uicozp4neiwdpen7yhl7b.py
KERNEL_PATH = re.compile(r"^#\s*kernel path:\s*(?P<path>\S.*?)\s*$")
# # Topologically Sorted Source Nodes: [pow_1, mean], Original ATen: [aten.pow, aten.mean]
# ("Unsorted ..." when the nodes span several graphs; plain "Source Nodes" in older torch)
SOURCE_NODES = re.compile(
    r"^#\s*(?:(?:Topologically Sorted|Unsorted)\s+)?Source Nodes:\s*\[(?P<nodes>[^\]]*)\]"
    r"\s*(?:,\s*Original ATen:\s*(?P<aten>.*?))?\s*$"
)
# # Original ATen: [aten.pow]           (on a line of its own in older torch)
ORIGINAL_ATEN = re.compile(r"^#\s*Original ATen:\s*(?P<aten>.*?)\s*$")
# # File: /work/model.py:12 in forward, code: x = y * 2
USER_SOURCE = re.compile(r"^\s*#[#\s]*(?P<loc>File: \S.*?)\s*$")
# #   %arg0_1 : Tensor "f32[4096, 4096][4096, 1]cuda:0" = PlaceHolder[target=arg0_1]
# (Inductor indents the entries of both sections by three spaces after the '#')
SECTION_ENTRY = re.compile(r"^#[ ]{0,3}")
# @triton_heuristics.persistent_reduction(
HEURISTIC_DECORATOR = re.compile(r"^@triton_heuristics\.(?P<kind>\w+)\(", re.MULTILINE)
#             triton_poi_fused_pow_0.run(arg0_1, buf0, 16777216, stream=stream0)
LAUNCH = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\.run\(")
#             extern_kernels.mm(reinterpret_tensor(buf6, (4096, 3072), (3072, 1), 0), ..., out=buf7)
EXTERN_CALL = re.compile(r"\bextern_kernels\.\w+\(")

# When a module has no @triton_heuristics decorator to ask, the name says the kind.
KIND_BY_PREFIX = {
    "triton_poi_": "pointwise",
    "triton_red_": "reduction",
    "triton_per_": "persistent_reduction",
    "triton_tem_": "template",
    "triton_for_": "foreach",
}


# ---------------------------------------------------------------- public API


def parse_log(text: str) -> list[OutputCode]:
    """Every output-code module in a ``TORCH_LOGS=output_code`` log, or the one module of a bare ``.py``.

    Modules without Triton kernels (a graph that only calls cuBLAS, say) are
    returned too; the text as a whole must hold at least one Triton kernel. A
    module printed more than once is returned once, and each kernel once.
    """
    return parse_modules(_split_log(_normalize_newlines(text)))


def parse_modules(modules: list[tuple[str, str]]) -> list[OutputCode]:
    """``parse_log`` for modules already split out: ``(graph, module text)`` pairs (a TORCH_TRACE's payloads)."""
    modules = [(graph, _normalize_newlines(module)) for graph, module in modules]
    outputs = _unique([_parse_module(module, graph) for graph, module in modules])
    if not any(out.kernels for out in outputs):
        raise _no_kernels("\n".join(module for _, module in modules), outputs)
    _one_vendor(outputs)
    return outputs


def parse_output_code(text: str, graph: str = "") -> OutputCode:
    """One output-code module (the ``.py`` Inductor wrote, prefixes already removed)."""
    text = _normalize_newlines(text)
    out = _parse_module(text, graph)
    if not out.kernels:
        raise _no_kernels(text, [out])
    return out


def _one_vendor(outputs: list[OutputCode]) -> None:
    """One torch build compiles for one vendor's GPUs: a log with both is two machines' logs run together."""
    first: dict[Vendor, InductorKernel] = {}
    for kernel in (k for out in outputs for k in out.kernels):
        if kernel.vendor is not None:
            first.setdefault(kernel.vendor, kernel)
    if len(first) > 1:
        nvidia, amd = first[Vendor.NVIDIA], first[Vendor.AMD]
        raise InductorLogError(
            f"the log mixes NVIDIA and AMD compiles ({nvidia.name} for {nvidia.arch}, {amd.name} for {amd.arch}): "
            "one torch build compiles for one of them; give each machine's log on its own"
        )


def _normalize_newlines(text: str) -> str:
    # Line numbers (jit_source keeps them) count '\n' only, as ast does.
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _unique(outputs: list[OutputCode]) -> list[OutputCode]:
    """The first of each module and of each kernel; later repeats dropped.

    One log can print a module twice: an FX-graph cache hit logs the module
    again (from codecache.py instead of graph.py, under another compile id when
    a second torch.compile of the same function hits), and logs get
    concatenated. Its kernels would otherwise be captured, and their sessions
    written, twice. Modules are compared as text with the log prefixes already
    removed (and trailing blanks ignored); kernels by name and source, so a
    distinct graph that reuses a kernel keeps its other kernels.
    """
    seen_modules: set[str] = set()
    seen_kernels: set[tuple[str, str]] = set()
    out = []
    for output in outputs:
        key = "\n".join(line.rstrip() for line in output.module.strip("\n").split("\n"))
        if key in seen_modules:
            continue
        seen_modules.add(key)
        kernels = tuple(k for k in output.kernels if (k.name, k.source) not in seen_kernels)
        seen_kernels.update((k.name, k.source) for k in kernels)
        out.append(output if len(kernels) == len(output.kernels) else replace(output, kernels=kernels))
    return out


def _no_kernels(text: str, outputs: list[OutputCode]) -> NoTritonKernels:
    if "async_compile.triton(" not in text and CPU_KERNEL.search(text):
        return NoTritonKernels(CPU_COMPILE_MESSAGE)
    calls = sorted(
        {m.group(0)[:-1] for out in outputs for line in out.extern_calls for m in EXTERN_CALL.finditer(line)}
    )
    if calls:
        return NoTritonKernels(ONLY_EXTERN_MESSAGE.format(calls=", ".join(calls)))
    if any("async_compile" in out.module for out in outputs):
        return NoTritonKernels(NO_KERNELS_IN_MODULE_MESSAGE)
    return NoTritonKernels(NO_OUTPUT_CODE_MESSAGE)


# ---------------------------------------------------------------- finding the modules in a log


class _Pending:
    __slots__ = ("graph", "start", "lines")

    def __init__(self, graph: str, start: int, lines: list[str]) -> None:
        self.graph, self.start, self.lines = graph, start, lines


def _split_log(text: str) -> list[tuple[str, str]]:
    """(graph, module text) for each module in the text; the whole text when it has no log markers."""
    lines = text.split("\n")
    if "[__output_code]" in text:
        modules = _split_tagged(lines)
        if modules:
            return modules
    modules = _split_untagged(lines)
    return modules if modules else [("", text)]


def _tag(line: str) -> tuple[str, str, str] | None:
    """(prefix, graph, content) of a line the output_code logger wrote, else None."""
    m = GLOG_PREFIX.match(line)
    if m:
        return m.group(0).rstrip(" "), f"[{m['graph']}]" if m["graph"] else "", line[m.end() :]
    m = TAGGED_LINE.match(line)
    if m:
        g = TAGGED_GRAPH.search(m["prefix"])
        return m["prefix"], f"[{g['graph']}]" if g else "", line[m.end() :]
    return None


def _split_tagged(lines: list[str]) -> list[tuple[str, str]]:
    # torch's formatter repeats one record's prefix (timestamp, pid, file:line,
    # compile id) on each line of a multi-line message, so the lines of a module
    # are the tagged lines that share its "Output code:" line's prefix. That keeps
    # other loggers' lines, other records and other processes' modules out of it,
    # even when they are interleaved.
    modules: list[_Pending] = []
    open_by_prefix: dict[str, _Pending] = {}
    tagged = [False] * len(lines)
    for i, line in enumerate(lines):
        if "[__output_code]" not in line:
            continue
        tag = _tag(line)
        if tag is None:
            continue
        tagged[i] = True
        prefix, graph, content = tag
        start = MODULE_START.match(content)
        if start:
            module = _Pending(graph, i, [start["rest"]] if start["rest"].strip() else [])
            modules.append(module)
            open_by_prefix[prefix] = module
        elif MODULE_END.match(content):
            # Needed where the prefix carries no timestamp, so records cannot be told apart by it.
            open_by_prefix.pop(prefix, None)
        elif prefix in open_by_prefix:
            open_by_prefix[prefix].lines.append(content)

    if not modules:
        # Tagged lines but no "Output code:" line (someone grepped a part out):
        # each run of lines sharing a prefix that holds wrapper code is a module.
        groups: dict[str, _Pending] = {}
        for i, line in enumerate(lines):
            tag = _tag(line) if tagged[i] else None
            if tag is not None:
                groups.setdefault(tag[0], _Pending(tag[1], i, [])).lines.append(tag[2])
        return [(g.graph, "\n".join(g.lines)) for g in groups.values() if "async_compile" in "\n".join(g.lines)]

    out = []
    for module in modules:
        if not module.lines:
            # Only the "Output code:" line was tagged (a format that prefixes the
            # first line of a message only): the module is the untagged lines after it.
            j = module.start + 1
            while j < len(lines) and not tagged[j]:
                module.lines.append(lines[j])
                j += 1
        out.append((module.graph, "\n".join(module.lines)))
    return out


def _split_untagged(lines: list[str]) -> list[tuple[str, str]]:
    # No artifact tags: a custom TORCH_LOGS_FORMAT, or plain logging. Either the
    # start line's prefix is repeated on every line of the record (strip it, skip
    # lines without it) or only the first line has one (take lines up to the next
    # marker; lines of other loggers cannot be told apart then).
    starts = [i for i, line in enumerate(lines) if "code:" in line and UNTAGGED_START.match(line)]
    out = []
    for n, i in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        start = UNTAGGED_START.match(lines[i])
        assert start is not None  # starts holds only the lines it matched
        prefix = start["prefix"]
        repeated = bool(prefix.strip()) and i + 1 < stop and lines[i + 1].startswith(prefix)
        body = []
        for line in lines[i + 1 : stop]:
            if repeated:
                if not line.startswith(prefix):
                    continue
                line = line[len(prefix) :]
            if MODULE_END.search(line):
                break
            body.append(line)
        g = ANY_GRAPH.search(prefix)
        out.append((f"[{g['graph']}]" if g else "", "\n".join(body)))
    return out


# ---------------------------------------------------------------- one module


def _parse_module(module: str, graph: str) -> OutputCode:
    lines = module.split("\n")
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(line_starts, offset) - 1

    # Pass 1: where each kernel's source string starts and ends.
    found = []  # (name, def line, close line, source)
    in_kernel = [False] * len(lines)
    for m in KERNEL_DEF.finditer(module):
        name, quote = m["var"], m["quote"]
        begin = m.end()
        close = _closing_quote(module, quote, begin)
        if close < 0 or not KERNEL_DEF_TAIL.match(module, close + 3):
            raise TruncatedLog(f"the log is cut off inside kernel {name} (its source never ends)")
        body = module[begin:close]
        source = body if m["raw"] or "\\" not in body else _unescape(body, quote)
        first, last = line_of(m.start()), line_of(close)
        for k in range(first, last + 1):
            in_kernel[k] = True
        found.append((name, first, source))

    # Pass 2: the wrapper code around them: launches and extern calls.
    launches: dict[str, list[str]] = {}
    extern_calls: list[str] = []
    for i, line in enumerate(lines):
        if in_kernel[i] or line.lstrip().startswith("#"):
            continue
        launch = LAUNCH.match(line)
        if launch:
            launches.setdefault(launch["name"], []).append(_statement(lines, i, in_kernel))
        elif "extern_kernels." in line and EXTERN_CALL.search(line):
            extern_calls.append(line.strip())

    if found:
        _check_not_cut_off(module, graph)

    kernels = tuple(
        _kernel(name, source, _header(lines, first), tuple(launches.get(name, ()))) for name, first, source in found
    )
    return OutputCode(graph=graph, module=module, kernels=kernels, extern_calls=tuple(extern_calls))


def _closing_quote(text: str, quote: str, pos: int) -> int:
    """Offset of the triple quote that ends a string starting at ``pos``, or -1."""
    start = pos
    while True:
        k = text.find(quote, pos)
        if k < 0:
            return -1
        # A quote behind an odd run of backslashes is escaped and does not close the string.
        b = k
        while b > start and text[b - 1] == "\\":
            b -= 1
        if (k - b) % 2 == 0:
            return k
        pos = k + 1


def _unescape(body: str, quote: str) -> str:
    # The parser decodes the escapes exactly as Python would; parsing a string
    # literal runs nothing.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes warn, and stay as written
            node = ast.parse(quote + body + quote, mode="eval").body
    except (SyntaxError, ValueError):
        return body
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else body


def _check_not_cut_off(module: str, graph: str) -> None:
    # A module cut off mid-statement leaves a bracket, string or block open at
    # the end. Other syntax errors (a foreign line that slipped into an untagged
    # log, say) are not proof of a cut, and the kernels are whole: let them be.
    try:
        ast.parse(module)
        return
    except SyntaxError as e:
        err = e
    last = module.rstrip().count("\n") + 1
    msg = err.msg or ""
    open_block = isinstance(err, IndentationError) and "expected an indented block" in msg and (err.lineno or 0) >= last
    if open_block or "never closed" in msg or "EOF" in msg or "unterminated" in msg:
        tail = module.rstrip().rsplit("\n", 1)[-1].strip()
        tail = tail if len(tail) <= 60 else tail[:57] + "..."
        where = f" of graph {graph}" if graph else ""
        raise TruncatedLog(
            f"the log is cut off inside the output code{where} (it stops mid-statement at line {last}: {tail})"
        )


def _statement(lines: list[str], i: int, in_kernel: list[bool]) -> str:
    """The stripped statement starting on line ``i`` (one line, unless its brackets stay open)."""
    text = lines[i].strip()
    j = i + 1
    while _unbalanced(text) and j < len(lines) and j < i + 50 and not in_kernel[j]:
        text += " " + lines[j].strip()
        j += 1
    return text


def _unbalanced(text: str) -> bool:
    # Cheap test first: launches are one line, and parsing every one would cost more.
    if text.count("(") == text.count(")") and text.count("[") == text.count("]"):
        return False
    try:
        ast.parse(text)
        return False
    except SyntaxError:
        return True


def _launch_args(launch: str) -> tuple[str, ...]:
    try:
        node = ast.parse(launch).body[0]
    except (SyntaxError, IndexError):
        return ()
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return ()
    return tuple(ast.get_source_segment(launch, a) or ast.unparse(a) for a in node.value.args)


# ---------------------------------------------------------------- the comments above a kernel


@dataclass
class _Header:
    kernel_path: str | None = None
    source_nodes: tuple[str, ...] = ()
    aten_ops: tuple[str, ...] = ()
    node_map: tuple[str, ...] = ()
    graph_fragment: tuple[str, ...] = ()
    user_source: tuple[str, ...] = ()


def _split_list(text: str | None) -> tuple[str, ...]:
    # "[aten.pow, aten.mean]" (or, in older torch, "aten.pow, aten.mean")
    if not text:
        return ()
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _header(lines: list[str], def_line: int) -> _Header:
    """Parse the comment block right above a kernel's definition."""
    j = def_line
    while j > 0 and lines[j - 1].lstrip().startswith("#"):
        j -= 1
    header = _Header()
    node_map, fragment, user = [], [], []
    section = None
    for raw in lines[j:def_line]:
        line = raw.strip()
        text = line.lstrip("#").strip()
        if m := USER_SOURCE.match(line):
            user.append(m["loc"])
        elif m := KERNEL_PATH.match(line):
            header.kernel_path, section = m["path"], None
        elif m := SOURCE_NODES.match(line):
            header.source_nodes = _split_list(m["nodes"])
            if m["aten"] is not None:
                header.aten_ops = _split_list(m["aten"])
            section = "map"  # older torch lists "# x => y" right under this line
        elif m := ORIGINAL_ATEN.match(line):
            header.aten_ops = _split_list(m["aten"])
        elif text == "Source node to ATen node mapping:":
            section = "map"
        elif text == "Graph fragment:":
            section = "fragment"
        elif section == "map" and " => " in text:
            node_map.append(SECTION_ENTRY.sub("", line, count=1))
        elif section == "fragment" and text:
            fragment.append(SECTION_ENTRY.sub("", line, count=1))
    header.node_map, header.graph_fragment, header.user_source = tuple(node_map), tuple(fragment), tuple(user)
    return header


# ---------------------------------------------------------------- one kernel


def _kernel(name: str, source: str, header: _Header, launches: tuple[str, ...]) -> InductorKernel:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None  # keep what the comments and the name say; the source is what it is
    fn, decorator, kind = _heuristic(tree)
    if kind is None:
        m = HEURISTIC_DECORATOR.search(source)
        kind = m["kind"] if m else next((k for p, k in KIND_BY_PREFIX.items() if name.startswith(p)), "unknown")

    heuristic_args: dict[str, Any] = {}
    jit_source = source
    if decorator is not None:
        if decorator.args:
            heuristic_args["_args"] = tuple(_literal(a, source) for a in decorator.args)
        for kw in decorator.keywords:
            if kw.arg is not None:
                heuristic_args[kw.arg] = _literal(kw.value, source)
        # Blank the decorator's lines rather than delete them, so that line N of
        # jit_source is line N of source (and of the kernel file Inductor wrote).
        src_lines = source.split("\n")
        for k in range(decorator.lineno - 1, decorator.end_lineno or decorator.lineno):
            src_lines[k] = ""
        jit_source = "\n".join(src_lines)

    arg_names = _arg_names(fn)
    triton_meta = heuristic_args.get("triton_meta")
    triton_meta = triton_meta if isinstance(triton_meta, dict) else {}
    inductor_meta = heuristic_args.get("inductor_meta")
    inductor_meta = inductor_meta if isinstance(inductor_meta, dict) else {}

    signature = triton_meta.get("signature")
    signature = signature if isinstance(signature, dict) else {}
    if not arg_names and all(isinstance(k, str) for k in signature):
        arg_names = list(signature)
    # Older torch keys the signature and constants by argument index.
    signature = {_arg_label(k, arg_names): v for k, v in signature.items()}
    constants = triton_meta.get("constants")
    constants = {_arg_label(k, arg_names): v for k, v in constants.items()} if isinstance(constants, dict) else {}

    device = _device(name, triton_meta)
    arch = _arch(name, device)
    in_source = [m["loc"] for line in source.split("\n") if "File:" in line and (m := USER_SOURCE.match(line))]
    user_source = tuple(dict.fromkeys((*header.user_source, *in_source)))
    return InductorKernel(
        name=name,
        kind=kind,
        source=source,
        jit_source=jit_source,
        heuristic_args=heuristic_args,
        triton_meta=triton_meta,
        inductor_meta=inductor_meta,
        signature=signature,
        device=device,
        arch=arch,
        divisible_by_16=_with_property(triton_meta.get("configs"), arg_names, ["tt.divisibility", 16]),
        constants=constants,
        source_nodes=header.source_nodes,
        aten_ops=header.aten_ops,
        node_map=header.node_map,
        graph_fragment=header.graph_fragment,
        kernel_path=header.kernel_path,
        user_source=user_source,
        launches=launches,
        launch_args=_launch_args(launches[0]) if launches else (),
        pointer_range_32=_with_property(triton_meta.get("configs"), arg_names, ["tt.pointer_range", 32]),
    )


def _heuristic(tree: ast.Module | None) -> tuple[ast.FunctionDef | None, ast.Call | None, str | None]:
    """The kernel function, its ``@triton_heuristics.<kind>(...)`` call and that kind."""
    if tree is None:
        return None, None, None
    first_fn = None
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        first_fn = first_fn or node
        for d in node.decorator_list:
            if (
                isinstance(d, ast.Call)
                and isinstance(d.func, ast.Attribute)
                and isinstance(d.func.value, ast.Name)
                and d.func.value.id == "triton_heuristics"
            ):
                return node, d, d.func.attr
    return first_fn, None, None


def _arg_names(fn: ast.FunctionDef | None) -> list[str]:
    if fn is None:
        return []
    return [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]


def _arg_label(key: Any, names: list[str]) -> Any:
    """An argument's name from Triton's index (``2``) or path (``(2,)``, ``(2, 0)`` inside a tuple arg)."""
    path = (key,) if isinstance(key, int) and not isinstance(key, bool) else key
    if not (isinstance(path, tuple) and path and all(isinstance(p, int) for p in path)):
        return key if isinstance(key, str) else str(key)
    head = names[path[0]] if 0 <= path[0] < len(names) else str(path[0])
    return head + "".join(f"[{p}]" for p in path[1:])


def _device(kernel: str, triton_meta: dict) -> dict:
    device = triton_meta.get("device")
    if isinstance(device, dict):
        return {k: v for k, v in device.items() if k != "_type"}
    if isinstance(device, int) and not isinstance(device, bool):
        # torch <= 2.3: 'device': 0, 'device_type': 'cuda', and no compute capability
        return {"type": triton_meta.get("device_type"), "index": device}
    if isinstance(device, str):  # the walker keeps what is not a literal as its text: whose GPU is unknown
        shown = device if len(device) <= 60 else device[:57] + "..."
        raise InductorLogError(f"kernel {kernel}: its triton_meta's device is not a literal DeviceProperties: {shown}")
    return {}


def _arch(kernel: str, device: dict) -> str | None:
    """``sm_90`` from CUDA's ``cc=90``; ``gfx942`` from ROCm's ``type='hip', cc='gfx942'`` (torch's
    DeviceProperties.create: under torch.version.hip the type is 'hip' and ``cc`` is the gcnArchName)."""
    try:
        return recorded_arch(device.get("cc"), backend=device.get("type"), warp_size=device.get("warp_size"))
    except ValueError as exc:
        raise InductorLogError(f"kernel {kernel}: its DeviceProperties {exc}") from None


def _with_property(configs: Any, names: list[str], prop: list) -> tuple[str, ...]:
    """The arguments ``configs[0]`` gives ``prop`` (``['tt.divisibility', 16]``), by name."""
    # Three spellings over torch's history (only the newest has 'tt.pointer_range', ROCm's):
    #   [{(0,): [['tt.divisibility', 16]], ...}]                           (2.6+)
    #   [AttrsDescriptor.from_dict({'arg_properties': {'tt.divisibility': (0, 1)}})]  (2.5)
    #   [instance_descriptor(divisible_by_16=(0, 1), ...)]                 (2.1-2.4)
    if not isinstance(configs, (list, tuple)) or not configs or not isinstance(configs[0], dict):
        return ()
    first = configs[0]
    paths: list[Any] = []
    if "_type" in first:
        if prop != ["tt.divisibility", 16]:
            return ()
        if isinstance(first.get("divisible_by_16"), (tuple, list)):
            paths = list(first["divisible_by_16"])
        else:
            arg = (first.get("_args") or (None,))[0]
            props = arg.get("arg_properties") if isinstance(arg, dict) else None
            value = props.get("tt.divisibility") if isinstance(props, dict) else None
            paths = list(value) if isinstance(value, (tuple, list)) else []
    else:
        for key, props in first.items():
            if isinstance(props, (list, tuple)) and any(
                isinstance(p, (list, tuple)) and list(p) == prop for p in props
            ):
                paths.append(key)
    paths = [(p,) if isinstance(p, int) else p for p in paths]
    paths = sorted(p for p in paths if isinstance(p, tuple) and all(isinstance(i, int) for i in p))
    return tuple(_arg_label(p, names) for p in paths)


# ---------------------------------------------------------------- evaluating the decorator, safely


class _NotLiteral(Exception):
    """A call's argument is not a literal: the whole call stays source text."""


def _literal(node: ast.AST, src: str, strict: bool = False) -> Any:
    """The value of a literal expression, built by walking the tree; nothing is evaluated.

    Accepted: constants, negative numbers, dict/list/tuple/set displays, ``set()``,
    ``Name.ATTR`` (-> ``'ATTR'``, e.g. ``ReductionHint.INNER``), ``__file__``
    (-> None) and calls whose arguments are all literals (``DeviceProperties(type=
    'cuda', cc=90)`` -> ``{'type': 'cuda', 'cc': 90, '_type': 'DeviceProperties'}``).
    Anything else becomes its source text; under ``strict`` (inside a call's
    arguments) it raises ``_NotLiteral`` instead.
    """
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float, complex)
    ):
        value: Any = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Dict) and None not in node.keys:  # a None key is a **spread
        out = {}
        for k, v in zip(node.keys, node.values):
            assert k is not None  # (no None key: checked above)
            key = _literal(k, src, strict)
            if not _hashable(key):
                if strict:
                    raise _NotLiteral
                key = _text(k, src)
            out[key] = _literal(v, src, strict)
        return out
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        items = [_literal(e, src, strict) for e in node.elts]
        if isinstance(node, ast.List):
            return items
        if isinstance(node, ast.Tuple):
            return tuple(items)
        if all(_hashable(i) for i in items):
            return set(items)
    elif isinstance(node, ast.Name) and node.id == "__file__":
        return None  # the kernel file's path: unknown here, and not the log's
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    elif isinstance(node, ast.Call):
        value = _call(node, src)
        if value is not None:
            return value
    if strict:
        raise _NotLiteral
    return _text(node, src)


def _call(node: ast.Call, src: str) -> Any:
    """A call with literal arguments as data, or None when it is not one."""
    func = _dotted(node.func)
    if func is None or any(kw.arg is None for kw in node.keywords):
        return None
    try:
        args = [_literal(a, src, strict=True) for a in node.args]
        kwargs = {kw.arg: _literal(kw.value, src, strict=True) for kw in node.keywords}
    except _NotLiteral:
        return None
    if func in ("set", "frozenset") and not kwargs and len(args) <= 1:
        items = args[0] if args else ()
        if isinstance(items, (list, tuple, set)) and all(_hashable(i) for i in items):
            return set(items) if func == "set" else frozenset(items)
        return None
    out: dict[str, Any] = {str(name): value for name, value in kwargs.items()}
    if args:
        out["_args"] = tuple(args)
    out["_type"] = func
    return out


def _dotted(node: ast.AST) -> str | None:
    # DeviceProperties | AttrsDescriptor.from_dict; not __import__('os').system
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _text(node: ast.AST, src: str) -> str:
    return ast.get_source_segment(src, node) or ast.unparse(node)
