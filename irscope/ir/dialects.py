"""Dialects: what a stage's text is written in, and everything irscope does with text of that kind.

A stage names its dialect (``stages.py``: ``StageSpec.dialect``), and the dialect owns the work done
on its text: which source line each line came from (``locations.py``), the lines a diff compares
(``normalize.py``) and how a diff pairs their names (``diffing/canonical.py`` reads ``Names``), what
is counted in them (``stats.py``), how the terminal and the report's page colour them (``lexers.py``,
``report/assets/report.js``), and whether they are explained in plain words (``annotating/explain.py``:
``EXPLAINERS``, keyed by dialect: the one kind of work that lives above ``ir``). TTIR and TTGIR are
both MLIR and share all of it; Helion's generated Triton is Python, CuTe DSL's IR is MLIR, TileLang's
generated CUDA is CUDA C++. So a new stage of a known dialect is one ``StageSpec``, and a new dialect
one ``register(Dialect(...))`` (plus an explainer where its lines are explained); tests/test_stages.py
runs every dialect through every kind of work.

The source stage's dialect is its file's language (``dialect_of(stage, suffix)``): the dialect that
claims the suffix, else the stage's own (Python).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

from ..stages import Stage
from .locations import (
    LineLocs,
    amdgcn_locations,
    line_directive_locations,
    llvm_locations,
    mlir_locations,
    no_locations,
    ptx_locations,
    sass_locations,
    source_locations,
)
from .normalize import (
    NormalizedLine,
    clean_ptx,
    clean_sass,
    normalize_amdgcn,
    normalize_llvm,
    normalize_mlir,
    normalize_ptx,
    normalize_sass,
    normalize_source,
)
from .stats import StageStats, amdgcn_stats, llvm_stats, mlir_stats, no_stats, ptx_stats, sass_stats

if TYPE_CHECKING:
    from pygments.lexer import Lexer


@dataclass(frozen=True)
class Names:
    """How a canonical diff (``diffing/canonical.py``) pairs a dialect's names: registers, SSA values,
    labels, layout aliases.

    ``defines`` says which name a line writes: ``"ssa"`` (``%x = op ...``: MLIR, LLVM IR), ``"guarded"``
    (PTX's virtual registers: the first operand, unless the opcode writes none or a guard makes the write
    conditional), ``"physical"`` (SASS's and AMDGCN's registers are reused: each write starts a new
    version of the name, so names pair by value as virtual registers do).
    """

    pattern: re.Pattern[str]  # one capturing group: re.split puts the names at the odd places
    defines: str
    no_dest: re.Pattern[str] | None = None  # "guarded", "physical": opcodes that write no named register
    opcode: re.Pattern[str] | None = None  # "physical": the opcode at the start of a line's head
    numbered: bool = False  # every name is a class and a number on one line: the listing is split in one pass
    listing: Callable[[str], list[NormalizedLine]] | None = None  # the lines compared, names as written
    instruction: Callable[[str], bool] | None = None  # an instruction line, not a directive or a label


@dataclass(frozen=True)
class Dialect:
    """A language a stage's text is written in, and how each kind of work reads it."""

    key: str
    description: str
    comment: str  # how a line comment starts, to weave source lines in
    locations: Callable[[str, str], LineLocs]  # (text, file) -> one SourceLoc or None per line
    normalise: Callable[[str], list[NormalizedLine]]  # the lines a diff compares
    stats: Callable[[Stage, str, bool], StageStats]  # (stage, text, positions) -> what is counted
    lexer: Callable[[], type[Lexer]]  # the pygments lexer, imported when first asked for
    web_lexer: str  # the report page's lexer: a key of LEXERS in report/assets/report.js
    names: Names | None = None  # None: a diff pairs no names (the source)
    explained: bool = False  # its lines are decoded in plain words (annotating/explain.py: EXPLAINERS)
    suffixes: tuple[str, ...] = ()  # a kernel file in this language, for the source stage
    label: str = ""  # how messages name the language ("a Python line", "a C++ line")

    @property
    def counted(self) -> bool:
        """Are its instructions counted? Not a source's, nor TIR's (TVMScript: statements, not instructions)."""
        return self.stats is not no_stats


def counted(stage: Stage) -> bool:
    """Does ``stage_stats`` count ``stage``'s instructions (else its count is not 0 but unknown)?"""
    return dialect_of(stage).counted


DIALECTS: dict[str, Dialect] = {}


