"""The map between a kernel's source lines and the lines of every stage, both ways.

Built lazily per stage from the listings themselves (their own location records),
so a variant read back from a session or sample maps exactly as a fresh one.

Two levels where a generator wrote the kernel's source (``Variant.generated_by``): a stage's line
maps to its line of the generated file as any kernel's does, and that line to the user's own file
through the comments the generator left above it (Inductor's ``# File: model.py:12 in forward,
code: ...``). ``ORIGINS`` holds one reader of such comments per generator; ``SourceMap.user_loc``
composes the two. Where the generator's output is a stage of its own (Helion's Triton: the kernel's
source is then the user's Helion file), every later stage maps through that stage's comments
(``# src[matmul.py:12]: ...``) to the kernel's own lines, so ``source_line`` is already the user's.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..types import SourceLoc, Stage, Variant
from .dialects import locations
from .locations import LineLocs

# # File: /work/model.py:12 in forward, code: y = x * 2      (Inductor, above the code made from that line)
INDUCTOR_ORIGIN = re.compile(r"^\s*#\s*File:\s*(?P<file>\S(?:.*\S)?):(?P<line>\d+) in \S")
#     # src[matmul.py:13]: acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])   (Helion; also
#     # src[matmul.py:10-14]: ... for a statement spanning lines): a file's base name, its first line
HELION_ORIGIN = re.compile(r"^\s*#\s*src\[(?P<file>[^\]:]+):(?P<line>\d+)(?:-\d+)?\]:")
# A line that starts a new definition: an origin comment above it no longer applies below it.
DEFINITION = re.compile(r"^\s*(?:@|def |class |async def )")


def comment_origins(text: str, pattern: re.Pattern[str], first_of_run: bool = False) -> list[SourceLoc | None]:
    """For each line of a generated ``text``, the user's location the nearest origin comment above it names
    (``pattern``: groups ``file`` and ``line``); None before the first, and again from a new definition on.

    ``first_of_run``: of comments on consecutive lines, the first names the code below them (Helion lists a
    loop's header, then the first line of its body, above the loop it makes of them)."""
    out: list[SourceLoc | None] = []
    current: SourceLoc | None = None
    in_run = False
    for line in text.splitlines():
        m = pattern.match(line)
        if m is not None:
            if not (first_of_run and in_run):
                current = SourceLoc(m["file"], int(m["line"]), 0)
            in_run = True
            out.append(SourceLoc(m["file"], int(m["line"]), 0))
            continue
        in_run = False
        if DEFINITION.match(line):
            current = None
        out.append(current)
    return out


@dataclass(frozen=True)
class Origins:
    """A generator's origin comments: ``read`` gives the user's location of each line of its text.

    ``stage``: the stage holding that text, where it is one of its own (Helion's ``helion_triton``); the
    kernel's source is then the user's own file. "": the kernel's source is the generated text (Inductor's)."""

    read: Callable[[str], list[SourceLoc | None]]
    stage: str = ""


# Each generator's reader of its origin comments, by ``Variant.generated_by``.
ORIGINS: dict[str, Origins] = {
    "inductor": Origins(lambda text: comment_origins(text, INDUCTOR_ORIGIN)),
    "helion": Origins(lambda text: comment_origins(text, HELION_ORIGIN, first_of_run=True), stage="helion_triton"),
}


class SourceMap:
    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.file = variant.kernel.file
        self._locs: dict[Stage, LineLocs] = {}
        self._reverse: dict[Stage, dict[tuple[str, int], list[int]]] = {}
        self._own: dict[Stage, list[int | None]] = {}
        self._origins: list[SourceLoc | None] | None = None
        self._listed: dict[Stage, str] = {}
        self._through: list[int | None] | None = None
        origins = ORIGINS.get(variant.generated_by)
        # The stage a generator's text is, where it is one of its own: every other stage maps through it.
        self._generated = origins.stage if origins is not None and origins.stage else ""

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
        if stage not in self._own and self._generated and stage != Stage.SOURCE:
            self._own[stage] = self._through_generated(stage)
        if stage not in self._own:
            if stage in self._locs:
                self._own[stage] = _own_lines(self._locs[stage], self.listed_file(stage))
            else:  # kept across SourceMaps of the same listing (each diff makes its own)
                self._own[stage] = _own_lines_of(stage, self.variant.listings.get(stage, ""), self.file)
        return self._own[stage]

    def origins(self) -> list[SourceLoc | None]:
        """The user's location of each line of the kernel's source (the second level), where a generator wrote it
        and left origin comments; empty otherwise (also where the generated text is a stage of its own: the
        kernel's source is then the user's)."""
        if self._origins is None:
            origins = ORIGINS.get(self.variant.generated_by)
            own = origins is not None and not origins.stage
            self._origins = origins.read(self.variant.listings.get(Stage.SOURCE, "")) if own and origins else []
        return self._origins

    def _kernel_lines_of_generated(self) -> list[int | None]:
        """For each line of the generated stage, the kernel file's line its origin comments name (a comment
        names the file by its base name, as Helion writes it)."""
        if self._through is None:
            name = self.file.rsplit("/", 1)[-1]
            read = ORIGINS[self.variant.generated_by].read
            found = read(self.variant.listings.get(Stage(self._generated), ""))
            self._through = [
                loc.line if loc is not None and loc.file.rsplit("/", 1)[-1] == name else None for loc in found
            ]
        return self._through

    def _through_generated(self, stage: Stage) -> list[int | None]:
        """``stage``'s lines -> lines of the generated stage (the file its locations name as the kernel's:
        the one holding their outermost frames) -> the kernel's own lines."""
        through = self._kernel_lines_of_generated()
        if stage == self._generated:
            return list(through)
        locs = self.locs(stage)
        file = _outermost_file(locs)
        generated = _own_lines(locs, file) if file else [None] * len(locs)
        return [through[g - 1] if g is not None and 0 < g <= len(through) else None for g in generated]

    def user_loc(self, stage: Stage, index: int) -> SourceLoc | None:
        """Where line ``index`` of ``stage`` came from in the user's own file: through the generated source's
        origin comments where a generator wrote the kernel (``Variant.generated_by``), else its kernel line."""
        line = self.source_line(stage, index)
        if line is None:
            return None
        if not self.variant.generated_by or self._generated:
            return SourceLoc(self.file, line, 0)
        origins = self.origins()
        return origins[line - 1] if 0 < line <= len(origins) else None

    def lines_for(self, stage: Stage, line: int, file: str | None = None) -> list[int]:
        """Every line (0-based) of ``stage`` that came from ``file:line`` (default: the kernel file),
        directly or through a call made on that line."""
        if self._generated and stage != Stage.SOURCE:
            if file not in (None, self.file):
                return []
            return [i for i, own in enumerate(self.own_lines(stage)) if own == line]
        return self._reverse_index(stage).get((file or self.listed_file(stage), line), [])

    def listed_file(self, stage: Stage) -> str:
        """The kernel's file as ``stage``'s listing names it: the kernel file, or the one other path it was
        compiled at (see ``_file_as_listed``)."""
        if stage not in self._listed:  # asked once per source line by lines_for: the listing is read once
            self._listed[stage] = _file_as_listed(self.locs(stage), self.file)
        return self._listed[stage]

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


def _file_as_listed(locs: LineLocs, file: str) -> str:
    """``file``, or the path a listing names for it when the listing was compiled at another path.

    Triton's cache key holds a kernel's text and first line but not its file's path, so a program run in a
    second folder gets the listing compiled in the first, whose locations name the first folder's file
    (seen with `irscope run` on a warm ~/.triton/cache). The code is the same, line for line; its lines are
    this file's. Taken only when the listing never names ``file`` and exactly one file of the same name
    holds the outermost frame of its locations (the kernel's own body); otherwise nothing maps, as before."""
    unique = [loc for loc in {id(loc): loc for loc in locs}.values() if loc is not None]
    if any(frame.file == file for loc in unique for frame in (loc, *loc.callers)):
        return file
    name = file.rsplit("/", 1)[-1]
    outermost = {(loc.callers[-1] if loc.callers else loc).file for loc in unique}
    same_name = [f for f in outermost if f.rsplit("/", 1)[-1] == name]
    return same_name[0] if len(same_name) == 1 else file


def _outermost_file(locs: LineLocs) -> str:
    """The file most of a listing's outermost frames name: the kernel's own (library code it calls is inner)."""
    counts = Counter((loc.callers[-1] if loc.callers else loc).file for loc in locs if loc is not None)
    return counts.most_common(1)[0][0] if counts else ""


@lru_cache(maxsize=16)
def _own_lines_of(stage: Stage, text: str, file: str) -> list[int | None]:
    locs = locations(stage, text, file)
    return _own_lines(locs, _file_as_listed(locs, file))
