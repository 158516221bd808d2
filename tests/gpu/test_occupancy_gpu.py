"""Occupancy against the driver: irscope's blocks per SM and binding limit for tl.dot configs whose binding
limit differs, compared with cuOccupancyMaxActiveBlocksPerMultiprocessor on the GPU's own cubin."""

from __future__ import annotations

import textwrap

import pytest

from irscope.annotate.findings import kernel_occupancy
from irscope.capture import capture
from irscope.arch import arch_name
from irscope.device import gpu_capability
from irscope.frontends import resolve_kernel
from irscope.nvidia.launch import CubinFunction
from irscope.types import Stage

TILE_MM = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def occ_mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * stride_am + rk[None, :]
        b = b_ptr + rk[:, None] * stride_bk + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            a += BK
            b += BK * stride_bk
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))
''')
CONFIGS = [
    {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4, "num_stages": 2},  # registers bind (sm_90)
    {"BM": 64, "BN": 64, "BK": 128, "num_warps": 4, "num_stages": 4},  # shared memory binds
    {"BM": 16, "BN": 16, "BK": 16, "num_warps": 4, "num_stages": 1, "maxnreg": 32},  # threads bind
    {"BM": 128, "BN": 256, "BK": 64, "num_warps": 8, "num_stages": 3},  # registers and shared memory tie
]


@pytest.mark.parametrize("config", CONFIGS)
def test_blocks_per_sm_agree_with_the_driver(tmp_path, config):
    (tmp_path / "mm.py").write_text(TILE_MM)
    ref = resolve_kernel(f"{tmp_path / 'mm.py'}:occ_mm", "*fp16:16, *fp16:16, *fp16:16, " + ", ".join(["i32:16"] * 6))
    variant = capture(ref, config, arch_name(gpu_capability()))
    assert variant.ok, variant.error
    occ = kernel_occupancy(variant)
    function = CubinFunction(variant.cubin, "occ_mm", variant.listings[Stage.PTX])
    driver = function.max_active_blocks(occ.threads, occ.shared)
    assert occ.blocks == driver, (config, occ.by, driver, function.n_regs, occ.registers)
