"""The data that flows through irscope: a captured variant and its parts.

Every step of the pipeline (capture, ir, diff, annotate, measure, session) reads
and writes these types, so they live in one place. They are frozen: a captured
variant is a fact about one compile and never changes after the fact.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .arch import CaptureMode, Vendor, vendor_of
from .stages import Stage


class Status(str, enum.Enum):
    """Outcome of capturing (and later measuring) one variant."""

    OK = "ok"
    FAILED = "failed"  # did not compile; Variant.error says at which stage and why
    WRONG = "wrong"  # ran, but the output did not match the torch reference
    CRASHED = "crashed"  # faulted on the GPU (illegal address, ...)
    TIMEOUT = "timeout"  # did not finish in time on the GPU


@dataclass(frozen=True)
class SourceLoc:
    """A position in Python source, as the compiler recorded it.

    ``callers`` holds the call sites, innermost first, when the code was inlined
    from a function called by the kernel (``tl.max`` inside a softmax, say).
    """

    file: str
    line: int
    column: int = 0
    callers: tuple[SourceLoc, ...] = ()

    def in_file(self, path: str) -> SourceLoc | None:
        """This location, or the first call site, that lies in ``path``."""
        for loc in (self, *self.callers):
            if loc.file == path:
                return loc
        return None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def as_caller(self) -> tuple[SourceLoc, ...]:
        """The ``callers`` of code inlined at this location: it, then its own callers. Real chains are a few
        frames deep; one read from damaged data is cut to MAX_INLINE_DEPTH, keeping both ends (the innermost
        call and the kernel's own line), so a chain of N lines never costs N squared."""
        chain = (self, *self.callers)
        half = MAX_INLINE_DEPTH // 2
        return chain if len(chain) <= MAX_INLINE_DEPTH else chain[:half] + chain[-half:]


MAX_INLINE_DEPTH = 64


@dataclass(frozen=True)
class KernelId:
    """Which kernel a variant was compiled from.

    ``source_hash`` changes whenever the kernel or anything it calls changes
    (Triton's own dependency hash), so stale captures are never mistaken for new.
    """

    name: str
    file: str
    source_hash: str


@dataclass(frozen=True)
class Config:
    """One point of a kernel's configuration space.

    ``constexprs`` are the kernel's ``tl.constexpr`` parameters, ``options`` the
    launch options Triton takes beside them (num_warps, num_stages, ...), and
    ``sizes`` the input sizes the example tensors are built from: all three change
    the generated code, so all three name a variant.
    """

    constexprs: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    sizes: Mapping[str, Any] = field(default_factory=dict)

    def values(self) -> dict[str, Any]:
        """Every setting by name, constexprs first."""
        return {**self.constexprs, **self.options, **self.sizes}

    def label(self) -> str:
        """Short human label, e.g. ``BLOCK_SIZE=1024 num_warps=4``."""
        return " ".join(f"{k}={v}" for k, v in {**self.constexprs, **self.options}.items())

    def key(self) -> str:
        """Canonical identity string: equal configs give equal keys."""
        parts = [f"{k}={self.constexprs[k]!r}" for k in sorted(self.constexprs)]
        parts += [f"{k}={self.options[k]!r}" for k in sorted(self.options)]
        parts += [f"{k}={self.sizes[k]!r}" for k in sorted(self.sizes)]
        return ",".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"constexprs": dict(self.constexprs), "options": dict(self.options), "sizes": dict(self.sizes)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Config:
        return cls(dict(data.get("constexprs", {})), dict(data.get("options", {})), dict(data.get("sizes", {})))


# JSON's kinds for the annotations a record's fields use; a bool is never a number here.
_JSON_KINDS = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "list": (list,), "dict": (dict,)}
# JSON numbers have no size: a count or a size past 2**63 is no real one, and 10**400 as a float is an
# OverflowError far from the file that held it (a report's format, a ratio).
MAX_COUNT = 1 << 63


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 line``, ``2 lines``, ``0 lines`` (``many``: a plural other than word + s, ``1 entry``/``2 entries``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def json_number(value: Any) -> float | None:
    """A number read from data as a finite float; None where it is not one (a string, a bool, NaN, 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def typed_fields(cls: type, data: Any) -> dict[str, Any]:
    """The fields of ``cls`` that ``data`` holds, each of the kind its annotation says, else a TypeError.

    A record's JSON comes from a file anyone may have written; a string where a number
    belongs would otherwise fail later, far from the file, as a bug in irscope.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__} must be an object, not {type(data).__name__}")
    out = {}
    known = _field_kinds(cls)
    for name, value in data.items():
        field = known.get(name)
        if field is None:
            continue  # not a field of cls: left out
        out[name] = value
        kinds, exact, optional, annotation = field
        # What JSON parsing gives is of exactly these types: one set lookup settles it (5,000 entries open
        # a session); only other values (a subclass, a bool for a number, a wrong kind) are looked at closer.
        if type(value) is int and int in exact:
            if not -MAX_COUNT < value < MAX_COUNT:
                raise TypeError(f"{cls.__name__}.{name} is out of range ({str(value)[:20]}...)")
            if float in exact:  # a float field given an int: a float from here on, or none that large
                try:
                    out[name] = float(value)
                except OverflowError:
                    raise TypeError(f"{cls.__name__}.{name} is out of range ({str(value)[:20]}...)") from None
            continue
        if kinds is None or type(value) in exact or (value is None and optional):
            continue  # kinds None: an Enum, a Mapping, a tuple: the caller converts it, and that checks it
        # A bool is an int to Python, but never a number here: only a field that takes bools takes one.
        if not (isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))):
            raise TypeError(f"{cls.__name__}.{name} must be {annotation}, not {type(value).__name__}")
    return out


