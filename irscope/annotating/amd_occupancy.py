"""How many waves of a kernel fit on one SIMD of an AMD GPU, and which resource binds: VGPRs, SGPRs,
LDS or the workgroup's size.

The number is the one LLVM's AMDGPU backend prints as ``; Occupancy:`` and programs the hardware by
(``AMDGPUAsmPrinter::getSIProgramInfo``): the least of

- the workgroup limit, ``AMDGPUSubtarget::getOccupancyWithWorkGroupSizes`` (AMDGPUSubtarget.cpp):
  how many workgroups fit on a CU (a WGP on RDNA) by its LDS (``getLocalMemorySize``, the bytes the
  waves of one workgroup must share) and by its wave slots and barriers
  (``IsaInfo::getMaxWorkGroupsPerCU``), their waves spread over the CU's SIMDs, for workgroup sizes
  from 1 to the kernel's ``amdgpu-flat-work-group-size`` (Triton: ``1,num_warps*wave``);
- the SGPR limit, ``IsaInfo::getOccupancyWithNumSGPRs`` (AMDGPUBaseInfo.cpp): a table on gfx9,
  none from gfx10 on (RDNA gives every wave its SGPRs);
- the VGPR limit, ``IsaInfo::getNumWavesPerEUWithNumVGPRs``: the count rounded up to the allocation
  granule, the SIMD's file holding ``total // rounded`` waves;

each register count first raised to what a ``waves_per_eu`` request asks (``getMinNumVGPRs``,
``getMinNumSGPRs`` of the effective maximum, ``AMDGPUSubtarget::getEffectiveWavesPerEU``).

LLVM sees only static LDS; Triton requests its LDS at launch, so LLVM's own comment counts none of
it. tests/test_amd_annotate.py holds this module to LLVM both ways: to the listing's ``; Occupancy:``
with the static LDS, and to the comment of the same LLIR compiled again with Triton's LDS made
static (the bytes LLVM then sees), on every test variant and on a grid of LDS sizes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ComputeUnit:
    """What one CU (RDNA: WGP, Triton compiles in WGP mode) gives the waves of a kernel, per LLVM's tables."""

    vgprs: int  # VGPRs per lane in one SIMD's file (getTotalNumVGPRs)
    granule: int  # a wave's VGPRs are allocated in multiples of this (getVGPRAllocGranule)
    max_waves: int  # wave slots per SIMD (getMaxWavesPerEU)
    lds: int  # bytes of LDS the workgroups on one CU share (getLocalMemorySize)
    simds: int = 4  # getEUsPerCU: 4 on gfx9; on RDNA the WGP's 4 in WGP mode
    barriers: int = 16  # workgroups of more than one wave per CU (getMaxWorkGroupsPerCU): 32 on a WGP
    sgpr_table: bool = True  # gfx9 limits waves by SGPRs; gfx10 on does not (getOccupancyWithNumSGPRs)

    @property
    def wave_slots(self) -> int:
        return self.max_waves * self.simds


# gfx90a, gfx942, gfx950: one 512-register file per lane that VGPRs and AGPRs share (.vgpr_count counts
# both), granule 8, 8 waves; LDS 64 KiB per CU, 160 KiB on gfx950 (FeatureAddressableLocalMemorySize163840).
CDNA = ComputeUnit(vgprs=512, granule=8, max_waves=8, lds=65536)
CDNA4 = ComputeUnit(vgprs=512, granule=8, max_waves=8, lds=163840)
# RDNA3/4 in wave32: 1536 VGPRs where the target has Feature1_5xVGPRs, else 1024; 16 waves; 64 KiB of LDS
# per CU, 128 KiB per WGP (getLocalMemorySize doubles it in WGP mode), 32 barriers.
RDNA_WIDE = ComputeUnit(vgprs=1536, granule=24, max_waves=16, lds=131072, barriers=32, sgpr_table=False)
RDNA = ComputeUnit(vgprs=1024, granule=16, max_waves=16, lds=131072, barriers=32, sgpr_table=False)
COMPUTE_UNITS = {
    "gfx90a": CDNA,
    "gfx942": CDNA,
    "gfx950": CDNA4,
    "gfx1100": RDNA_WIDE,
    "gfx1101": RDNA_WIDE,
    "gfx1102": RDNA,
    "gfx1150": RDNA,
    "gfx1151": RDNA_WIDE,
    "gfx1200": RDNA_WIDE,
    "gfx1201": RDNA_WIDE,
}

