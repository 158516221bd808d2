"""Diff: what really changed between two variants, in lines and in numbers."""

from .core import Hunk, LineChange, VariantDiff, diff_variants

__all__ = ["Hunk", "LineChange", "VariantDiff", "diff_variants"]
