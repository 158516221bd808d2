"""What Triton's tutorials do at import, on a machine without a GPU: a file written here that does the same.

02-fused-softmax reads the driver's device properties and a warmed-up kernel's ``n_regs`` and
shared memory at module level, then launches the compiled kernel; 06-fused-attention asks
``torch.cuda.get_device_capability()`` to filter its autotuner configs before its kernel exists.
The softmax kernel also has a constexpr named ``num_stages``, like the launch option: Triton
passes a launch's ``num_stages=K`` to both (``JITFunction._pack_args`` parses the options from
every keyword), and so does ``-c num_stages=K``.

Checked against Triton: the JIT's own ``warmup`` and ``triton.compile`` give the PTX irscope
gives, byte for byte, and the registers the file read are ptxas's.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

PATTERNS = textwrap.dedent("""
    import torch

    import triton
    import triton.language as tl
    from triton.runtime import driver

    DEVICE = triton.runtime.driver.active.get_active_torch_device()
    CAPABILITY = torch.cuda.get_device_capability()  # before any kernel exists, as tutorial 06 asks
    properties = driver.active.utils.get_device_properties(DEVICE.index)
    NUM_SM = properties["multiprocessor_count"]
    NUM_REGS = properties["max_num_regs"]
    SIZE_SMEM = properties["max_shared_mem"]
    WARP_SIZE = properties["warpSize"]

    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 128) for w in (4, 8)]
    if CAPABILITY[0] == 9:
        configs = [c for c in configs if c.num_warps == 4]


    @triton.autotune(configs=configs, key=["n"])
    @triton.jit
    def negate_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


    @triton.jit
    def centre_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                      num_stages: tl.constexpr):
        for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
            offs = tl.arange(0, BLOCK_SIZE)
            x = tl.load(in_ptr + row * in_stride + offs, mask=offs < n_cols, other=-float("inf"))
            tl.store(out_ptr + row * out_stride + offs, x - tl.max(x, axis=0), mask=offs < n_cols)


    def centre(x):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        num_stages = 2 if SIZE_SMEM > 200000 else 1
        kernel = centre_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                      num_stages=num_stages, num_warps=8, grid=(1, ))
        kernel._init_handles()
        occupancy = NUM_REGS // (kernel.n_regs * WARP_SIZE * 8)
        occupancy = min(occupancy, SIZE_SMEM // kernel.metadata.shared)
        kernel[(min(NUM_SM * occupancy, n_rows), 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE,
                                                        num_stages)
        return y, kernel


    x = torch.randn(1000, 300, device=DEVICE)
    y, WARMED = centre(x)
    N_REGS, SHARED = WARMED.n_regs, WARMED.metadata.shared
    assert torch.allclose(y, x - x.max(dim=1, keepdim=True).values)  # needs data: stops here without a GPU
""")
NEGATE = "*fp32:16, *fp32:16, i32"


@pytest.fixture(scope="module")
def patterns(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tutorial_patterns") / "patterns.py"
    path.write_text(PATTERNS)
    return path


def _dump(cli, target: str, *args: str) -> dict:
    result = cli("dump", target, "--stage", "ptx", "--json", "--arch", "sm_90", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _warmup(module, name: str, *args, **kwargs):
    """The kernel's own warmup through Triton's JIT for sm_90, compiled afresh (the cache is keyed on source)."""
    from triton import knobs

    from irscope.frontends.triton.gpu_free import gpu_free_import

    with gpu_free_import(90), knobs.compilation.scope():
        knobs.compilation.always_compile = True
        return getattr(module, name).warmup(*args, grid=(1,), **kwargs)


def test_the_file_reads_the_device_and_a_warmed_up_kernel_without_a_gpu(cli, no_gpu, patterns):
    from irscope.frontends.triton.gpu_free import device_properties
    from irscope.frontends.triton.kernel_files import load_module

    module = load_module(patterns)
    assert module.CAPABILITY == (9, 0)
    assert module.properties == device_properties(90) and module.SIZE_SMEM == 232448
    data = _dump(cli, f"{patterns}:centre_kernel")
    # What the file's launch asked for, without -S: its constexprs (num_stages 2: SIZE_SMEM > 200000) and warps.
    assert data["config"]["constexprs"] == {"BLOCK_SIZE": 512, "num_stages": 2}
    assert data["config"]["options"] == {"num_warps": 8}
    assert data["compile_info"]["options"]["num_stages"] == 2  # the same keyword set the compile option
    # The registers and shared memory the file read are those of the cubin ptxas made: ptxas -v says the same.
    assert module.N_REGS == data["resources"]["registers"] > 0
    assert module.SHARED == data["resources"]["shared"] > 0


def test_the_ptx_is_the_jits_and_triton_compiles(cli, no_gpu, patterns):
    import torch
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from irscope.frontends.triton.kernel_files import load_module

    module = load_module(patterns)
    ptx = _dump(cli, f"{patterns}:centre_kernel")["listings"]["ptx"]
    x, y = torch.empty(1000, 300, device="meta"), torch.empty(1000, 300, device="meta")
    jit = _warmup(module, "centre_kernel", y, x, 300, 300, 1000, 300, BLOCK_SIZE=512, num_stages=2, num_warps=8)
    assert ptx == jit.asm["ptx"]
    signature = {
        "out_ptr": "*fp32",
        "in_ptr": "*fp32",
        "in_stride": "i32",
        "out_stride": "i32",
        "n_rows": "i32",
        "n_cols": "i32",
        "BLOCK_SIZE": "constexpr",
        "num_stages": "constexpr",
    }
    source = ASTSource(
        module.centre_kernel,
        signature,
        {(6,): 512, (7,): 2},
        {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]], (2,): [], (3,): [], (4,): [], (5,): []},
    )
    with knobs.compilation.scope():
        knobs.compilation.always_compile = True
        theirs = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 2})
    assert ptx == theirs.asm["ptx"]


def test_the_capability_asked_at_import_is_the_targets_and_is_given_back(cli, no_gpu, patterns):
    import torch
    from triton.runtime.driver import driver

    before = driver._active
    result = cli("sweep", f"{patterns}:negate_kernel", "-S", NEGATE, "-c", "n=4096", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["BLOCK"], r["status"]) for r in rows] == [(64, "ok"), (128, "ok")]  # sm_90: 4 warps only
    assert driver._active is before
    with pytest.raises((AssertionError, RuntimeError)):  # a CPU torch: the stand-in's answers are gone
        torch.cuda.get_device_capability()


def test_num_stages_sets_the_kernels_parameter_and_the_compile_option_as_a_launch_does(cli, no_gpu, patterns):
    import torch

    from irscope.frontends.triton.kernel_files import kernel_in_file, load_module

    table = kernel_in_file(patterns, "centre_kernel", None).parameter_table()
    assert table["num_stages"]["kind"] == "constexpr" and table["num_warps"]["kind"] == "option"
    data = _dump(cli, f"{patterns}:centre_kernel", "-c", "num_stages=3")
    assert data["config"]["constexprs"]["num_stages"] == 3 and "num_stages" not in data["config"]["options"]
    assert data["compile_info"]["options"]["num_stages"] == 3
    x, y = torch.empty(1000, 300, device="meta"), torch.empty(1000, 300, device="meta")
    module = load_module(patterns)
    jit = _warmup(module, "centre_kernel", y, x, 300, 300, 1000, 300, BLOCK_SIZE=512, num_stages=3, num_warps=8)
    assert jit.metadata.num_stages == 3 and data["listings"]["ptx"] == jit.asm["ptx"]
    swept = cli("sweep", f"{patterns}:centre_kernel", "-s", "num_stages=1,3", "--arch", "sm_90", "--json")
    assert swept.exit_code == 0, swept.stderr
    assert [json.loads(line)["num_stages"] for line in swept.stdout.splitlines()] == [1, 3]


AUTOTUNED_STAGES = textwrap.dedent("""
    import triton
    import triton.language as tl


    @triton.autotune(
        configs=[triton.Config({"BLOCK": 64}, num_stages=1), triton.Config({"BLOCK": 128}, num_stages=4)],
        key=["n"],
    )
    @triton.jit
    def staged_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, num_stages: tl.constexpr):
        for start in tl.range(0, n, BLOCK, num_stages=num_stages):
            offs = start + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
""")


def test_an_autotuned_num_stages_reaches_the_kernels_parameter(cli, tmp_path):
    path = tmp_path / "staged.py"
    path.write_text(AUTOTUNED_STAGES)
    result = cli("sweep", f"{path}:staged_kernel", "-S", NEGATE, "--json")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["BLOCK"], r["num_stages"], r["status"]) for r in rows] == [(64, 1, "ok"), (128, 4, "ok")]
    dumped = cli("dump", f"{path}:staged_kernel", "-S", NEGATE, "-c", "BLOCK=128", "-c", "num_stages=4", "--json")
    data = json.loads(dumped.stdout)
    assert data["config"]["constexprs"] == {"BLOCK": 128, "num_stages": 4}
    assert data["compile_info"]["options"]["num_stages"] == 4
