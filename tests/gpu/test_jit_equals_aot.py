"""On a GPU: the JIT's IR for the example tensors equals irscope's ahead-of-time IR.

This is the guarantee behind every CPU-only capture: compiled ahead of time for
the GPU's arch with the JIT's specialization, the PTX is byte for byte what the
JIT produces and runs.
"""

from __future__ import annotations

import pytest

from irscope.capturing import capture, choose_target
from irscope.nvidia.device import gpu_capability
from irscope.types import CaptureMode, Stage

CASES = [
    ("square_kernel", {}),
    ("square_kernel", {"BLOCK_SIZE": 128, "num_warps": 1, "n_cols": 1024}),
    ("add_kernel", {}),
    ("add_kernel", {"offset": 1}),
    ("gelu_kernel", {"BLOCK_SIZE": 2048, "num_warps": 8}),
    ("softmax_kernel", {}),
    ("matmul_kernel", {}),
    ("matmul_kernel", {"num_stages": 4, "BLOCK_SIZE_M": 64}),
]


@pytest.mark.parametrize("name, overrides", CASES)
def test_jit_ptx_on_the_gpu_equals_the_ahead_of_time_ptx(name, overrides, monkeypatch):
    # Two real compiles: without this the second would be a hit in Triton's cache whenever the
    # specializations agree (which is itself the point, but let the IR speak for it).
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    assert choose_target(None).mode is CaptureMode.JIT
    jit = capture(name, overrides, use_cache=False)
    aot = capture(name, overrides, arch=f"sm_{gpu_capability()}", use_cache=False)
    assert jit.ok and aot.ok, (jit.error, aot.error)
    assert jit.compile_info.mode is CaptureMode.JIT and aot.compile_info.mode is CaptureMode.AOT
    for stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX):
        assert jit.listings[stage] == aot.listings[stage], f"{name} {overrides}: {stage.value} differs"
    assert jit.listings[Stage.SASS] == aot.listings[Stage.SASS]
    assert jit.compile_info.signature == aot.compile_info.signature
    # The driver's register count for the loaded module agrees with ptxas's report.
    assert jit.resources.gpu_registers == aot.resources.registers
