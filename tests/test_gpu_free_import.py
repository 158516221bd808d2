"""Kernel files that ask the driver for a GPU at import (Triton's tutorials) open on a machine without one."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

# Triton's tutorial 01 (python/tutorials/01-vector-add.py) as people write it: a device from the driver,
# tensors on it, and a test launch at module level through a Python wrapper.
VECTOR_ADD = textwrap.dedent("""
    import torch

    import triton
    import triton.language as tl

    DEVICE = triton.runtime.driver.active.get_active_torch_device()


    @triton.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(output_ptr + offsets, x + y, mask=mask)


    def add(x: torch.Tensor, y: torch.Tensor):
        output = torch.empty_like(x)
        assert x.device == DEVICE and y.device == DEVICE and output.device == DEVICE
        n_elements = output.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
        add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
        return output


    torch.manual_seed(0)
    size = 98432
    x = torch.rand(size, device=DEVICE)
    y = torch.rand(size, device=DEVICE)
    output_torch = x + y
    output_triton = add(x, y)
    print(output_torch)
    print(output_triton)
    print(f"The maximum difference between torch and triton is {torch.max(torch.abs(output_torch - output_triton))}")
""")


@pytest.fixture
def vector_add(tmp_path) -> Path:
    path = tmp_path / "01-vector-add.py"
    path.write_text(VECTOR_ADD)
    return path


def test_a_tutorial_kernel_file_dumps_without_a_gpu_or_a_signature(cli, no_gpu, vector_add):
    result = cli("dump", f"{vector_add}:add_kernel", "--stage", "ptx")
    assert result.exit_code == 0, result.stderr
    assert ".visible .entry add_kernel(" in result.stdout
    assert "ld.global.v4" in result.stdout  # the launch's tensors are 16-aligned, as torch allocates them
    assert "maximum difference" in result.stderr and "maximum difference" not in result.stdout


def test_what_is_compiled_is_the_launch_the_file_made_at_import(cli, no_gpu, vector_add):
    data = json.loads(cli("dump", f"{vector_add}:add_kernel", "--stage", "ptx", "--json").stdout)
    assert data["config"]["constexprs"] == {"BLOCK_SIZE": 1024}
    info = data["compile_info"]
    assert info["signature"] == {
        "x_ptr": "*fp32",
        "y_ptr": "*fp32",
        "output_ptr": "*fp32",
        "n_elements": "i32",
        "BLOCK_SIZE": "constexpr",
    }
    assert set(info["divisible_by_16"]) == {"x_ptr", "y_ptr", "output_ptr", "n_elements"}


def test_the_import_records_the_launch_and_gives_the_driver_back(no_gpu, vector_add):
    from triton.runtime.driver import driver

    from irscope.frontends.triton.gpu_free import TensorArgument, example_launches
    from irscope.frontends.triton.kernel_files import kernel_in_file, load_module

    before = driver._active
    (launch,) = example_launches(load_module(vector_add), "add_kernel")
    assert driver._active is before
    assert launch.grid == (97,) and launch.num_warps == 4 and launch.constants == {"BLOCK_SIZE": 1024}
    assert launch.arguments["x_ptr"] == TensorArgument("torch.float32", (98432,), (1,), True)
    assert launch.arguments["n_elements"] == 98432
    kernel = kernel_in_file(vector_add, "add_kernel", None)
    assert kernel.parameter_table()["BLOCK_SIZE"]["default"] == 1024


def test_a_signature_given_with_s_wins_over_the_recorded_launch(cli, no_gpu, vector_add):
    result = cli("dump", f"{vector_add}:add_kernel", "-S", "*fp16, *fp16, *fp16, i32, 256", "--json")
    data = json.loads(result.stdout)
    assert data["compile_info"]["signature"]["x_ptr"] == "*fp16"
    assert data["config"]["constexprs"] == {"BLOCK_SIZE": 256}
    assert "ld.global.v4" not in data["listings"]["ptx"]


CHECKED_AT_IMPORT = textwrap.dedent("""
    import torch
    import triton
    import triton.language as tl

    DEVICE = triton.runtime.driver.active.get_active_torch_device()


    @triton.jit
    def twice_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


    x = torch.rand(4096, device=DEVICE)
    y = torch.empty_like(x)
    twice_kernel[(4,)](x, y, 4096, BLOCK=1024)
    assert torch.allclose(y, 2 * x)  # as Triton's tutorials check their kernels: needs real data
""")


def test_a_file_that_checks_its_output_at_import_still_opens(tmp_path, no_gpu, cli):
    path = tmp_path / "checked.py"
    path.write_text(CHECKED_AT_IMPORT)
    result = cli("dump", f"{path}:twice_kernel", "--stage", "ttir")
    assert result.exit_code == 0, result.output
    assert "tt.func public @twice_kernel" in result.stdout
    assert f"{path}:19: the file stopped there" in result.stderr and "meta tensors" in result.stderr
