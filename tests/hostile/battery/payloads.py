"""The crafted values: each kind of damage a field of a file can take, and payloads that leave a canary if run.

A payload names its canary file by absolute path, so one that ran anywhere (irscope's process, a
worker, nvcc's shell, an imported file) shows up in the case's ``canary/`` folder.
"""

from __future__ import annotations

import pickle
from pathlib import Path


def shell(canary: Path) -> str:
    """Runs in any shell that sees it: nvcc hands ``-D`` values to its sub-tools through one."""
    return f"$(touch {canary})"


def backticks(canary: Path) -> str:
    return f"`touch {canary}`"


def python(canary: Path) -> str:
    """An expression that runs if evaluated."""
    return f"__import__('pathlib').Path({str(canary)!r}).touch()"


def module(canary: Path) -> str:
    """A Python file that runs at import."""
    return f"import pathlib\npathlib.Path({str(canary)!r}).touch()\n"


class _Touch:
    def __init__(self, canary: Path) -> None:
        self.canary = str(canary)

    def __reduce__(self):
        import pathlib

        return (pathlib.Path.touch, (pathlib.Path(self.canary),))


def pickled(canary: Path) -> bytes:
    """Bytes that create the canary when unpickled."""
    return pickle.dumps(_Touch(canary))


CODE = {"shell $(...)": shell, "backticks": backticks, "python expression": python}


def values(canary: Path, outside: Path, depth_from_outside: str) -> dict[str, object]:
    """Every kind of bad value a JSON field can take; ``depth_from_outside``: ``../`` enough to leave the session."""
    return {
        "a list": [1, [2]],
        "an object": {"a": {"b": 1}},
        "a number": 7,
        "null": None,
        "true": True,
        "a huge integer": 10**40,
        "NaN": float("nan"),
        "Infinity": float("-inf"),
        "negative": -1,
        "empty": "",
        "a path up and out": f"{depth_from_outside}outside/secret.txt",
        "an absolute path": str(outside / "secret.txt"),
        "terminal controls": "\x1b]0;pwned\x07\x1b[2J\x1b[31mred",
        "HTML that opens a comment": "<!--<script>alert(1)</script>",
        "a NUL byte": "ok\x00evil",
        "a 1 MB string": "A" * 1_000_000,
        **{name: make(canary) for name, make in CODE.items()},
    }


def deep(levels: int = 100_000) -> str:
    """JSON nested deeper than any recursive reader's stack."""
    return "[" * levels + "]" * levels


# Whole-file damage: name -> the file's new bytes from its old ones.
CONTENT = {
    "empty": lambda old: b"",
    "truncated": lambda old: old[: len(old) // 2],
    "invalid UTF-8": lambda old: old[:40] + b"\xff\xfe\xc3\x28" + old[40:],
    "NUL bytes": lambda old: old[:40] + b"\x00" * 64 + old[40:],
    "deep nesting": lambda old: deep().encode(),
    "a JSON list": lambda old: b"[1, 2, 3]",
    "duplicate keys": lambda old: (
        b'{"format": 1, "format": {"x": [1]}' + old.lstrip()[1:] if old.lstrip()[:1] == b"{" else old + old
    ),
}


# Tried on every field: what escapes, runs or reaches the terminal. The other kinds take turns over the fields,
# so each field meets some of them and each kind meets several fields, at a quarter of the cost of all of them.
ALWAYS = ("a path up and out", "shell $(...)", "terminal controls")


def kinds_for(field_number: int, names: list[str], every: int = 4) -> list[str]:
    """The value kinds the ``field_number``-th field of a file is tried with."""
    rotating = [n for n in names if n not in ALWAYS]
    return [n for n in names if n in ALWAYS] + rotating[field_number % every :: every]
