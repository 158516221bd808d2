"""The stages a variant can hold, each declared once, in pipeline order.

A stage's spec is data: its name and tab label, the file it is stored in, the dialect its text is
written in, a line for help texts, whose GPUs have it, and what it is derived from where irscope
makes it itself (SASS: disassembled from the cubin). The CLI's ``--stage`` choices, the TUI's tabs
and digit keys and the help text are all derived from this one list, followed by two views that are
not stages: the runtime chart and the Passes tab (``tui/widgets/passes.py``).

What is done with a stage's text is code, and lives with its dialect: ``ir/dialects.py`` holds one
entry per dialect (MLIR, LLVM IR, PTX, SASS, AMDGCN, Python, CUDA C++, TIR, generated CUDA C++ with
``#line``) naming its source-location parser, normaliser, counter, lexers and how a diff pairs its
names; ``annotating/explain.py:
EXPLAINERS`` decodes the lines of the explained ones. So this base module imports nothing of
irscope's, every arrow to a parser is an import the linter sees, and a new stage of a known dialect
is one ``register(StageSpec(...))``. ``tests/test_stages.py`` checks every spec is complete and runs
every dialect through every kind of work. A ``Stage`` is an interned ``str``, so a frontend can
register stages of its own and a variant holds only the stages its frontend produced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


class Stage(str):
    """The name of a registered stage (``"ptx"``), interned: ``Stage("ptx") is Stage.PTX``.

    A ``str`` so that it is its own JSON and dictionary key; ``Stage(name)`` raises
    ValueError for a name nobody registered, as an Enum would.
    """

    __slots__ = ()
    SOURCE: ClassVar[Stage]
    GLUON: ClassVar[Stage]
    HELION_TRITON: ClassVar[Stage]
    TTIR: ClassVar[Stage]
    TTGIR: ClassVar[Stage]
    LLIR: ClassVar[Stage]
    PTX: ClassVar[Stage]
    SASS: ClassVar[Stage]
    AMDGCN: ClassVar[Stage]

    def __new__(cls, name: str) -> Stage:
        key = _ALIASES.get(str(name), str(name))
        try:
            return _INTERNED[key]
        except KeyError:
            raise ValueError(f"unknown stage {name!r}; known: {', '.join(_INTERNED)}") from None

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def spec(self) -> StageSpec:
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
    def compiled(cls) -> tuple[Stage, ...]:
        """Every registered stage but the source, in pipeline order."""
        return tuple(s for s in _SPECS if s is not cls.SOURCE)

    @classmethod
    def all(cls) -> tuple[Stage, ...]:
        return tuple(_SPECS)


@dataclass(frozen=True)
class StageSpec:
    """What irscope needs to know about one stage, as data."""

    key: str
    label: str  # the TUI tab
    extension: str  # file extension on disk; "" for the kernel file's own (the source stage)
    dialect: str  # what its text is written in: a key of ir/dialects.py's DIALECTS ("mlir", "ptx")
    description: str  # one line for help texts
    provided_by: str  # how a frontend provides it
    aliases: tuple[str, ...] = ()
    vendor: str = ""  # "nvidia" or "amd": only a compile for that vendor's GPUs has it; "": every compile
    # What irscope derives it from, where no compiler hands it over ("cubin": SASS, disassembled in
    # batches by capturing/pipeline.py's DERIVED); "": the frontend's compile lists it.
    derived_from: str = ""
    # The frontends whose kernels have it (Gluon's IR before passes: ("gluon",)); (): every frontend's.
    frontends: tuple[str, ...] = ()

    def made_for(self, vendor: str, frontend: str | None = None) -> bool:
        """Would a compile for ``vendor``'s GPUs ("nvidia", "amd") produce this stage? ``frontend``: by that
        frontend's kernels (None: by any kernel; "": a kernel whose frontend is not known, Triton's)."""
        return self.vendor in ("", vendor) and (
            not self.frontends or frontend is None or (frontend or "triton") in self.frontends
        )

    @property
    def stage(self) -> Stage:
        return Stage(self.key)

    def file_extension(self, kernel_file: str = "") -> str:
        """The extension of this stage's file, for a kernel that lives in ``kernel_file``."""
        if self.extension:
            return self.extension
        suffix = kernel_file.rpartition("/")[2].rpartition(".")[2] if "." in kernel_file.rpartition("/")[2] else ""
        return suffix or "txt"


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


