"""pygments lexers for the dialects pygments lacks or reads wrongly.

pygments has PTX and LLVM lexers but none for MLIR, SASS or AMDGCN, so those get one here; the PTX
lexer is extended to read predicate guards (``@%p1``), which it otherwise marks as errors, and the
LLVM one to dim the debug metadata Triton's LLIR is full of. Which dialect uses which: ``dialects.py``.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, inherit
from pygments.lexers import LlvmLexer, PtxLexer
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)


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
