"""Occupancy against the driver: irscope's blocks per SM and binding limit for tl.dot configs whose binding
limit differs, compared with cuOccupancyMaxActiveBlocksPerMultiprocessor on the GPU's own cubin."""

from __future__ import annotations

import pytest
from written_kernels import MM_UNIT_B, TILE_MM

from irscope.annotating.findings import kernel_occupancy
from irscope.arch import arch_name
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.nvidia.device import gpu_capability
from irscope.nvidia.launch import CubinFunction
from irscope.types import Stage

CONFIGS = [
    {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4, "num_stages": 2},  # registers bind (sm_90)
    {"BM": 64, "BN": 64, "BK": 128, "num_warps": 4, "num_stages": 4},  # shared memory binds
    {"BM": 16, "BN": 16, "BK": 16, "num_warps": 4, "num_stages": 1, "maxnreg": 32},  # threads bind
    {"BM": 128, "BN": 256, "BK": 64, "num_warps": 8, "num_stages": 3},  # registers and shared memory tie
]


@pytest.mark.parametrize("config", CONFIGS)
def test_blocks_per_sm_agree_with_the_driver(tmp_path, config):
    (tmp_path / "mm.py").write_text(TILE_MM)
    ref = resolve_kernel(f"{tmp_path / 'mm.py'}:tile_mm", MM_UNIT_B)
    variant = capture(ref, config, arch_name(gpu_capability()))
    assert variant.ok, variant.error
    occ = kernel_occupancy(variant)
    function = CubinFunction(variant.cubin, "tile_mm", variant.listings[Stage.PTX])
    driver = function.max_active_blocks(occ.threads, occ.shared)
    assert occ.blocks == driver, (config, occ.by, driver, function.n_regs, occ.registers)
