"""The stages a variant can hold, each declared once, in pipeline order.

A stage is everything irscope knows about one kind of listing: its name and tab
label, the file it is stored in, how a comment starts (to weave source lines in),
how to find each line's source location, how to normalise it for a diff, how to
count its instructions, how to highlight it, and how to explain its lines. The
CLI's ``--stage`` choices, the TUI's tabs and digit keys and the help text are all
derived from this one list, and a test checks that every spec is complete.

The behaviour is named as ``"module:attribute"`` and imported on first use, so this
base module imports nothing of irscope's and a frontend can register stages whose
code lives in its own folder (per-pass dumps, a CUDA C++ frontend without TTIR).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any, Callable, ClassVar


class Stage(str):
    """The name of a registered stage (``"ptx"``), interned: ``Stage("ptx") is Stage.PTX``.

    A ``str`` so that it is its own JSON and dictionary key; ``Stage(name)`` raises
    ValueError for a name nobody registered, as an Enum would.
    """

    __slots__ = ()
    SOURCE: ClassVar["Stage"]
    TTIR: ClassVar["Stage"]
    TTGIR: ClassVar["Stage"]
    LLIR: ClassVar["Stage"]
    PTX: ClassVar["Stage"]
    SASS: ClassVar["Stage"]

    def __new__(cls, name: str) -> "Stage":
        key = _ALIASES.get(str(name), str(name))
        try:
            return _INTERNED[key]
        except KeyError:
            raise ValueError(f"unknown stage {name!r}; known: {', '.join(_INTERNED)}") from None

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def spec(self) -> "StageSpec":
        return _SPECS[self]

    def file_name(self, kernel_file: str = "") -> str:
        """``ptx.ptx``, ``source.py``: the name of this stage's file in a stored variant."""
        return f"{self.value}.{self.spec.file_extension(kernel_file)}"

    @property
    def label(self) -> str:
        return self.spec.label

    def __repr__(self) -> str:
        return f"Stage({self.value!r})"

    def __reduce__(self):
        return (Stage, (self.value,))

    @classmethod
    def compiled(cls) -> tuple["Stage", ...]:
        """Every registered stage but the source, in pipeline order."""
        return tuple(s for s in _SPECS if s is not cls.SOURCE)

    @classmethod
    def all(cls) -> tuple["Stage", ...]:
        return tuple(_SPECS)


@dataclass(frozen=True)
class StageSpec:
    """What irscope needs to know about one stage.

    The behaviour fields name a callable as ``"module:attribute"``:

    - ``locations(text, file) -> list[SourceLoc | None]``: one source location per line.
    - ``normalise(text) -> list[NormalizedLine]``: the lines a diff compares.
    - ``stats(stage, text, positions) -> StageStats``: instructions and memory accesses.
    - ``lexer``: a pygments lexer class.
    - ``explainer(variant) -> (line -> Explanation)``: plain-word decoding, where there is one.
    """

    key: str
    label: str  # the TUI tab
    extension: str  # file extension on disk; "" for the kernel file's own (the source stage)
    comment: str  # how a line comment starts, to weave source lines in
    description: str  # one line for help texts
    provided_by: str  # how a frontend provides it
    locations: str
    normalise: str
    stats: str
    lexer: str
    explainer: str | None = None
    aliases: tuple[str, ...] = ()

    BEHAVIOUR: ClassVar[tuple[str, ...]] = ("locations", "normalise", "stats", "lexer")

    @property
    def stage(self) -> Stage:
        return Stage(self.key)

    def file_extension(self, kernel_file: str = "") -> str:
        """The extension of this stage's file, for a kernel that lives in ``kernel_file``."""
        if self.extension:
            return self.extension
        suffix = kernel_file.rpartition("/")[2].rpartition(".")[2] if "." in kernel_file.rpartition("/")[2] else ""
        return suffix or "txt"

    def behaviour(self, field: str) -> Any:
        """The callable (or class) that ``field`` names; None where the stage has none."""
        ref = getattr(self, field)
        return None if ref is None else load_ref(ref)


_SPECS: dict[Stage, StageSpec] = {}
_INTERNED: dict[str, Stage] = {}
_ALIASES: dict[str, str] = {}


def register(spec: StageSpec) -> Stage:
    """Add a stage after those already registered; registering the same spec twice is harmless."""
    existing = _INTERNED.get(spec.key)
    if existing is not None:
        if _SPECS[existing] != spec:
            raise ValueError(f"stage {spec.key!r} is already registered differently")
        return existing
    stage = str.__new__(Stage, spec.key)
    _INTERNED[spec.key] = stage
    _SPECS[stage] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.key
    return stage


def specs() -> list[StageSpec]:
    """Every registered stage, in pipeline order."""
    return list(_SPECS.values())


@functools.lru_cache(maxsize=None)
def load_ref(ref: str) -> Callable[..., Any]:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


Stage.SOURCE = register(StageSpec(
    "source", "Source", "", "#", "the kernel's source, as the compiler read it",
    "the frontend reads the kernel's file",
    locations="irscope.ir.locations:source_locations", normalise="irscope.ir.normalize:normalize_source",
    stats="irscope.ir.stats:no_stats", lexer="pygments.lexers:PythonLexer", aliases=("python",),
))
Stage.TTIR = register(StageSpec(
    "ttir", "TTIR", "ttir", "//", "Triton IR: the kernel as tensor operations (MLIR, tt dialect)",
    "Triton's asm['ttir']",
    locations="irscope.ir.locations:mlir_locations", normalise="irscope.ir.normalize:normalize_mlir",
    stats="irscope.ir.stats:mlir_stats", lexer="irscope.highlight:MlirLexer",
))
Stage.TTGIR = register(StageSpec(
    "ttgir", "TTGIR", "ttgir", "//", "Triton GPU IR: TTIR with layouts (which thread holds which element)",
    "Triton's asm['ttgir']",
    locations="irscope.ir.locations:mlir_locations", normalise="irscope.ir.normalize:normalize_mlir",
    stats="irscope.ir.stats:mlir_stats", lexer="irscope.highlight:MlirLexer",
))
Stage.LLIR = register(StageSpec(
    "llir", "LLIR", "ll", ";", "LLVM IR, with NVVM intrinsics",
    "Triton's asm['llir']",
    locations="irscope.ir.locations:llvm_locations", normalise="irscope.ir.normalize:normalize_llvm",
    stats="irscope.ir.stats:llvm_stats", lexer="irscope.highlight:DebugLlvmLexer",
))
Stage.PTX = register(StageSpec(
    "ptx", "PTX", "ptx", "//", "PTX: NVIDIA's virtual instruction set",
    "the compiler's PTX output (Triton's asm['ptx'], nvcc -ptx, ...)",
    locations="irscope.ir.locations:ptx_locations", normalise="irscope.ir.normalize:normalize_ptx",
    stats="irscope.ir.stats:ptx_stats", lexer="irscope.highlight:GuardedPtxLexer",
    explainer="irscope.annotate.explain:ptx_explainer",
))
Stage.SASS = register(StageSpec(
    "sass", "SASS", "sass", "//", "SASS: the machine code the GPU runs, from ptxas",
    "nvdisasm of the cubin, with its DWARF line table",
    locations="irscope.ir.locations:sass_locations", normalise="irscope.ir.normalize:normalize_sass",
    stats="irscope.ir.stats:sass_stats", lexer="irscope.highlight:SassLexer",
    explainer="irscope.annotate.explain:sass_explainer",
))
