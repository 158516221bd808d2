"""On a GPU: a heuristics kernel launched with n_elements=1000 compiles to the PTX irscope gives for -c n_elements=1000.

The kernel is written for the tests (test_heuristic_arguments.KERNELS). Its real launch (CUDA
tensors, the JIT, @triton.heuristics' own run) is the reference: irscope's ahead-of-time compile of
the -S signature with the example value must be the same PTX byte for byte, with the same 4-byte loads (8-byte ones for 1024, where the value
is a multiple of 16 and EVEN_N holds).
"""

from __future__ import annotations

import re
import textwrap

import pytest
from test_heuristic_arguments import KERNELS  # copy_kernel, written for these tests


@pytest.mark.parametrize("n, widths, even", [(1000, {"b32"}, False), (1024, {"v2.b32"}, True)])
def test_the_launch_compiles_what_irscope_gives_for_the_example_value(tmp_path, monkeypatch, n, widths, even):
    import torch
    import triton

    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.frontends.triton.kernel_files import load_module
    from irscope.nvidia.device import gpu_capability
    from irscope.types import Stage

    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    path = tmp_path / "heuristic_copy.py"
    path.write_text(textwrap.dedent(KERNELS))
    kernel = resolve_kernel(f"{path}:copy_kernel", "*fp32:16, *fp32:16, i32")
    config = resolve_config(kernel, {"BLOCK": "256", "n_elements": str(n)})
    ours = capture(kernel, config=config, arch=f"sm_{gpu_capability()}", use_cache=False)
    assert ours.ok, ours.error
    assert ours.compile_info.heuristics == {"EVEN_N": even}
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    launched = load_module(path).copy_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(x, y)
    assert launched.asm["ptx"] == ours.listings[Stage.PTX]
    assert set(re.findall(r"ld\.global\.(\S+?)\s", launched.asm["ptx"])) == widths
