"""Capture: a kernel and a config in, every stage of its compilation out."""

from ..arch import Target
from .pipeline import Captured, build_variant, capture, capture_many, choose_target, derive, with_sass

__all__ = ["Captured", "Target", "build_variant", "capture", "capture_many", "choose_target", "derive", "with_sass"]