@functools.cache
def _field_kinds(cls: type) -> dict[str, tuple[tuple[type, ...] | None, frozenset[type], bool, str]]:
    """Per field name of ``cls``: the Python types its JSON kinds allow (None: not checked here), the exact
    types that pass at a glance, whether None is allowed, and its annotation. Worked out once per class."""
    out: dict[str, tuple[tuple[type, ...] | None, frozenset[type], bool, str]] = {}
    for f in fields(cls):
        names = [k.strip().split("[")[0] for k in str(f.type).split("|")]
        checked = all(k in _JSON_KINDS or k == "None" for k in names)
        kinds: tuple[type, ...] | None = (
            tuple(t for k in names if k != "None" for t in _JSON_KINDS[k]) if checked else None
        )
        exact = frozenset(kinds or ()) | ({type(None)} if "None" in names else set())
        out[f.name] = (kinds, exact, "None" in names, str(f.type))
    return out


def scalar_values(data: Any, what: str) -> dict[str, Any]:
    """``{name: value}`` read from data: names are strings, values JSON scalars; else a TypeError."""
    if not isinstance(data, Mapping):
        raise TypeError(f"{what} must be an object, not {type(data).__name__}")
    for name, value in data.items():
        if not isinstance(name, str) or not (value is None or isinstance(value, (str, int, float, bool))):
            raise TypeError(f"{what}[{name!r}] must be a string, number, bool or null")
    return dict(data)


CLUSTER_SHAPE = re.compile(r"[1-9][0-9]{0,3}x[1-9][0-9]{0,3}x[1-9][0-9]{0,3}")


@dataclass(frozen=True)
class Resources:
    """What the compiled kernel asks of the GPU.

    The ptxas figures (registers, spills, stack) come from ptxas's own report and
    need no GPU; ``gpu_registers``/``gpu_spills`` are what the driver reported on
    loading the module, when it was captured on a GPU. ``shared`` is a block's shared
    memory in bytes: the dynamic shared memory Triton requests at launch (ptxas does not
    see it) plus the static ``__shared__`` arrays ptxas reports (a CUDA C++ kernel's).
    On AMD ``shared`` is LDS, and ``registers`` one lane's VGPRs.
    """

    shared: int = 0
    registers: int | None = None
    spill_stores: int | None = None
    spill_loads: int | None = None
    stack_frame: int | None = None
    barriers: int | None = None
    gpu_registers: int | None = None
    gpu_spills: int | None = None
    # An AMD kernel's, from its HSACO's metadata (``registers`` holds its VGPRs, ``shared`` its LDS):
    sgprs: int | None = None
    agprs: int | None = None  # accumulation registers (MFMA), counted in the VGPRs on gfx90a and later
    scratch: int | None = None  # private memory per lane, in bytes: where spills go
    vgpr_spills: int | None = None
    sgpr_spills: int | None = None
    # The thread-block cluster a launch asks for, "2x1x1" (x, y, z CTAs): the PTX's .reqnctapercluster (Triton's
    # num_ctas), or the cluster dimension the host code sets on its launch (CuTe DSL's cluster=); None: not a
    # cluster launch, or not known.
    cluster: str | None = None

    def __post_init__(self) -> None:
        if self.cluster is not None and not CLUSTER_SHAPE.fullmatch(self.cluster):
            raise ValueError(f"Resources.cluster must read like 2x1x1, not {self.cluster[:40]!r}")


