"""GPU architectures: the one place that reads ``sm_90`` and says where a compile is aimed."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from .errors import ParameterError

DEFAULT_CAPABILITY = 90  # what a machine without a GPU compiles for

# sm_90, sm90a, cuda:90, 90
ARCH = re.compile(r"^(?:sm_?|cuda:)?(\d{2,3})a?$")


def parse_arch(arch: str | int) -> int:
    """``"sm_90"``, ``"sm90a"``, ``90`` -> 90."""
    m = ARCH.match(str(arch).strip().lower())
    if not m:
        raise ParameterError(f"unknown arch {arch!r}; expected sm_80, sm_86, sm_89, sm_90, sm_100, ...")
    return int(m.group(1))


def arch_name(capability: int) -> str:
    return f"sm_{capability}"


def normalise_arch(arch: str | int | None) -> str | None:
    """``"sm90a"`` -> ``"sm_90"``; None stays None."""
    return None if arch is None else arch_name(parse_arch(arch))


class CaptureMode(str, enum.Enum):
    """How the IR was produced."""

    JIT = "jit"  # by the frontend's JIT on a GPU, for real tensors: exactly what runs
    AOT = "aot"  # ahead of time for a named arch, with the JIT's specialization


@dataclass(frozen=True)
class Target:
    """Which GPU a compile is for, and whether it goes through the JIT on this machine's GPU."""

    capability: int
    mode: CaptureMode

    @property
    def arch(self) -> str:
        return arch_name(self.capability)