Stage.SOURCE = register(
    StageSpec(
        "source",
        "Source",
        "",
        "python",
        "the kernel's source, as the compiler read it",
        "the frontend reads the kernel's file",
        aliases=("python",),
    )
)
# Registered here rather than in frontends/gluon/, as Triton's stages are: a stored Gluon variant is read (and
# `--stage gluon` offered) before any frontend is imported, and the stage comes before TTGIR in pipeline order.
Stage.GLUON = register(
    StageSpec(
        "gluon",
        "Gluon IR",
        "ttgir",
        "mlir",
        "Gluon IR: the TTGIR module a Gluon kernel's Python makes, before any pass (layouts as written)",
        "Triton's asm['source'] for a GluonASTSource",
        frontends=("gluon",),
    )
)
# Helion's generated Triton, here for the same reason (`--stage helion_triton`): a stage of its own, between the
# Helion source and TTIR; ir/sourcemap.py's ORIGINS names it as the stage every later one maps through.
Stage.HELION_TRITON = register(
    StageSpec(
        "helion_triton",
        "Triton",
        "py",
        "python",
        "the Triton module Helion generated for this config (to_triton_code), with its # src[file:line] comments",
        "Helion's BoundKernel.to_triton_code(config)",
        aliases=("generated",),
        frontends=("helion",),
    )
)
# The languages whose kernels Triton's compiler lowers: only their sessions have Triton's IR stages (a TileLang or
# CuTe DSL session showed TTIR/TTGIR/LLIR tabs that could only say "not captured").
TRITON_COMPILES = ("triton", "gluon", "helion")
Stage.TTIR = register(
    StageSpec(
        "ttir",
        "TTIR",
        "ttir",
        "mlir",
        "Triton IR: the kernel as tensor operations (MLIR, tt dialect)",
        "Triton's asm['ttir']",
        frontends=("triton", "helion"),  # a Gluon kernel starts at TTGIR; no other language passes through Triton
    )
)
Stage.TTGIR = register(
    StageSpec(
        "ttgir",
        "TTGIR",
        "ttgir",
        "mlir",
        "Triton GPU IR: TTIR with layouts (which thread holds which element)",
        "Triton's asm['ttgir']",
        frontends=TRITON_COMPILES,
    )
)
Stage.LLIR = register(
    StageSpec(
        "llir",
        "LLIR",
        "ll",
        "llvm",
        "LLVM IR, with NVVM (NVIDIA) or AMDGPU intrinsics",
        "Triton's asm['llir']",
        frontends=TRITON_COMPILES,
    )
)
Stage.PTX = register(
    StageSpec(
        "ptx",
        "PTX",
        "ptx",
        "ptx",
        "PTX: NVIDIA's virtual instruction set",
        "the compiler's PTX output (Triton's asm['ptx'], nvcc -ptx, ...)",
        vendor="nvidia",
    )
)
Stage.SASS = register(
    StageSpec(
        "sass",
        "SASS",
        "sass",
        "sass",
        "SASS: the machine code the GPU runs, from ptxas",
        "nvdisasm of the cubin, with its DWARF line table",
        vendor="nvidia",
        derived_from="cubin",
    )
)
Stage.AMDGCN = register(
    StageSpec(
        "amdgcn",
        "AMDGCN",
        "s",
        "amdgcn",
        "AMDGCN: AMD's machine code, as LLVM's AMDGPU backend writes it (.loc lines, register counts)",
        "Triton's asm['amdgcn'] (its HSACO is the assembled, linked code object)",
        vendor="amd",
    )
)
