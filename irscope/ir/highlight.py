"""Syntax highlighting for every stage, as (style, text) runs per line.

A stage is highlighted by its dialect's lexer (``dialects.py``; the source stage by its file's
language). Lines are highlighted one at a time, on demand: IR is line-oriented, and a 10,000-line
listing must open instantly.
"""

from __future__ import annotations

import functools

from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Token,
    _TokenType,
)

from ..stages import Stage
from .dialects import dialect_of

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


@functools.lru_cache(maxsize=16)
def _lexer(stage: Stage, suffix: str = ""):
    lexer = dialect_of(stage, suffix).lexer()
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
