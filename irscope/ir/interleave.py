"""A listing with its Python source lines woven in as comments (``dump --source``)."""

from __future__ import annotations

import os

from ..paths import shown_file
from ..types import Stage, Variant
from .dialects import dialect_of
from .sourcemap import SourceMap


def interleave_source(variant: Variant, stage: Stage, source_map: SourceMap | None = None) -> str:
    """``stage``'s listing with ``// square.py:22: row = tl.load(...)`` before each run of
    lines that came from one Python line; where a generator wrote the kernel, with the user's line it
    came from (``<- model.py:12``, the source map's second level)."""
    source_map = source_map or SourceMap(variant)
    python = variant.listings.get(Stage.SOURCE, "").splitlines()
    name = shown_file(variant.kernel.file)
    mark = dialect_of(stage, os.path.splitext(variant.kernel.file)[1]).comment
    out: list[str] = []
    last = None
    for i, line in enumerate(variant.listing(stage).splitlines()):
        py = source_map.source_line(stage, i)
        if py is not None and py != last and 0 < py <= len(python):
            indent = line[: len(line) - len(line.lstrip())]
            origins = source_map.origins()
            user = origins[py - 1] if py <= len(origins) else None
            mine = f"  <- {os.path.basename(user.file)}:{user.line}" if user is not None else ""
            out.append(f"{indent}{mark} {name}:{py}: {python[py - 1].strip()}{mine}")
            last = py
        out.append(line)
    return "\n".join(out) + "\n"
