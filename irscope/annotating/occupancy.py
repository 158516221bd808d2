"""How many blocks of a kernel fit on one SM, by each of the three limits, and which one binds.

The rules are those of NVIDIA's occupancy calculator, ``cuda_occupancy.h`` in the CUDA toolkit
(``cudaOccMaxActiveBlocksPerMultiprocessor``): registers are allocated per warp in units of 256 and
split over the SM's four sub-partitions; shared memory per block is rounded up to 128 bytes (sm_80
and later) after adding the 1 KB the system reserves for each block; threads are counted in whole
warps; and there is a cap on resident blocks. tests/test_findings.py compiles that header and checks
these numbers against it; tests/gpu checks them against the driver.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SmLimits:
    """One SM of a compute capability, as ``cudaOccDeviceProp`` describes it (CUDA C Programming Guide,
    "Technical Specifications per Compute Capability"; cuda_occupancy.h for the allocation rules)."""

    max_threads: int = 2048
    max_blocks: int = 32
    registers: int = 65536  # per SM, and per block
    shared: int = 233472  # the most shared memory one SM can give its blocks (the largest carveout)
    shared_per_block: int = 232448  # the most one block may opt in to
    reserved_shared_per_block: int = 1024
    register_unit: int = 256  # registers are allocated to a warp in multiples of this
    sub_partitions: int = 4
    shared_unit: int = 128  # shared memory is allocated to a block in multiples of this
    max_registers_per_thread: int = 255


SM_LIMITS = {
    75: SmLimits(
        max_threads=1024,
        max_blocks=16,
        shared=65536,
        shared_per_block=65536,
        reserved_shared_per_block=0,
        shared_unit=256,
    ),
    80: SmLimits(max_blocks=32, shared=167936, shared_per_block=166912),
    86: SmLimits(max_threads=1536, max_blocks=16, shared=102400, shared_per_block=101376),
    87: SmLimits(max_blocks=32, shared=167936, shared_per_block=166912),
    89: SmLimits(max_threads=1536, max_blocks=24, shared=102400, shared_per_block=101376),
    90: SmLimits(max_blocks=32, shared=233472, shared_per_block=232448),
    100: SmLimits(max_blocks=32, shared=233472, shared_per_block=232448),
    103: SmLimits(max_blocks=32, shared=233472, shared_per_block=232448),
    120: SmLimits(max_threads=1536, max_blocks=24, shared=102400, shared_per_block=101376),
}

LIMITS = ("threads", "registers", "shared memory", "blocks")  # in the order a tie names them


def sm_limits(capability: int) -> SmLimits:
    """The SM of ``capability`` (90 for sm_90a); the nearest older one irscope knows for a newer arch."""
    known = sorted(SM_LIMITS)
    fitting = [c for c in known if c <= capability]
    return SM_LIMITS[fitting[-1] if fitting else known[0]]


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


@dataclass(frozen=True)
class Occupancy:
    capability: int
    registers: int  # per thread
    threads: int  # per block
    shared: int  # bytes per block, static and dynamic
    by: dict[str, int]  # blocks per SM each limit allows
    limits: SmLimits

    @property
    def blocks(self) -> int:
        return min(self.by.values())

    @property
    def warps_per_block(self) -> int:
        return -(-self.threads // 32)

    @property
    def warps(self) -> int:
        return self.blocks * self.warps_per_block

    @property
    def max_warps(self) -> int:
        return self.limits.max_threads // 32

    @property
    def binding(self) -> tuple[str, ...]:
        """Every limit that allows no more blocks than fit: raising only one of several gains nothing."""
        return tuple(name for name in LIMITS if name in self.by and self.by[name] == self.blocks)

    def registers_for(self, blocks: int) -> int | None:
        """The most registers per thread that would still let ``blocks`` blocks fit (None: none would)."""
        per_sub = self.limits.registers // self.limits.sub_partitions
        for regs in range(min(self.limits.max_registers_per_thread, 255), 0, -1):
            per_warp = _round_up(regs * 32, self.limits.register_unit)
            if (per_sub // per_warp) * self.limits.sub_partitions // self.warps_per_block >= blocks:
                return regs
        return None

    def shared_for(self, blocks: int) -> int:
        """The most shared memory per block (bytes) that would still let ``blocks`` blocks fit."""
        per_block = self.limits.shared // blocks - self.limits.reserved_shared_per_block
        return max(0, per_block // self.limits.shared_unit * self.limits.shared_unit)


def occupancy(capability: int, registers: int, threads: int, shared: int) -> Occupancy:
    """Blocks of ``threads`` threads using ``registers`` registers a thread and ``shared`` bytes of shared
    memory that fit on one SM of ``capability``, by each limit (cudaOccMaxActiveBlocksPerMultiprocessor,
    with the default carveout: the driver gives a kernel the shared memory it needs)."""
    limits = sm_limits(capability)
    warps = -(-threads // 32)
    by = {"threads": limits.max_threads // (warps * 32), "blocks": limits.max_blocks}
    per_warp = _round_up(max(registers, 1) * 32, limits.register_unit)
    if (
        registers > limits.max_registers_per_thread
        or per_warp * _round_up(warps, limits.sub_partitions) > limits.registers
    ):
        by["registers"] = 0
    else:
        by["registers"] = (limits.registers // limits.sub_partitions // per_warp) * limits.sub_partitions // warps
    per_block = _round_up(shared + limits.reserved_shared_per_block, limits.shared_unit) if shared else 0
    if shared:
        by["shared memory"] = 0 if shared > limits.shared_per_block else limits.shared // per_block
    return Occupancy(capability, registers, threads, shared, by, limits)