@dataclass(frozen=True)
class CompileInfo:
    """How a variant was compiled, in terms every frontend can fill.

    ``options`` are the launch options the compiler used, as data (Triton's
    num_warps, num_stages, num_ctas); ``threads_per_block`` is what occupancy is
    computed from, where the compile fixes it (Triton: 32 x num_warps).
    """

    mode: CaptureMode
    arch: str  # e.g. "sm_90"
    compiler: str  # e.g. "triton 3.6.0"
    compile_seconds: float
    options: Mapping[str, Any] = field(default_factory=dict)
    threads_per_block: int | None = None
    signature: Mapping[str, str] = field(default_factory=dict)  # arg -> specialised type, e.g. "*fp32"
    divisible_by_16: tuple[str, ...] = ()  # args the compiler may assume are multiples of 16
    # constexprs the kernel's own code set for this compile (Triton's @triton.heuristics): EVEN_N -> True
    heuristics: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CompileInfo:
        data = dict(data)
        if "compiler" not in data:  # written before frontends: Triton's fields at the top level
            options = {k: data.pop(k) for k in ("num_warps", "num_stages", "num_ctas") if k in data}
            data["options"] = options
            data["compiler"] = f"triton {data.pop('triton_version', '')}".strip()
            data["threads_per_block"] = 32 * int(options.get("num_warps") or 0) or None
        return cls(
            **{
                **typed_fields(cls, data),
                "mode": CaptureMode(data["mode"]),
                "options": dict(data.get("options") or {}),
                "signature": dict(data.get("signature") or {}),
                "divisible_by_16": tuple(data.get("divisible_by_16", ())),
                "heuristics": scalar_values(data.get("heuristics") or {}, "CompileInfo.heuristics"),
            }
        )

    def to_json(self) -> dict[str, Any]:
        return {
            **vars(self),
            "mode": self.mode.value,
            "options": dict(self.options),
            "signature": dict(self.signature),
            "divisible_by_16": list(self.divisible_by_16),
            "heuristics": dict(self.heuristics),
        }


@dataclass(frozen=True)
class CaptureError:
    """Why a variant could not be produced.

    ``stage`` names the step that failed: a compiler stage ("ttir (frontend)",
    "ttgir", "llir", "ptx", "cubin (ptxas)"), or "resources" when the kernel
    compiled but cannot launch (too much shared memory). Three say nothing about
    the kernel and are never cached: "environment" (an OSError from the disk, a
    cache or a tool), "timeout" (the compile ran past --compile-timeout and its
    worker was killed) and "compile" (the compiler process itself died, or
    raised something irscope did not expect).
    """

    stage: str | None
    message: str

    # "import": a kernel file that would not import here (no GPU, a module missing) may import elsewhere.
    NOT_FACTS: ClassVar[tuple[str, ...]] = ("environment", "timeout", "compile", "specialize", "import")

    @property
    def is_fact(self) -> bool:
        """Would compiling again give the same failure? (Then it may be cached and reused.)"""
        return self.stage not in self.NOT_FACTS

    def __str__(self) -> str:
        where = f"{self.stage}: " if self.stage else ""
        return f"{where}{self.message}"

    @classmethod
    def from_environment(cls, exc: BaseException, doing: str = "") -> CaptureError | None:
        """An "environment" error if an OSError is behind ``exc`` (a full disk, a read-only cache, a missing tool)."""
        seen: set[int] = set()
        cause: BaseException | None = exc
        while cause is not None and id(cause) not in seen:
            if isinstance(cause, OSError):
                where = f" ({cause.filename})" if cause.filename else ""
                during = f" while {doing}" if doing else ""
                return cls(
                    "environment",
                    f"{type(cause).__name__}: {cause.strerror or cause}{where}{during}; "
                    "not the kernel's fault: fix it and run again",
                )
            seen.add(id(cause))
            cause = cause.__cause__ or cause.__context__
        return None


