"""Syntax highlighting for every stage, as (style, text) runs per line.

pygments has PTX and LLVM lexers but none for MLIR, so TTIR/TTGIR get one here,
and so does SASS; the PTX lexer is extended to read predicate guards (``@%p1``),
which it otherwise marks as errors. Lines are highlighted one at a time, on
demand: IR is line-oriented, and a 10,000-line listing must open instantly.
"""

from __future__ import annotations

import functools
import importlib

from pygments.lexer import Lexer, RegexLexer, inherit
from pygments.lexers import LlvmLexer, PtxLexer, PythonLexer
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Token,
    Whitespace,
    _TokenType,
)

from ..stages import Stage


class MlirLexer(RegexLexer):
    """TTIR / TTGIR (MLIR with the tt, ttg, ttng, arith, scf, math and cf dialects)."""

    name = "MLIR"
    aliases = ["mlir", "ttir", "ttgir"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*$", Comment.Single),
            (r"#loc\d*\s*=.*$", Comment.Special),  # the location table: noise, shown dim
            (r"\bloc\((?:[^()]|\([^()]*\))*\)", Comment.Special),
            (r"%[\w$.#:]+", Name.Variable),
            (r"\^bb\d+", Name.Label),
            (r"@[\w$.]+", Name.Function),
            (r"#[a-zA-Z_][\w.]*", Name.Decorator),  # attribute aliases: #blocked, #mma, #shared
            (r"\b(?:tt|ttg|ttng|triton_gpu|arith|scf|math|cf|gpu|nvvm|llvm|amdgpu|tensor|ub|proton)\.[\w.]+", Keyword),
            (r"\b(?:module|func|return|attributes|to|step|iter_args|dense|true|false)\b", Keyword.Reserved),
            (
                r"!tt\.ptr|\b(?:tensor|memdesc|i1|i8|i16|i32|i64|f16|bf16|f32|f64|f8E4M3FN|f8E5M2|index|vector)\b",
                Keyword.Type,
            ),
            (r'"(?:[^"\\]|\\.)*"', String),
            (r"0x[0-9A-Fa-f]+|-?\d+\.\d*(?:[eE][-+]?\d+)?|-?\d+", Number),
            (r"[=:,<>\-]+|->", Operator),
            (r"[(){}\[\]]", Punctuation),
            (r"\w+", Text),
            (r".", Text),
        ]
    }


class SassLexer(RegexLexer):
    """SASS as irscope lists it (nvdisasm style)."""

    name = "SASS"
    aliases = ["sass"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//##.*$", Comment.Special),
            (r"//.*$", Comment.Single),
            (r"/\*[0-9a-f]+\*/", Comment.Multiline),
            (r"^\.L_x_\d+:|^\w+:", Name.Label),
            (r"`?\(\.L_x_\d+\)|\.L_x_\d+", Name.Label),
            (r"@!?U?P[\dT]+", Name.Decorator),
            (r"\b[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*(?=\s|;)", Keyword),
            (r"\b(?:U?R\d+|RZ|URZ|U?P\d|PT|UPT|B\d+|SR_[\w.]+)\b", Name.Variable),
            (r"\bc\[0x[0-9a-f]+\]\[0x[0-9a-f]+\]", Name.Constant),
            (r"\bdesc\b|\bgdesc\b", Name.Builtin),
            (r"-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", Number),
            (r"[\[\](),;|!~\-+]", Punctuation),
            (r"[\w.]+", Text),
            (r".", Text),
        ]
    }


class AmdgcnLexer(RegexLexer):
    """AMDGCN assembly as LLVM's AMDGPU backend prints it."""

    name = "AMDGCN"
    aliases = ["amdgcn"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r";.*$", Comment.Single),
            (r"\.loc\b.*?(?=;|$)", Comment.Special),  # a source location: noise, shown dim
            (r"^[.\w$]+:", Name.Label),
            (r"\.[a-z_][\w.]*", Keyword.Pseudo),  # a directive: .amdhsa_next_free_vgpr, .p2align
            (r"\b[a-z][a-z0-9]*_[a-z0-9_]+(?=\s|$)", Keyword),  # an opcode: v_mfma_f32_32x32x8_f16
            (r"\b(?:[vsa]\[\d+:\d+\]|[vsa]\d+|vcc(?:_lo|_hi)?|exec(?:_lo|_hi)?|m0|scc|off)\b", Name.Variable),
            (r'"(?:[^"\\]|\\.)*"', String),
            (r"-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?", Number),
            (r"[\[\](),:@+\-]", Punctuation),
            (r"[\w.$]+", Text),
            (r".", Text),
        ]
    }


