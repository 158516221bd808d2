"""The map between a kernel's source lines and the lines of every stage, both ways.

Built lazily per stage from the listings themselves (their own location records),
so a variant read back from a session or sample maps exactly as a fresh one.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from ..types import SourceLoc, Stage, Variant
from .locations import LineLocs, locations


class SourceMap:
    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.file = variant.kernel.file
        self._locs: dict[Stage, LineLocs] = {}
        self._reverse: dict[Stage, dict[tuple[str, int], list[int]]] = {}
        self._own: dict[Stage, list[int | None]] = {}

    def locs(self, stage: Stage) -> LineLocs:
        """One location (or None) per line of ``stage``'s listing."""
        if stage not in self._locs:
            text = self.variant.listings.get(stage, "")
            self._locs[stage] = locations(stage, text, self.file)
        return self._locs[stage]

    def loc(self, stage: Stage, index: int) -> SourceLoc | None:
        """Where line ``index`` (0-based) of ``stage`` came from, innermost frame first."""
        locs = self.locs(stage)
        return locs[index] if 0 <= index < len(locs) else None

    def source_line(self, stage: Stage, index: int) -> int | None:
        """The line of the kernel's own file that line ``index`` of ``stage`` belongs to.

        Code inlined from a library function (``tl.max``) belongs to the kernel line
        that called it.
        """
        own = self.own_lines(stage)
        return own[index] if 0 <= index < len(own) else None

    def own_lines(self, stage: Stage) -> list[int | None]:
        """``source_line`` for every line of ``stage`` at once."""
        if stage not in self._own:
            if stage in self._locs:
                self._own[stage] = _own_lines(self._locs[stage], self.file)
            else:  # kept across SourceMaps of the same listing (each diff makes its own)
                self._own[stage] = _own_lines_of(stage, self.variant.listings.get(stage, ""), self.file)
        return self._own[stage]

    def lines_for(self, stage: Stage, line: int, file: str | None = None) -> list[int]:
        """Every line (0-based) of ``stage`` that came from ``file:line`` (default: the kernel file),
        directly or through a call made on that line."""
        return self._reverse_index(stage).get((file or self.file, line), [])

    def _reverse_index(self, stage: Stage) -> dict[tuple[str, int], list[int]]:
        if stage not in self._reverse:
            index: dict[tuple[str, int], list[int]] = defaultdict(list)
            for i, loc in enumerate(self.locs(stage)):
                if loc is None:
                    continue
                seen = set()
                for frame in (loc, *loc.callers):
                    key = (frame.file, frame.line)
                    if key not in seen:
                        seen.add(key)
                        index[key].append(i)
            self._reverse[stage] = dict(index)
        return self._reverse[stage]


def _own_lines(locs: LineLocs, file: str) -> list[int | None]:
    # A listing's lines share a few location objects (each line-info comment's): each is resolved once,
    # found again by identity (a SourceLoc's own hash is Python code, run per line).
    own: dict[int, int | None] = {id(None): None}
    for loc in {id(loc): loc for loc in locs}.values():
        if loc is not None:
            found = loc.in_file(file)
            own[id(loc)] = found.line if found is not None else None
    return list(map(own.__getitem__, map(id, locs)))


@lru_cache(maxsize=16)
def _own_lines_of(stage: Stage, text: str, file: str) -> list[int | None]:
    return _own_lines(locations(stage, text, file), file)