def register(dialect: Dialect) -> Dialect:
    """Add a dialect; registering the same one twice is harmless, a different one under its key is not."""
    existing = DIALECTS.get(dialect.key)
    if existing is not None and existing != dialect:
        raise ValueError(f"dialect {dialect.key!r} is already registered differently")
    DIALECTS[dialect.key] = dialect
    return dialect


@lru_cache(maxsize=64)
def dialect_of(stage: Stage, suffix: str = "") -> Dialect:
    """The dialect ``stage`` is written in; for the source stage, the one its file's ``suffix`` names."""
    stage = Stage(stage)  # the public API (SourceMap, notebooks) takes a stage's name as well as the member
    if stage is Stage.SOURCE and suffix:
        for dialect in DIALECTS.values():
            if suffix in dialect.suffixes:
                return dialect
    return DIALECTS[stage.spec.dialect]


def locations(stage: Stage, text: str, source_file: str = "") -> LineLocs:
    """One source location (or None) per line of ``text``, by its dialect's parser."""
    return dialect_of(stage).locations(text, source_file)


def normalize(stage: Stage, text: str) -> list[NormalizedLine]:
    """``text`` normalised by its dialect's normaliser: the lines a diff compares."""
    return dialect_of(stage).normalise(text)


@lru_cache(maxsize=32)
def stage_stats(stage: Stage, text: str, positions: bool = True) -> StageStats:
    """Facts about ``text``, by its dialect's counter; without ``positions`` (line indices are -1) SASS
    is scanned much faster. Kept for the next caller that asks about the same listing (a diff's summary,
    the TUI's panes): shared, not to be changed."""
    return dialect_of(stage).stats(stage, text, positions)


def _lexers() -> ModuleType:
    from . import lexers  # pygments, imported when a listing is first highlighted: not by a diff or a map

    return lexers


def _python_lexer() -> type[Lexer]:
    from pygments.lexers import PythonLexer

    return PythonLexer


def _cuda_lexer() -> type[Lexer]:
    from pygments.lexers.c_like import CudaLexer  # only where a CUDA C++ source is shown (most sessions have none)

    return CudaLexer


def _ptx_instruction(text: str) -> bool:
    return bool(text) and text[0] not in ".${}()" and not text.endswith(":")


def _assembly_instruction(text: str) -> bool:
    return bool(text) and text[0] != "." and not text.endswith(":")


# MLIR's names: SSA values (%x, %12), block labels (^bb3), attribute aliases (#blocked1).
_MLIR_NAMES = re.compile(r"(%[A-Za-z_$.][\w$.]*|%\d+|\^bb\d+|#[A-Za-z_][A-Za-z_]*\d*(?![\w.<]))")
# PTX opcodes that write no register: for every other instruction its first operand is written.
PTX_NO_DEST = re.compile(
    r"^(?:st\.|red\.|bar\.|bra|ret|cp\.async|membar|fence|barrier|"
    r"mbarrier\.(?:init|arrive|expect)|wgmma\.(?:fence|commit|wait)|exit|trap|call)"
)
# SASS opcodes that write no register: for every other instruction its first register operand is written.
SASS_NO_DEST = re.compile(
    r"^(?:ST|RED|BAR|BRA|BRX|EXIT|RET|CALL|NOP|MEMBAR|DEPBAR|WARPSYNC|BSYNC|YIELD|ERRBAR|"
    r"CCTL|FENCE|JMP|JMX|KILL|BPT|SYNCS\.ARRIVE|UTMASTG|UTMACCTL|UBLKCP|ARRIVES)"
)
SASS_OPCODE = re.compile(r"^(?:@!?U?P[T\d]+ )?(\S+)")
# AMDGCN opcodes that write no named register: stores, waits, branches, barriers, and compares that set
# SCC (s_cmp) or write VCC implicitly (v_cmp..._e32 names vcc, which is a name here: it is written).
AMDGCN_NO_DEST = re.compile(
    r"^(?:s_waitcnt|s_wait_|s_endpgm|s_branch|s_cbranch|s_barrier|s_nop|s_setprio|s_sendmsg|s_cmp|s_bitcmp|"
    r"s_dcache|s_icache|s_delay_alu|s_clause|s_sleep|s_trap|s_setpc|s_set_|s_inst_prefetch|s_sethalt|"
    r"buffer_store|global_store|flat_store|scratch_store|ds_write|ds_store|buffer_wbl2|buffer_inv|buffer_gl)"
)
AMDGCN_OPCODE = re.compile(r"^\s*([a-z][a-z0-9_]*)")
# v_mov_b32_dpp v10, v4 row_shr:8   s_load_dwordx2 s[0:1], s[4:5], 0x0   s_or_b64 exec, exec, s[8:9]
_AMDGCN_NAMES = re.compile(
    r"((?<![\w.\[])[vsa]\[\d+:\d+\]|(?<![\w.])[vsa]\d+\b|\b(?:vcc|exec)(?:_lo|_hi)?\b|\bm0\b|\.L\d+\b)"
)

