"""Capture: a kernel and a config in, every stage of its compilation out.

The names below load ``pipeline`` on first use: a compile worker imports ``capturing.worker`` alone, and
the pipeline (the cache, nvdisasm's SASS, the session's writers) is a fifth of its start-up it never uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..arch import Target
    from .pipeline import Captured, build_variant, capture, capture_many, choose_target, derive, with_sass

__all__ = ["Captured", "Target", "build_variant", "capture", "capture_many", "choose_target", "derive", "with_sass"]


def __getattr__(name: str) -> Any:
    if name == "Target":
        from ..arch import Target

        return Target
    if name in __all__:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
