"""GPU architectures: the one place that reads ``sm_90`` or ``gfx942`` and says where a compile is aimed.

NVIDIA's archs are compute capabilities, asked of the installed ptxas; AMD's are LLVM processor
names, a fixed table of those Triton's HIP backend targets (it compiles ahead of time for them with
no ROCm and no GPU: LLVM and lld are in Triton's wheel)."""

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

# gfx942, GFX90A, amdgcn:gfx1100, hip:gfx950
GFX = re.compile(r"^(?:amdgcn:|hip:)?(gfx[0-9a-f]{3,4})$")

# The AMD processors Triton's HIP backend supports (CDNA2 to 4, RDNA3 and 4), each with its wave size: 64
# lanes for CDNA (gfx9), 32 for RDNA (gfx10 on), as HIPOptions.__post_init__ sets warp_size. LLVM knows
# many more names, but for one it does not, the compile fails deep in a pass pipeline: refused here.
AMD_WAVE_SIZES = {
    "gfx90a": 64,  # MI210, MI250X
    "gfx942": 64,  # MI300X, MI325X
    "gfx950": 64,  # MI350X, MI355X
    "gfx1100": 32,  # RX 7900 XTX, W7900
    "gfx1101": 32,
    "gfx1102": 32,
    "gfx1150": 32,
    "gfx1151": 32,
    "gfx1200": 32,  # RX 9060
    "gfx1201": 32,  # RX 9070
}


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


def gfx_of(arch: str | int) -> str | None:
    """``"GFX942"``, ``"amdgcn:gfx942"`` -> ``"gfx942"``, any gfx name (None: not one)."""
    m = GFX.match(str(arch).strip().lower())
    return m.group(1) if m else None


def is_amd(arch: str | int) -> bool:
    """Does ``arch`` name an AMD processor (``gfx942``), supported or not?"""
    return gfx_of(arch) is not None


def parse_amd_arch(arch: str | int) -> str:
    """``"GFX942"`` -> ``"gfx942"``, for a processor Triton's HIP backend targets."""
    gfx = gfx_of(arch)
    if gfx not in AMD_WAVE_SIZES:
        raise ParameterError(
            f"unknown AMD arch {arch!r}; Triton's HIP backend compiles for {', '.join(AMD_WAVE_SIZES)}"
        )
    return gfx


def normalise_arch(arch: str | int | None) -> str | None:
    """``"sm90a"`` -> ``"sm_90"``, ``"GFX942"`` -> ``"gfx942"``; None stays None."""
    if arch is None:
        return None
    return parse_amd_arch(arch) if is_amd(arch) else arch_name(parse_arch(arch))


def wave_size(arch: str) -> int:
    """Threads that run in lockstep on ``arch``: a warp of 32, an AMD wave of 64 (CDNA) or 32 (RDNA)."""
    return AMD_WAVE_SIZES[parse_amd_arch(arch)] if is_amd(arch) else 32


# What other tools' records call the two vendors: Triton's GPUTarget.backend, Inductor's DeviceProperties.type.
RECORD_BACKENDS = {"cuda": "nvidia", "hip": "amd"}
LONGEST_RECORDED_ARCH = 40  # "gfx90a:sramecc+:xnack-" and the like; anything longer is no GPU's name


def recorded_arch(arch: object, *, backend: object = None, warp_size: object = None) -> str | None:
    """The arch a record made by another tool names, as irscope spells it; None where it names none.

    NVIDIA's records give the compute capability (``90``, Inductor's ``"90a"``), AMD's the processor
    (``"gfx942"``; ROCm's ``gcnArchName`` may add target features, ``"gfx90a:sramecc+:xnack-"``, which
    torch strips before it records one). ``backend`` is the record's own word for the vendor where it
    has one (``"cuda"``, ``"hip"``), ``warp_size`` the lanes it says a wave has. A record is data: a
    value no GPU has, or one that contradicts the vendor or the wave size, is a ``ValueError`` whose
    message is one line.
    """
    vendor = _recorded_vendor(backend)
    if arch is None:
        if vendor == "amd":
            raise ValueError("names an AMD GPU (backend 'hip') but not its processor (gfx...)")
        return None
    if isinstance(arch, int) and not isinstance(arch, bool):
        name = arch_name(arch) if capability_of(arch) is not None else None
    elif isinstance(arch, str) and len(arch) <= LONGEST_RECORDED_ARCH:
        gfx = gfx_of(arch.split(":", 1)[0])
        name = gfx or (arch_name(capability_of(arch) or 0) if capability_of(arch) is not None else None)
    else:
        name = None
    if name is None:
        raise ValueError(f"names arch {_shown(arch)}, neither an NVIDIA compute capability (90) nor an AMD gfx name")
    found = vendor_of(name).value
    if vendor is not None and vendor != found:
        raise ValueError(f"says backend {backend!r} but names {name}, an {found.upper()} arch")
    _check_wave(name, warp_size)
    return name


