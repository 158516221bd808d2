"""Diff: what really changed between two variants, in lines and in numbers.

Diffing (``diffing/``): ``canonical.py`` writes two listings in one vocabulary (lines aligned as
written, then by shape; names paired by their roles, SASS registers versioned at each write,
``--ignore`` classes as coarser texts); ``algorithm.py`` is the patience alignment it and the line
diff use (``realign`` for the re-pairing rounds, ``settle`` for the final alignment), with regions
without anchors aligned by the fewest edits in ``exact.py`` (bit-parallel edit distance and LCS);
``floor.py`` the floors a diff's size is measured against; ``core.py`` builds the hunks (moves
marked, reorders within a block as moves under ``--ignore order``) and the per-Python-line counts,
access widths and masks; ``render.py`` the summary, unified and side-by-side text with the changed tokens of
aligned lines; ``compare.py`` the N-implementation table of ``irscope compare``. What a diff derives
from one listing (tokens, ``ir/stats.stage_stats``, source lines) is kept in small LRU caches keyed
by the listing's text, shared and never changed by callers, so diffing a variant against each
neighbour parses it once. Listings run to 20k lines, so per-line work is done by C-level calls
mapped over all lines (one ``re.split`` of a whole PTX/SASS listing, ``map``/``compress`` over
lines) rather than Python loops, and a diff pauses the cyclic collector and moves its survivors to
the oldest generation (``core._collector_paused``). One implementation, in Python: the speed comes
from the algorithm, not from a second language.
"""

from .core import Hunk, LineChange, VariantDiff, diff_variants

__all__ = ["Hunk", "LineChange", "VariantDiff", "diff_variants"]