@dataclass(frozen=True)
class PassStep:
    """One MLIR pass as the compiler ran it, and what it did to the IR.

    ``delta`` turns the IR before the pass into the IR after it, as line operations
    (``ir/passes.py``): an int n > 0 keeps n lines, n < 0 drops -n, a tuple of
    strings inserts them; None when the pass left the IR as it was. The counts are of
    the lines it dropped and inserted (location definitions left out; a renamed value
    changes every line that names it) and of operations by name (``tt.load``).
    """

    index: int  # 1-based position in the pipeline
    name: str  # the pass's class name: "TritonGPUCoalesce"
    arg: str  # its command-line name: "tritongpu-coalesce"
    stage: Stage  # the stage whose pass manager ran it: ttir, ttgir or llir
    scope: str = ""  # "" for a pass over the module; "tt.func @k" for one nested in another (the inliner's)
    delta: tuple[Any, ...] | None = None
    lines_removed: int = 0
    lines_added: int = 0
    ops_removed: Mapping[str, int] = field(default_factory=dict)
    ops_added: Mapping[str, int] = field(default_factory=dict)
    # Line operations that turn the IR after the pass before into the IR this pass started from, where
    # they differ; then ``delta`` applies to that. TileLang's (TVM's) passes: a pass nested in another
    # starts from its parent's IR, and the device Filter from the module the host Filter also started
    # from. None for every MLIR pass: each starts from the IR the one before it left.
    rebase: tuple[Any, ...] | None = None

    @property
    def changed(self) -> bool:
        return self.delta is not None

    @property
    def listing_stage(self) -> Stage:
        """The registered stage whose parsers, normaliser and lexer read this pass's IR.

        Triton's passes print MLIR: TTIR's passes the tt dialect, the rest TTGIR's dialects or
        (the llir stage's passes) MLIR's llvm dialect, all read by the MLIR parsers of TTGIR.
        Another compiler's passes are read by their own stage's (TileLang's: its lowered TIR's).
        """
        if self.stage in (Stage.TTGIR, Stage.LLIR):
            return Stage.TTGIR
        return self.stage

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "arg": self.arg,
            "stage": self.stage.value,
            "scope": self.scope,
            "delta": _ops_json(self.delta),
            "lines": [self.lines_removed, self.lines_added],
            "ops": [dict(self.ops_removed), dict(self.ops_added)],
            **({"rebase": _ops_json(self.rebase)} if self.rebase is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PassStep:
        delta, rebase = _ops(data.get("delta")), _ops(data.get("rebase"))
        removed, added = data.get("lines", (0, 0))
        ops_removed, ops_added = data.get("ops", ({}, {}))
        return cls(
            _count(data["index"]),
            str(data["name"]),
            str(data["arg"]),
            Stage(data["stage"]),
            str(data.get("scope", "")),
            delta,
            _count(removed),
            _count(added),
            {str(k): _count(v) for k, v in ops_removed.items()},
            {str(k): _count(v) for k, v in ops_added.items()},
            rebase,
        )


def _count(value: Any) -> int:
    """A stored count or line operation: an int as JSON writes one (int() would take 4.9 and True, and
    raise OverflowError, an internal error, on 1e400)."""
    if type(value) is not int:
        raise ValueError(f"{value!r} is not a whole number")
    return value


def _ops(data: Any) -> tuple[Any, ...] | None:
    """Stored line operations (``PassStep.delta``, ``rebase``) read back: ints, and lists of lines to insert."""
    if data is None:
        return None
    return tuple(tuple(str(x) for x in op) if isinstance(op, list) else _count(op) for op in data)


def _ops_json(ops: tuple[Any, ...] | None) -> list[Any] | None:
    return None if ops is None else [list(op) if isinstance(op, tuple) else op for op in ops]


ALIAS_MARK = "\x01"
PASS_ALIAS = re.compile("\x01(\\d+)\x01")  # a long type a stored pass line names by its number (ir/passes.py)
# What a pass log may make when its IR is rebuilt (``ir/passes.py``): the largest seen, a matmul's LLVM
# stage, is 15,266 lines and 5.4 MB with its long types written out, 10 MB for all 70 passes together
# (the capture cache's largest ``passes.json.gz``). A stored line names a long type in 3 characters, so a
# crafted 147 KB log would otherwise rebuild to ~20 GB: past these it is damaged data, refused as read.
MAX_PASS_IR_LINES = 1 << 20  # in the IR before or after any one pass
MAX_PASS_IR_CHARS = 64 << 20  # the same, its long types written out
MAX_PASS_LOG_CHARS = 512 << 20  # the IR after every pass that changed it, together (what the TUI holds)


@dataclass(frozen=True)
class PassLog:
    """Every MLIR pass of one compile, in pipeline order: the IR before the first pass, and each
    pass's change to it, so that the IR after any pass is rebuilt on demand (``ir/passes.py``)."""

    initial: str  # the IR before the first pass: the TTIR the frontend wrote
    steps: tuple[PassStep, ...] = ()
    # Long types the stored lines name by number (``\x01N\x01``): lowered to LLVM, a tensor's
    # per-thread values are a struct of one field per element, repeated on every line.
    aliases: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"initial": self.initial, "steps": [s.to_json() for s in self.steps], "aliases": list(self.aliases)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PassLog:
        log = cls(
            str(data["initial"]),
            tuple(PassStep.from_json(s) for s in data["steps"]),
            tuple(str(a) for a in data.get("aliases", ())),
        )
        log.check()
        return log

    def check(self) -> None:
        """A ValueError unless the passes are numbered in order and each delta covers the IR before it.

        Checked once, on counts alone, as the log is read: the IR after a pass is rebuilt only
        when asked for, long after a damaged file could still be named as the cause.
        """
        lines = len(self.initial.splitlines())
        # An alias stands for part of one line: with a line break in it, or a number past the list, the IR
        # rebuilt from the stored lines would not be the lines the operations count.
        if any(len(f"x{alias}x".splitlines()) != 1 for alias in self.aliases):
            raise ValueError("an alias holds a line break")
        # Each line's length as the IR is rebuilt, its long types written out: what rebuilding would make
        # (_line_sizes refuses a line naming an alias past the list, reading each stored line once).
        grown = [len(alias) - len(f"{ALIAS_MARK}{n}{ALIAS_MARK}") for n, alias in enumerate(self.aliases)]
        sizes = _line_sizes(self.initial.splitlines(), grown)
        chars = made = sum(sizes)
        _check_made(0, lines, chars, made)
        for position, step in enumerate(self.steps, 1):
            if step.index != position:
                raise ValueError(f"pass {position} is numbered {step.index}")
            for ops in (step.rebase, step.delta):
                if ops is None:
                    continue
                covered = sum(abs(op) for op in ops if not isinstance(op, tuple))
                if covered != lines:
                    raise ValueError(f"pass {position}'s line operations cover {covered} of {lines} lines")
                lines = sum(len(op) if isinstance(op, tuple) else max(op, 0) for op in ops)
                if lines <= MAX_PASS_IR_LINES:
                    sizes, chars = _sizes_after(sizes, chars, ops, grown)
            if step.delta is not None or step.rebase is not None:
                made += chars
            _check_made(position, lines, chars, made)


def _check_made(position: int, lines: int, chars: int, made: int) -> None:
    """A ValueError where the IR rebuilt after pass ``position`` (0: before the first) is past the limits."""
    where = f"pass {position}'s IR" if position else "the IR before the first pass"
    if lines > MAX_PASS_IR_LINES:
        raise ValueError(f"{where} would be {lines:,} lines (at most {MAX_PASS_IR_LINES:,})")
    if chars > MAX_PASS_IR_CHARS:
        raise ValueError(f"{where} would be {chars >> 20:,} MB written out (at most {MAX_PASS_IR_CHARS >> 20})")
    if made > MAX_PASS_LOG_CHARS:
        raise ValueError(
            f"the IR up to pass {position} would be {made >> 20:,} MB (at most {MAX_PASS_LOG_CHARS >> 20})"
        )


def _line_sizes(lines: Sequence[str], grown: Sequence[int]) -> list[int]:
    """Each line's length with its long types written out (``grown``: how much each alias adds), its break included;
    a ValueError where a line names an alias the log does not hold."""
    try:
        return [
            len(line) + 1 + (sum(grown[int(n)] for n in PASS_ALIAS.findall(line)) if ALIAS_MARK in line else 0)
            for line in lines
        ]
    except IndexError:
        raise ValueError("a line names an alias the log does not hold") from None


def _sizes_after(sizes: list[int], chars: int, ops: tuple[Any, ...], grown: Sequence[int]) -> tuple[list[int], int]:
    """Each line's length (``sizes``, ``chars`` in all) through one pass's line operations, as ``ir/passes.py:
    apply_delta`` runs them; the total kept by what was dropped and inserted (a pass changes few lines of many)."""
    out: list[int] = []
    at = 0
    for op in ops:
        if isinstance(op, tuple):
            inserted = _line_sizes(op, grown)
            out += inserted
            chars += sum(inserted)
        elif op > 0:
            out += sizes[at : at + op]
            at += op
        else:
            chars -= sum(sizes[at : at - op])
            at -= op
    return out, chars


class HtmlDisplay:
    """``_repr_html_`` for Jupyter, VS Code and IPython: the report's page for this object, in a sandboxed frame.

    The renderer (report/display.py) sits far above this layer, so it is not imported here: ``import irscope``
    puts it in ``HTML_DISPLAY`` (api.py), the one slot every displayable type reads. Empty (the renderer not
    loaded), a notebook falls back to the one-line ``repr``.
    """

    def _repr_html_(self) -> str | None:
        return HTML_DISPLAY[0](self) if HTML_DISPLAY else None


HTML_DISPLAY: list[Callable[[Any], str]] = []


@dataclass(frozen=True)
class Variant(HtmlDisplay):
    """One kernel compiled with one config for one arch: every stage and its metadata.

    ``listings`` holds the text of each stage that was produced; a stage that is
    missing has its reason in ``stage_errors``. A variant that failed to compile
    has ``status`` FAILED and ``error`` set, and keeps the stages that did finish.
    """

    kernel: KernelId
    config: Config
    arch: str
    status: Status
    listings: Mapping[Stage, str] = field(default_factory=dict)
    stage_errors: Mapping[Stage, str] = field(default_factory=dict)
    cubin: bytes | None = None
    resources: Resources | None = None
    compile_info: CompileInfo | None = None
    error: CaptureError | None = None
    passes: PassLog | None = None  # every MLIR pass, where it was asked for (irscope passes, sweep --passes)
    # Which frontend compiled it ("triton", "cuda", "numba") and the dialect its source is written in
    # (ir/dialects.py: "python", "cuda"): what findings and the faces name the source by. "": unknown.
    frontend: str = ""
    source_language: str = ""
    # The generator whose origin comments map its source, a generated file, back to the user's file
    # ("inductor"): the second level of the source map (ir/sourcemap.py: ORIGINS). "": the source is the user's.
    generated_by: str = ""

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    def listing(self, stage: Stage) -> str:
        """The text of ``stage``; raises KeyError with the reason when it is missing."""
        try:
            return self.listings[stage]
        except KeyError:
            raise KeyError(f"{stage.value} was not captured: {self.missing_reason(stage)}") from None

    def missing_reason(self, stage: Stage) -> str:
        """Why the variant has no ``stage``: the reason its capture stored, a stage its language never makes
        (a TileLang kernel asked for TTIR), its compile's failure, or "not captured"."""
        if self.stage_errors.get(stage):
            return self.stage_errors[stage]
        if not self.made_for_vendor(stage):
            have = ", ".join(s.value for s in self.listings) or "none"
            return f"{self.frontend or 'triton'} kernels compiled for {self.arch} have no {stage.value} (this one has: {have})"
        return str(self.error) if self.error else "not captured"

    def identity(self) -> str:
        """Stable identity within a kernel: config and arch."""
        return f"{self.config.key()}@{self.arch}"

    @property
    def vendor(self) -> Vendor:
        return vendor_of(self.arch)

    def made_for_vendor(self, stage: Stage) -> bool:
        """Would a compile for this variant's GPU, by its frontend, have ``stage`` at all (AMD's has no PTX,
        NVIDIA's no AMDGCN, a Triton kernel's no Gluon or CuTe IR)?"""
        return stage.spec.made_for(self.vendor.value, self.frontend)

    @property
    def binary_name(self) -> str:
        """What its binary is: an NVIDIA cubin or an AMD code object (HSACO), also as a file extension."""
        return "hsaco" if self.vendor is Vendor.AMD else "cubin"

    def __repr__(self) -> str:
        # The dataclass's repr spelled out every listing: tens of thousands of characters for one echo.
        machine = next((s for s in (Stage.PTX, Stage.AMDGCN) if s in self.listings), None)
        facts = [plural(len(self.listings[machine].splitlines()), f"{machine.label} line")] if machine else []
        if self.resources is not None and self.resources.registers is not None:
            facts.append(f"{self.resources.registers} registers")
        if self.error is not None:
            facts.append(f"error at {self.error.stage or 'compile'}")
        return short_repr(
            "Variant", self.kernel.name, self.config.label() or "default", self.arch, self.status.value, *facts
        )


REPR_PART = 60  # characters of one name or label in a repr; a sweep's label can be long


def short_repr(kind: str, *parts: str) -> str:
    """``<Kind a b c>``, one line under 200 characters whatever the names hold."""
    shown = [" ".join(str(p).split())[:REPR_PART] for p in parts if p != ""]
    text = f"<{kind} {' '.join(shown)}>"
    return text if len(text) < 200 else text[:197] + "…>"
