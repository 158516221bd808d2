"""GPU architectures: the one place that reads ``sm_90`` and says where a compile is aimed."""

from __future__ import annotations

import enum
import functools
import importlib.util
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import ParameterError

DEFAULT_CAPABILITY = 90  # what a machine without a GPU compiles for

# sm_90, sm90a, cuda:90, 90
ARCH = re.compile(r"^(?:sm_?|cuda:)?(\d{2,3})a?$")

# `ptxas --help`, under --gpu-name:
#         'lto_80','lto_86','lto_87','lto_89','lto_90','lto_90a','sm_100','sm_100a',
PTXAS_SM = re.compile(r"'sm_(\d+)[a-z]?'")

# What Triton 3.6's ptxas (CUDA 12.8) and ptxas-blackwell (12.9) compile for: used only
# when neither can be asked, so that a missing tool never refuses an arch that would work.
FALLBACK_CAPABILITIES = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121)
BLACKWELL = 100  # from here on Triton assembles with ptxas-blackwell (triton/backends/nvidia/compiler.py)


def capability_of(arch: str | int) -> int | None:
    """``"sm_90"``, ``"sm90a"``, ``90`` -> 90 (None: not an arch), whatever the installed compiler targets."""
    m = ARCH.match(str(arch).strip().lower())
    return int(m.group(1)) if m else None


def parse_arch(arch: str | int) -> int:
    """``"sm_90"``, ``"sm90a"``, ``90`` -> 90, for an arch the installed compiler can target."""
    capability = capability_of(arch)
    if capability is None or capability not in supported_capabilities():
        # LLVM would only warn ("not a recognized processor") and ptxas fail much later.
        raise ParameterError(
            f"unknown arch {arch!r}; the installed Triton compiles for "
            f"{', '.join(arch_name(c) for c in supported_capabilities())}"
        )
    return capability


@functools.cache
def supported_capabilities() -> tuple[int, ...]:
    """Every arch Triton's ptxas accepts, asked once per process; a fixed table if it cannot be asked."""
    tools = _triton_bin()
    if tools is None:
        return FALLBACK_CAPABILITIES
    ptxas = _ptxas_archs("TRITON_PTXAS_PATH", tools / "ptxas")
    blackwell = _ptxas_archs("TRITON_PTXAS_BLACKWELL_PATH", tools / "ptxas-blackwell")
    if blackwell is None:  # a Triton that assembles everything with one ptxas
        found = ptxas or set()
    else:
        found = {c for c in ptxas or () if c < BLACKWELL} | {c for c in blackwell if c >= BLACKWELL}
    return tuple(sorted(found)) or FALLBACK_CAPABILITIES


def _triton_bin() -> Path | None:
    # Found without importing triton: the base layer must not, and `irscope --help` should not pay for it.
    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "backends" / "nvidia" / "bin"


def _ptxas_archs(env: str, bundled: Path) -> set[int] | None:
    """The sm_ archs one ptxas lists in its --help; the one Triton would run, as triton.knobs picks it."""
    for path in filter(None, (os.environ.get(env), str(bundled))):
        try:
            proc = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        found = {int(n) for n in PTXAS_SM.findall(proc.stdout)}
        if found:
            return found
    return None


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
