"""Capture: a kernel and a config in, every stage of its compilation out."""

from ..arch import Target
from .pipeline import Captured, capture, capture_many, choose_target

__all__ = ["Captured", "Target", "capture", "capture_many", "choose_target"]
