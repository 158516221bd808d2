"""Messages the background workers post to the app."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from ..records import Measurement
from ..session.store import Entry
from ..types import Variant


@dataclass
class VariantReady(Message):
    index: int
    variant: Variant
    entry: Entry | None


@dataclass
class Measured(Message):
    index: int
    measurement: Measurement


@dataclass
class Progress(Message):
    phase: str  # "capturing" or "measuring"
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Progress)


@dataclass
class BackgroundDone(Message):
    cancelled: bool
    error: str | None = None