for _dialect in (
    Dialect(
        "python",
        "Python: a kernel's source, or the Triton a generator wrote (Helion, Inductor)",
        "#",
        source_locations,
        normalize_source,
        no_stats,
        _python_lexer,
        "source",
        suffixes=(".py",),
        label="Python",
    ),
    Dialect(
        "cuda",
        "CUDA C++ (and HIP): a kernel's source, or the source a generator wrote for nvcc or hipcc",
        "//",
        source_locations,
        normalize_source,
        no_stats,
        _cuda_lexer,
        "cuda",
        suffixes=(".cu", ".cuh"),
        label="C++",
    ),
    Dialect(
        "cuda_lines",
        "CUDA C++ a generator wrote with #line directives naming the Python lines it came from (TileLang)",
        "//",
        line_directive_locations,
        normalize_source,
        no_stats,
        _cuda_lexer,
        "cuda",
        label="C++",
    ),
    Dialect(
        "tir",
        "TIR: TVM's tensor IR as TVMScript (TileLang's kernels before and after lowering); no source positions",
        "#",
        no_locations,
        normalize_source,
        no_stats,
        _python_lexer,
        "source",
        label="TIR",
    ),
    Dialect(
        "mlir",
        "MLIR: Triton's TTIR and TTGIR, Gluon's, CuTe DSL's; loc(...) references into a #loc table",
        "//",
        mlir_locations,
        normalize_mlir,
        mlir_stats,
        lambda: _lexers().MlirLexer,
        "mlir",
        Names(_MLIR_NAMES, "ssa"),
        label="MLIR",
    ),
    Dialect(
        "llvm",
        "LLVM IR, with NVVM or AMDGPU intrinsics; !dbg metadata chains",
        ";",
        llvm_locations,
        normalize_llvm,
        llvm_stats,
        lambda: _lexers().DebugLlvmLexer,
        "llir",
        Names(re.compile(r"(%[\w.$-]+|^\d+(?=:))"), "ssa"),
        label="LLVM IR",
    ),
    Dialect(
        "ptx",
        "PTX: NVIDIA's virtual instruction set; .loc directives",
        "//",
        ptx_locations,
        normalize_ptx,
        ptx_stats,
        lambda: _lexers().GuardedPtxLexer,
        "ptx",
        Names(
            re.compile(r"(%[a-z]+\d+\b|\$L\d+\b|\$L__BB\d+_\d+)"),
            "guarded",
            no_dest=PTX_NO_DEST,
            numbered=True,
            listing=clean_ptx,
            instruction=_ptx_instruction,
        ),
        explained=True,
        label="PTX",
    ),
    Dialect(
        "sass",
        "SASS: NVIDIA's machine code as nvdisasm lists it; line comments from the cubin's DWARF",
        "//",
        sass_locations,
        normalize_sass,
        sass_stats,
        lambda: _lexers().SassLexer,
        "sass",
        Names(
            # \b(?:UR|UP|R|P|B)\d+\b or \.L_x_\d+, written to start with a character class so that the regex
            # engine skips to each candidate instead of trying every position (1.7x faster on 15k lines)
            re.compile(r"([RPBU.](?:(?<=\.)L_x_\d+|(?<=\b[RPBU])(?:(?<=U)[RP]|(?<!U))\d+\b))"),
            "physical",
            no_dest=SASS_NO_DEST,
            opcode=SASS_OPCODE,
            numbered=True,
            listing=clean_sass,
            instruction=lambda text: not text.endswith(":"),
        ),
        explained=True,
        label="SASS",
    ),
    Dialect(
        "amdgcn",
        "AMDGCN: AMD's machine code as LLVM's AMDGPU backend writes it; .loc directives",
        ";",
        amdgcn_locations,
        normalize_amdgcn,
        amdgcn_stats,
        lambda: _lexers().AmdgcnLexer,
        "amdgcn",
        Names(
            _AMDGCN_NAMES,
            "physical",
            no_dest=AMDGCN_NO_DEST,
            opcode=AMDGCN_OPCODE,
            instruction=_assembly_instruction,
        ),
        explained=True,
        label="AMDGCN",
    ),
):
    register(_dialect)