# gfx9 (AMDGPUBaseInfo.cpp: getTotalNumSGPRs, getSGPRAllocGranule, getAddressableNumSGPRs, TRAP_NUM_SGPRS;
# HSA code turns the trap handler feature on)
GFX9_SGPRS, GFX9_SGPR_GRANULE, GFX9_ADDRESSABLE_SGPRS, TRAP_SGPRS = 800, 16, 102, 16
# getOccupancyWithNumSGPRs, VOLCANIC_ISLANDS to GFX9: (at most this many SGPRs, waves)
SGPR_WAVES = ((80, 10), (88, 9), (100, 8))


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def vgpr_waves(cu: ComputeUnit, vgprs: int) -> int:
    """getNumWavesPerEUWithNumVGPRs: waves per SIMD that ``vgprs`` VGPRs a lane allow."""
    if vgprs < cu.granule:
        return cu.max_waves
    return min(max(cu.vgprs // (_ceil(vgprs, cu.granule) * cu.granule), 1), cu.max_waves)


def sgpr_waves(cu: ComputeUnit, sgprs: int) -> int:
    """getOccupancyWithNumSGPRs: waves per SIMD that ``sgprs`` SGPRs allow (gfx10 on: no limit)."""
    if not cu.sgpr_table:
        return cu.max_waves
    return next((waves for most, waves in SGPR_WAVES if sgprs <= most), 7)


def workgroups_per_cu(cu: ComputeUnit, wave_size: int, threads: int) -> int:
    """getMaxWorkGroupsPerCU: workgroups of ``threads`` a CU holds by its wave slots and barriers."""
    waves = _ceil(threads, wave_size)
    return cu.wave_slots if waves == 1 else min(cu.wave_slots // waves, cu.barriers)


def workgroup_waves(cu: ComputeUnit, wave_size: int, lds: int, threads: int) -> int:
    """The most waves per SIMD that workgroups of 1 to ``threads`` threads each asking ``lds`` bytes of
    LDS reach: ``getOccupancyWithWorkGroupSizes(lds, (1, threads)).second``."""
    by_lds = cu.lds // max(lds, 1)
    if not by_lds:
        return 1
    fewest_waves, most_waves = 1, _ceil(threads, wave_size)
    most_groups = min(workgroups_per_cu(cu, wave_size, 1), by_lds)  # of one-wave workgroups
    least = most_waves * min(workgroups_per_cu(cu, wave_size, threads), by_lds)
    most = fewest_waves * most_groups
    if least >= most:  # LDS or barriers flipped the two ends
        most = least
    else:  # a size between the ends may fill the slots one-wave workgroups leave free
        spare_per_group = (cu.wave_slots - most_groups * fewest_waves) // most_groups
        most += most_groups * min(spare_per_group, (threads - 1) // wave_size + 1 - fewest_waves)
    return min(max(_ceil(most, cu.simds), 1), cu.max_waves)


def _min_vgprs(cu: ComputeUnit, waves: int) -> int:
    """getMinNumVGPRs: the fewest VGPRs a wave is given so that no more than ``waves`` fit (0: no floor)."""
    if waves >= cu.max_waves:
        return 0
    most = cu.vgprs // waves // cu.granule * cu.granule
    if most == cu.vgprs // cu.max_waves // cu.granule * cu.granule:
        return 0
    addressable = 512 if cu.vgprs == 512 else 256  # getAddressableNumVGPRs: 512 with GFX90AInsts
    fewest = vgpr_waves(cu, addressable)
    if waves < fewest:
        return _min_vgprs(cu, fewest)
    after = cu.vgprs // (waves + 1) // cu.granule * cu.granule
    return min(1 + min(most - cu.granule, after), addressable)


def _min_sgprs(cu: ComputeUnit, waves: int) -> int:
    """getMinNumSGPRs: likewise for SGPRs (gfx10 on: none)."""
    if not cu.sgpr_table or waves >= cu.max_waves:
        return 0
    fewest = GFX9_SGPRS // (waves + 1)
    fewest -= min(fewest, TRAP_SGPRS)
    return min(fewest // GFX9_SGPR_GRANULE * GFX9_SGPR_GRANULE + 1, GFX9_ADDRESSABLE_SGPRS)


def requested_waves(cu: ComputeUnit, wave_size: int, lds: int, threads: int, waves_per_eu: int) -> int:
    """The maximum of getEffectiveWavesPerEU: a ``waves_per_eu`` request LLVM accepts (Triton asks
    ``"N, N"``), else what the workgroup's size and LDS allow."""
    ceiling = workgroup_waves(cu, wave_size, lds, threads)
    floor = min(_ceil(_ceil(threads, wave_size), cu.simds), ceiling)  # getWavesPerEUForWorkGroup
    if waves_per_eu < floor or waves_per_eu > ceiling or waves_per_eu > cu.max_waves:
        return ceiling
    return waves_per_eu


@dataclass(frozen=True)
class SimdOccupancy:
    """Waves per SIMD of one kernel on one target, and each resource's own limit."""

    arch: str
    cu: ComputeUnit
    wave_size: int
    threads: int  # per workgroup
    lds: int  # bytes per workgroup
    vgprs: int  # per lane, as the code object's .vgpr_count says (AGPRs included on CDNA)
    sgprs: int
    waves_per_eu: int  # the launch option (0: none)
    waves: int  # per SIMD: LLVM's number

    @property
    def waves_per_group(self) -> int:
        return _ceil(self.threads, self.wave_size)

    @property
    def vgpr_limit(self) -> int:
        return vgpr_waves(self.cu, self.vgprs)

    @property
    def sgpr_limit(self) -> int:
        return min(sgpr_waves(self.cu, self.sgprs), self.cu.max_waves)

    @property
    def size_limit(self) -> int:
        """Waves per SIMD as the workgroup's size alone allows (slots and barriers, no LDS)."""
        return workgroup_waves(self.cu, self.wave_size, 0, self.threads)

    @property
    def lds_limit(self) -> int:
        return workgroup_waves(self.cu, self.wave_size, self.lds, self.threads)

    @property
    def request_limit(self) -> int:
        """What a waves_per_eu request holds the waves to (the slots where there is none)."""
        if not self.waves_per_eu:
            return self.cu.max_waves
        return requested_waves(self.cu, self.wave_size, self.lds, self.threads, self.waves_per_eu)

    def limits(self) -> list[str]:
        """The resources whose own limit is the answer, below the SIMD's slots: ``["VGPRs", "LDS"]``."""
        if self.waves >= self.cu.max_waves:
            return []
        own = {
            "VGPRs": self.vgpr_limit,
            "SGPRs": self.sgpr_limit,
            "workgroup size": self.size_limit,
            "LDS": self.lds_limit,
            "waves_per_eu": self.request_limit,
        }
        return [name for name, waves in own.items() if waves == self.waves]

    def lds_groups(self) -> int:
        """Workgroups of this kernel one CU holds by its LDS, its wave slots and its barriers. For Triton's
        sizes (1 to 16 waves) their waves spread over the SIMDs are ``lds_limit`` (tests/test_amd_annotate.py)."""
        return min(self.cu.lds // max(self.lds, 1), workgroups_per_cu(self.cu, self.wave_size, self.threads))

    def vgprs_for(self, waves: int) -> int:
        """The most VGPRs a wave may use for ``waves`` waves to fit (0: none would)."""
        return self.cu.vgprs // waves // self.cu.granule * self.cu.granule if waves else 0


def simd_occupancy(
    arch: str, wave_size: int, threads: int, vgprs: int, sgprs: int, lds: int, waves_per_eu: int = 0
) -> SimdOccupancy | None:
    """Waves per SIMD of a kernel on ``arch`` (None: an arch without a table, or no registers counted)."""
    cu = COMPUTE_UNITS.get(arch)
    if cu is None or vgprs <= 0 or threads <= 0:
        return None
    ceiling = requested_waves(cu, wave_size, lds, threads, waves_per_eu)
    # getSIProgramInfo: each count raised to what the effective maximum asks, then the least limit
    vgpr_count = max(vgprs, 1, _min_vgprs(cu, ceiling))
    sgpr_count = max(sgprs, 1, _min_sgprs(cu, ceiling))
    waves = min(workgroup_waves(cu, wave_size, lds, threads), sgpr_waves(cu, sgpr_count), vgpr_waves(cu, vgpr_count))
    return SimdOccupancy(arch, cu, wave_size, threads, lds, vgprs, sgprs, waves_per_eu, waves)