class GuardedPtxLexer(PtxLexer):
    """pygments' PTX lexer, plus predicate guards (``@%p1``, ``@!%p1``) and negative immediates."""

    tokens = {
        "root": [
            (r"@!?%\w+", Name.Decorator),
            (r"-\d+\b", Number),
            inherit,
        ]
    }


class DebugLlvmLexer(LlvmLexer):
    """pygments' LLVM lexer, plus the debug metadata Triton's LLIR is full of."""

    tokens = {
        "root": [
            (r"^!\d+\s*=.*$", Comment.Special),
            (r"!dbg\s+!\d+", Comment.Special),
            inherit,
        ]
    }


# Token type -> Rich style: a dark-terminal palette that leaves instructions brightest.
STYLES = [
    (Comment.Special, "grey42"),
    (Comment, "grey50 italic"),
    (Keyword.Type, "cyan"),
    (Keyword.Pseudo, "cyan"),
    (Keyword, "bold #82aaff"),
    (Name.Decorator, "#c792ea"),
    (Name.Label, "#ffcb6b"),
    (Name.Function, "#ffcb6b"),
    (Name.Builtin, "#89ddff"),
    (Name.Constant, "#f78c6c"),
    (Name.Variable, "#d6deeb"),
    (Name, "#d6deeb"),
    (String, "#c3e88d"),
    (Number, "#f78c6c"),
    (Operator, "#89ddff"),
    (Punctuation, "grey70"),
    (Error, "red"),
]


@functools.cache
def _style(token: _TokenType) -> str:
    t: _TokenType | None = token
    while t is not None:
        for kind, style in STYLES:
            if t is kind:
                return style
        t = t.parent if t is not Token else None
    return ""


# Each stage's lexer.
LEXERS: dict[Stage, type[Lexer]] = {
    Stage.SOURCE: PythonLexer,
    Stage.TTIR: MlirLexer,
    Stage.TTGIR: MlirLexer,
    Stage.LLIR: DebugLlvmLexer,
    Stage.PTX: GuardedPtxLexer,
    Stage.SASS: SassLexer,
    Stage.AMDGCN: AmdgcnLexer,
}
# A kernel's source in another language than the source stage's own (Python): by file suffix, the
# pygments module and lexer, imported when such a source is first shown (most sessions have none).
SOURCE_LEXERS: dict[str, tuple[str, str]] = {
    ".cu": ("pygments.lexers.c_like", "CudaLexer"),
    ".cuh": ("pygments.lexers.c_like", "CudaLexer"),
}


@functools.lru_cache(maxsize=16)
def _lexer(stage: Stage, suffix: str = ""):
    if stage is Stage.SOURCE and suffix in SOURCE_LEXERS:
        module, name = SOURCE_LEXERS[suffix]
        lexer: type[Lexer] = getattr(importlib.import_module(module), name)
    else:
        lexer = LEXERS[stage]
    _BUILT.add((stage, suffix))
    return lexer(stripnl=False, ensurenl=False)


_BUILT: set[tuple[Stage, str]] = set()


def lexer_built(stage: Stage, suffix: str = "") -> bool:
    """Whether ``stage``'s lexer is built: the first costs compiling its regular expressions (pygments'
    Python lexer: 0.05 s, a twentieth of the TUI's first paint of a 5,000-variant session)."""
    return (stage, suffix) in _BUILT


def build_lexer(stage: Stage, suffix: str = "") -> None:
    """Build ``stage``'s lexer now (``highlight_line`` builds it when first used)."""
    _lexer(stage, suffix)


def highlight_line(stage: Stage, line: str, suffix: str = "") -> list[tuple[str, str]]:
    """``[(style, text), ...]`` covering ``line`` exactly; ``suffix``: the source file's (``.cu``), for its lexer."""
    if not line:
        return []
    out: list[tuple[str, str]] = []
    for token, value in _lexer(stage, suffix).get_tokens(line):
        if not value:
            continue
        style = _style(token)
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + value)
        else:
            out.append((style, value))
    return out
