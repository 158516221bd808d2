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

from ..types import Variant

# /home/alice/.venv/lib/python3.12/site-packages/triton/language/core.py   /Users/bob/x.py   /root/k.py
HOMES = re.compile(r"(?<![\w.~-])(?:/home/[^/\s\"'<>]+|/Users/[^/\s\"'<>]+|/root)(?=/|[\s\"'<>:]|$)")


class SharedPaths:
    """Rewrites text for a shared report; ``keep``: leave every path as it is (``--absolute-paths``)."""

    def __init__(self, kernel_file: str, keep: bool = False) -> None:
        self.keep = keep
        folders = set()
        kernel = PurePosixPath(kernel_file)
        if kernel.is_absolute() and len(kernel.parent.parts) > 1:  # a kernel at / has no folder worth hiding
            folders = {str(kernel.parent), os.path.realpath(kernel.parent)}
        home = str(Path.home())
        self.home = home if home not in ("/", "") else None
        alternatives = "|".join(re.escape(f) for f in sorted(folders, key=len, reverse=True))
        # the folder and the separator after it; or the folder alone, ended by a quote, space or the text's end
        self.folder = re.compile(rf"(?<![\w.~-])(?:{alternatives})(?:/|(?=[\s\"'<>:,)]|$))") if folders else None

    def __call__(self, text: str) -> str:
        if self.keep:
            return text
        if self.folder is not None:
            text = self.folder.sub("", text)
        if self.home is not None:
            text = text.replace(self.home + "/", "~/")
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

    def variant(self, v: Variant) -> Variant:
        """``v`` with its kernel file and listings rewritten alike, so locations still find the kernel's lines."""
        if self.keep:
            return v
        return replace(v, kernel=replace(v.kernel, file=self(v.kernel.file)),
                       listings={stage: self(text) for stage, text in v.listings.items()},
                       stage_errors={stage: self(text) for stage, text in v.stage_errors.items()})