def _recorded_vendor(backend: object) -> str | None:
    if backend is None:
        return None
    if not isinstance(backend, str) or backend not in RECORD_BACKENDS:
        raise ValueError(f"names backend {_shown(backend)}, neither 'cuda' (NVIDIA) nor 'hip' (AMD)")
    return RECORD_BACKENDS[backend]


def _check_wave(name: str, warp_size: object) -> None:
    """A wave of 32 on NVIDIA; on AMD the processor's own (64 on gfx9, 32 on gfx10 on, as Triton's HIPOptions)."""
    if warp_size is None:
        return
    if not isinstance(warp_size, int) or isinstance(warp_size, bool) or warp_size not in (32, 64):
        raise ValueError(f"says a wave has {_shown(warp_size)} lanes (a GPU's has 32 or 64)")
    expected = recorded_wave_size(name)
    if warp_size != expected:
        raise ValueError(f"says a wave of {name} has {warp_size} lanes; it has {expected}")


def recorded_wave_size(arch: str | None) -> int:
    """The lanes of a wave on a record's arch, one irscope compiles for or not: Triton's rule (HIPOptions),
    64 on AMD's gfx9 and 32 from gfx10 on; NVIDIA's 32 (also where the record names no arch)."""
    gfx = gfx_of(arch) if arch else None
    if gfx is None:
        return 32
    return 64 if int(gfx[3:-2]) < 10 else 32


def _shown(value: object) -> str:
    """A value from a record, in a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 48 else text[:45] + "..."


class CaptureMode(str, enum.Enum):
    """How the IR was produced."""

    JIT = "jit"  # by the frontend's JIT on a GPU, for real tensors: exactly what runs
    AOT = "aot"  # ahead of time for a named arch, with the JIT's specialization


class Vendor(str, enum.Enum):
    NVIDIA = "nvidia"
    AMD = "amd"


def vendor_of(arch: str) -> Vendor:
    return Vendor.AMD if is_amd(arch) else Vendor.NVIDIA


@dataclass(frozen=True)
class Target:
    """Which GPU a compile is for, and whether it goes through the JIT on this machine's GPU.

    NVIDIA's by compute capability (90: sm_90); AMD's by processor name (``gfx="gfx942"``,
    ``capability`` None), compiled here always ahead of time: no AMD GPU is driven from here. A
    compile a program's JIT made on an AMD GPU, and recorded, is ``recorded`` (JIT) all the same.
    """

    capability: int | None
    mode: CaptureMode
    gfx: str | None = None

    @classmethod
    def for_arch(cls, arch: str | int, mode: CaptureMode = CaptureMode.AOT) -> Target:
        """``sm_90`` or ``gfx942`` (any spelling ``normalise_arch`` reads), checked."""
        if is_amd(arch):
            return cls(None, CaptureMode.AOT, parse_amd_arch(arch))
        return cls(parse_arch(arch), mode)

    @classmethod
    def recorded(cls, arch: str) -> Target:
        """What a program's JIT compiled for on its own GPU: a record's arch as ``recorded_arch`` spells it
        (``sm_90``, ``gfx942``), whether or not the compilers here target it."""
        gfx = gfx_of(arch)
        if gfx is not None:
            return cls(None, CaptureMode.JIT, gfx)
        return cls(capability_of(arch) or DEFAULT_CAPABILITY, CaptureMode.JIT)

    @property
    def arch(self) -> str:
        return self.gfx if self.gfx is not None else arch_name(self.nvidia_capability())

    @property
    def vendor(self) -> Vendor:
        return Vendor.AMD if self.gfx is not None else Vendor.NVIDIA

    @property
    def wave_size(self) -> int:
        return wave_size(self.arch)

    def ahead_of_time(self) -> Target:
        return Target(self.capability, CaptureMode.AOT, self.gfx)

    def nvidia_capability(self, who: str = "") -> int:
        """The compute capability, for compilers that know only NVIDIA's; one line for an AMD target."""
        if self.capability is None:
            by = f"{who} compiles" if who else "this needs"
            raise ParameterError(f"{by} only for NVIDIA archs (sm_XX), not {self.gfx}")
        return self.capability
