"""A report is written for others: the author's absolute paths (home folder, user name) stay out of it.

Compilers write the kernel file's absolute path into every stage: TTIR's ``loc("/home/alice/k.py":6:0)``,
LLVM's ``directory: "/home/alice"``, PTX's ``.file 1 "/home/alice/k.py"``, SASS's ``//## File "/home/alice/k.py"``.
In a shared report a path under the kernel's folder is written relative to it (the folder itself is ``""``,
as LLVM writes a file with no directory, so the stages' locations still name the kernel file), and any
other path under a home folder starts ``~``.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from ..diffing import Hunk, VariantDiff
from ..paths import shown_file
from ..types import Variant

END = r"(?=[\s\"'<>:,)]|$)"  # where a path ends in a listing: a quote, a space, a colon before a line number
START = r"(?<![\w.~/-])"  # where a path starts, not inside a longer one
# /home/alice/.venv/lib/python3.12/site-packages/triton/language/core.py   /Users/bob/x.py   /root/k.py
HOMES = re.compile(rf"{START}(?:/home/[^/\s\"'<>]+|/Users/[^/\s\"'<>]+|/root)(?=/|{END})")


def _starting(folders: set[str], after: str) -> re.Pattern[str] | None:
    """Any of ``folders`` where a path starts, longest first, followed by ``after``."""
    if not folders:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(folders, key=len, reverse=True))
    return re.compile(rf"{START}(?:{alternatives}){after}")


class SharedPaths:
    """Rewrites text for a shared report; ``keep``: leave every path as it is (``--absolute-paths``)."""

    def __init__(self, kernel_file: str, keep: bool = False) -> None:
        self.keep = keep
        folders = set()
        kernel = PurePosixPath(kernel_file)
        if kernel.is_absolute() and len(kernel.parent.parts) > 1:  # a kernel at / has no folder worth hiding
            folders = {str(kernel.parent), os.path.realpath(kernel.parent)}
        self.folder = _starting(folders, rf"(?:/|{END})")  # the separator after the folder goes with it
        home = str(Path.home())
        self.home = _starting({home} if len(Path(home).parts) > 1 else set(), rf"(?=/|{END})")

    def file_label(self, kernel_file: str) -> str:
        """The kernel's file as the page names it: a notebook cell as the cell (``In [3]``), else its path."""
        cell = shown_file(kernel_file)
        return cell if cell != os.path.basename(kernel_file) else self(kernel_file)

    def __call__(self, text: str) -> str:
        if self.keep:
            return text
        if self.folder is not None:
            text = self.folder.sub("", text)
        if self.home is not None:
            text = self.home.sub("~", text)
        return HOMES.sub("~", text)

    def data(self, value: Any) -> Any:
        """Every string in a JSON-shaped value, rewritten."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value

    def diff(self, d: VariantDiff) -> VariantDiff:
        """``d`` with both variants and every line of its hunks rewritten, before anything is escaped: the
        page's markup is never rewritten (a kernel folder named ``/td><td ...`` would take its tags apart)."""
        if self.keep:
            return d
        hunks = [
            Hunk(
                h.tag,
                [line._replace(text=self(line.text)) for line in h.a],
                [line._replace(text=self(line.text)) for line in h.b],
            )
            for h in d.hunks
        ]
        return replace(d, a=self.variant(d.a), b=self.variant(d.b), hunks=hunks)

    def variant(self, v: Variant) -> Variant:
        """``v`` with its kernel file and listings rewritten alike, so locations still find the kernel's lines."""
        if self.keep:
            return v
        return replace(
            v,
            kernel=replace(v.kernel, file=self(v.kernel.file)),
            listings={stage: self(text) for stage, text in v.listings.items()},
            stage_errors={stage: self(text) for stage, text in v.stage_errors.items()},
        )
