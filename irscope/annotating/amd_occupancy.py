"""How many waves of a kernel fit on one SIMD of an AMD GPU, as its VGPRs allow.

The rule is LLVM's, the one its AMDGPU backend prints as ``; Occupancy:`` and allocates by
(``llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp``: ``getNumWavesPerEUWithNumVGPRs``): a wave's
VGPRs are rounded up to the allocation granule, the SIMD's VGPR file (per lane) holds
``total // rounded`` such waves, at least one, at most the SIMD's wave slots. The numbers per
target come from the same file (``getTotalNumVGPRs``, ``getVGPRAllocGranule``, ``getMaxWavesPerEU``):

- gfx90a, gfx942, gfx950 (CDNA2 to 4, 64-lane waves): one 512-register file per lane that VGPRs and
  AGPRs share (``.vgpr_count`` counts both), granule 8, 8 waves per SIMD.
- gfx1100, gfx1101, gfx1151, gfx1200, gfx1201 (RDNA3/4 with 1.5x VGPRs, 32-lane waves): 1536 per lane,
  granule 24, 16 waves.
- gfx1102, gfx1150 (RDNA3, 32-lane waves): 1024 per lane, granule 16, 16 waves.

tests/test_amd_findings.py holds this to the ``; Occupancy:`` LLVM prints in the listing (on kernels
whose LDS Triton requests at launch, which LLVM does not see, and whose VGPRs bind). LDS, SGPRs and
the workgroup's size limit waves too; only the VGPR limit is worked out here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VgprFile:
    total: int  # VGPRs per lane in one SIMD's file
    granule: int  # a wave's VGPRs are allocated in multiples of this
    max_waves: int  # wave slots per SIMD


CDNA = VgprFile(512, 8, 8)
RDNA_WIDE = VgprFile(1536, 24, 16)  # Feature1_5xVGPRs
RDNA = VgprFile(1024, 16, 16)
VGPR_FILES = {
    "gfx90a": CDNA,
    "gfx942": CDNA,
    "gfx950": CDNA,
    "gfx1100": RDNA_WIDE,
    "gfx1101": RDNA_WIDE,
    "gfx1102": RDNA,
    "gfx1150": RDNA,
    "gfx1151": RDNA_WIDE,
    "gfx1200": RDNA_WIDE,
    "gfx1201": RDNA_WIDE,
}


@dataclass(frozen=True)
class SimdOccupancy:
    arch: str
    vgprs: int  # per lane, as the code object's .vgpr_count says (AGPRs included on CDNA)
    allocated: int  # rounded up to the granule
    waves: int  # per SIMD, as the VGPRs allow
    file: VgprFile

    @property
    def limited(self) -> bool:
        """Do the VGPRs allow fewer waves than the SIMD has slots for?"""
        return self.waves < self.file.max_waves

    def vgprs_for(self, waves: int) -> int:
        """The most VGPRs a wave may use for ``waves`` waves to fit (0: none would)."""
        return self.file.total // waves // self.file.granule * self.file.granule if waves else 0


def simd_occupancy(arch: str, vgprs: int) -> SimdOccupancy | None:
    """Waves per SIMD that ``vgprs`` VGPRs a lane allow on ``arch`` (None: an arch without a table)."""
    file = VGPR_FILES.get(arch)
    if file is None or vgprs <= 0:
        return None
    allocated = -(-vgprs // file.granule) * file.granule
    waves = file.max_waves if vgprs < file.granule else min(max(file.total // allocated, 1), file.max_waves)
    return SimdOccupancy(arch, vgprs, allocated, waves, file)
