"""Triton 3.6's tutorials 02, 06, 09 and 10, byte for byte as published, open without a GPU; host tensor
descriptors (06, 09, 10) compile for sm_90a and sm_100a as Triton's own JIT compiles them.

The files are not in this repository (tests/fixtures/triton_tutorials/ORIGIN.md says where they
come from and how to put them there); each is checked against its published hash before use, and
the test skips without them. irscope's PTX is checked against Triton's: ``triton.compile`` on the
same kernel with the same constants, and the kernel's own ``warmup`` through the JIT.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "triton_tutorials"
PUBLISHED = {
    "02-fused-softmax.py": "8a65b696d5b02a3900380395ecd883671afeb66328db108f55622ed8853a05da",
    "06-fused-attention.py": "e37baf3097ca95fdae90ec5412279a7f86da503059747cd8cd996fadd45b88c8",
    "09-persistent-matmul.py": "e33fffb0db0cbbbab83b63e9e39e6555503b266d1e81762f4140b0c413dabe88",
    "10-block-scaled-matmul.py": "c89497ccc4e01525ff01aa94113fdfc5325a3d7ebee335d834dfa0f9fe361fc4",
}
# _attn_fwd's arguments (sm_scale, M, Z, H, desc_q/k/v/o, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N, FP8_OUTPUT, STAGE,
# warp_specialize, IS_HOPPER) as the tutorial passes them where no host descriptor is made: pointers.
ATTENTION = "fp32, *fp32:16, i32, i32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, 64, -, -, False, 3, False, True"
ATTENTION_VALUES = ("-c", "Z=4", "-c", "H=32", "-c", "N_CTX=1024")


@pytest.fixture
def tutorial(no_gpu):
    def path(name: str) -> Path:
        file = FIXTURES / name
        if not file.is_file():
            pytest.skip(f"{name} is not in {FIXTURES} (see ORIGIN.md there)")
        assert hashlib.sha256(file.read_bytes()).hexdigest() == PUBLISHED[name], f"{file} is not the published file"
        return file

    return path


def _compile(fn, signature: dict, constexprs: dict, divisible: list[int], options: dict) -> str:
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    attrs = {(i,): [["tt.divisibility", 16]] for i in divisible}
    with knobs.compilation.scope():
        knobs.compilation.always_compile = True  # Triton's cache is keyed on the source, not its path
        compiled = triton.compile(
            ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32), options=options
        )
    return compiled.asm["ptx"]


def _jit_warmup(fn, *args, capability: int = 90, **kwargs) -> str:
    from triton import knobs

    from irscope.frontends.triton.gpu_free import gpu_free_import

    fn.device_caches.clear()  # the JIT keeps its target per device: a warmup for another arch starts afresh
    with gpu_free_import(capability), knobs.compilation.scope():
        knobs.compilation.always_compile = True
        return fn.warmup(*args, grid=(1,), **kwargs).asm["ptx"]


def _descriptor(shape: tuple[int, ...], block: list[int], dtype) -> object:
    """A host TensorDescriptor over a meta tensor: what the tutorials pass, without a GPU."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    return TensorDescriptor.from_tensor(torch.empty(*shape, dtype=dtype, device="meta"), block)


def test_the_softmax_tutorial_dumps_as_its_own_launch_made_it(cli, tutorial):
    import torch

    from irscope.frontends.triton.kernel_files import load_module

    path = tutorial("02-fused-softmax.py")
    result = cli("dump", f"{path}:softmax_kernel", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    # The tutorial's warmup: BLOCK_SIZE for 781 columns, 4 stages (232448 B of shared memory > 200000), 8 warps.
    assert data["config"]["constexprs"] == {"BLOCK_SIZE": 1024, "num_stages": 4}
    assert data["config"]["options"] == {"num_warps": 8}
    ptx = data["listings"]["ptx"]
    module = load_module(path)
    signature = {n: "i32" for n in ("input_row_stride", "output_row_stride", "n_rows", "n_cols")}
    signature = {
        "output_ptr": "*fp32",
        "input_ptr": "*fp32",
        **signature,
        "BLOCK_SIZE": "constexpr",
        "num_stages": "constexpr",
    }
    options = {"num_warps": 8, "num_stages": 4}
    assert ptx == _compile(module.softmax_kernel, signature, {(6,): 1024, (7,): 4}, [0, 1], options)
    x, y = torch.empty(1823, 781, device="meta"), torch.empty(1823, 781, device="meta")
    assert ptx == _jit_warmup(
        module.softmax_kernel, y, x, 781, 781, 1823, 781, BLOCK_SIZE=1024, num_stages=4, num_warps=8
    )


def test_the_attention_tutorial_imports_and_its_forward_kernel_compiles(cli, tutorial, monkeypatch):
    import torch

    from irscope.frontends.triton.kernel_files import kernel_in_file, kernel_names, load_module

    path = tutorial("06-fused-attention.py")
    monkeypatch.delenv("PYTEST_VERSION", raising=False)  # under pytest the tutorial keeps one config only
    assert {"_attn_fwd", "_attn_fwd_inner", "_attn_bwd"} <= set(kernel_names(path))
    # Its configs are filtered by torch.cuda.get_device_capability() at import: sm_90 drops 15 of 36.
    table = kernel_in_file(path, "_attn_fwd", ATTENTION).parameter_table()
    assert len(table["BLOCK_M"]["configs"]) == 21
    picked = ("-c", "BLOCK_M=128", "-c", "BLOCK_N=64", "-c", "num_warps=4", "-c", "num_stages=3")
    result = cli("dump", f"{path}:_attn_fwd", "-S", ATTENTION, *ATTENTION_VALUES, *picked, "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    ptx = data["listings"]["ptx"]
    jit = load_module(path)._attn_fwd.fn  # inside the autotuner
    signature = {
        "sm_scale": "fp32",
        "M": "*fp32",
        "Z": "i32",
        "H": "i32",
        "desc_q": "*fp16",
        "desc_k": "*fp16",
        "desc_v": "*fp16",
        "desc_o": "*fp16",
        "N_CTX": "i32",
    }
    signature.update(
        {
            n: "constexpr"
            for n in ("HEAD_DIM", "BLOCK_M", "BLOCK_N", "FP8_OUTPUT", "STAGE", "warp_specialize", "IS_HOPPER")
        }
    )
    constexprs = {(9,): 64, (10,): 128, (11,): 64, (12,): False, (13,): 3, (14,): False, (15,): True}
    options = {"num_warps": 4, "num_stages": 3}
    assert ptx == _compile(jit, signature, constexprs, [1, 3, 4, 5, 6, 7, 8], options)
    q = torch.empty(4, 32, 1024, 64, dtype=torch.float16, device="meta")
    m = torch.empty(4, 32, 1024, device="meta")
    assert ptx == _jit_warmup(
        jit,
        0.5,
        m,
        4,
        32,
        q,
        q,
        q,
        q,
        1024,
        HEAD_DIM=64,
        BLOCK_M=128,
        BLOCK_N=64,
        FP8_OUTPUT=False,
        STAGE=3,
        warp_specialize=False,
        IS_HOPPER=True,
        num_warps=4,
        num_stages=3,
    )


# _attn_fwd with the host descriptors the tutorial makes where the GPU supports them (capability 9 and up):
# q and o in blocks of BLOCK_M x HEAD_DIM, k and v of BLOCK_N x HEAD_DIM (its autotuner's pre-hook sets them).
ATTENTION_DESCRIPTORS = (
    "fp32, *fp32:16, i32, i32, tensordesc<fp16[128, 64]>, tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 64]>, "
    "tensordesc<fp16[128, 64]>, i32, 64, -, -, False, 3, False, {hopper}"
)


@pytest.mark.parametrize("capability", [90, 100])
def test_the_attention_tutorial_takes_host_descriptors_for_hopper_and_blackwell(cli, tutorial, monkeypatch, capability):
    import torch

    from irscope.frontends.triton.kernel_files import load_module

    path = tutorial("06-fused-attention.py")
    monkeypatch.delenv("PYTEST_VERSION", raising=False)
    hopper = capability == 90
    picked = ("-c", "BLOCK_M=128", "-c", "BLOCK_N=64", "-c", "num_warps=4", "-c", "num_stages=3")
    signature = ATTENTION_DESCRIPTORS.format(hopper=hopper)
    arch = f"sm_{capability}a"
    result = cli("dump", f"{path}:_attn_fwd", "-S", signature, *ATTENTION_VALUES, *picked, "--arch", arch, "--json")
    assert result.exit_code == 0, result.stderr
    ptx = json.loads(result.stdout)["listings"]["ptx"]
    assert f".target {arch}" in ptx
    jit = load_module(path)._attn_fwd.fn
    q, kv = (
        _descriptor((4 * 32 * 1024, 64), [128, 64], torch.float16),
        _descriptor((4 * 32 * 1024, 64), [64, 64], torch.float16),
    )
    m = torch.empty(4, 32, 1024, device="meta")
    own = _jit_warmup(
        jit,
        0.5,
        m,
        4,
        32,
        q,
        kv,
        kv,
        q,
        1024,
        HEAD_DIM=64,
        BLOCK_M=128,
        BLOCK_N=64,
        FP8_OUTPUT=False,
        STAGE=3,
        warp_specialize=False,
        IS_HOPPER=hopper,
        num_warps=4,
        num_stages=3,
        capability=capability,
    )
    assert ptx == own


@pytest.mark.parametrize("capability", [90, 100])
def test_the_persistent_matmul_tutorials_tma_kernel_for_hopper_and_blackwell(cli, tutorial, capability):
    import torch

    from irscope.frontends.triton.kernel_files import load_module

    path = tutorial("09-persistent-matmul.py")
    signature = (
        "a_desc=tensordesc<fp16[128, 64]>, b_desc=tensordesc<fp16[256, 64]>, c_desc=tensordesc<fp16[128, 256]>, "
        "M=i32:16, N=i32:16, K=i32:16"
    )
    values = {
        "BLOCK_SIZE_M": 128,
        "BLOCK_SIZE_N": 256,
        "BLOCK_SIZE_K": 64,
        "GROUP_SIZE_M": 8,
        "FP8_OUTPUT": False,
        "WARP_SPECIALIZE": False,
        "num_warps": 8,
        "num_stages": 3,
    }
    given = [w for k, v in values.items() for w in ("-c", f"{k}={v}")]
    arch = f"sm_{capability}a"
    result = cli("dump", f"{path}:matmul_kernel_tma", "-S", signature, *given, "--arch", arch, "--json")
    assert result.exit_code == 0, result.stderr
    ptx = json.loads(result.stdout)["listings"]["ptx"]
    jit = load_module(path).matmul_kernel_tma.fn
    a = _descriptor((4096, 4096), [128, 64], torch.float16)
    b = _descriptor((4096, 4096), [256, 64], torch.float16)
    c = _descriptor((4096, 4096), [128, 256], torch.float16)
    assert ptx == _jit_warmup(jit, a, b, c, 4096, 4096, 4096, **values, capability=capability)


def test_the_block_scaled_matmul_tutorial_for_blackwell(cli, tutorial):
    """Tutorial 10's mxfp8 kernel: five host descriptors, two of them 5-D scale tiles, for sm_100a only."""
    import torch

    from irscope.frontends.triton.kernel_files import load_module

    path = tutorial("10-block-scaled-matmul.py")
    signature = (
        "tensordesc<fp8e4nv[128, 128]>, tensordesc<u8[1, 1, 1, 2, 256]>, tensordesc<fp8e4nv[256, 128]>, "
        "tensordesc<u8[1, 2, 1, 2, 256]>, tensordesc<fp16[128, 256]>"
    )
    values = {
        "M": 8192,
        "N": 8192,
        "K": 1024,
        "output_type": 1,
        "ELEM_PER_BYTE_A": 1,
        "ELEM_PER_BYTE_B": 1,
        "VEC_SIZE": 32,
        "BLOCK_M": 128,
        "BLOCK_N": 256,
        "BLOCK_K": 128,
        "rep_m": 1,
        "rep_n": 2,
        "rep_k": 1,
        "NUM_STAGES": 4,
    }
    given = [w for k, v in values.items() for w in ("-c", f"{k}={v}")]
    result = cli("dump", f"{path}:block_scaled_matmul_kernel", "-S", signature, *given, "--arch", "sm_100a", "--json")
    assert result.exit_code == 0, result.stderr
    ptx = json.loads(result.stdout)["listings"]["ptx"]
    assert ".target sm_100a" in ptx and "tcgen05.mma" in ptx
    kernel = load_module(path).block_scaled_matmul_kernel
    a = _descriptor((8192, 1024), [128, 128], torch.float8_e4m3fn)
    b = _descriptor((8192, 1024), [256, 128], torch.float8_e4m3fn)
    a_scale = _descriptor((1, 64, 8, 2, 256), [1, 1, 1, 2, 256], torch.uint8)
    b_scale = _descriptor((1, 64, 8, 2, 256), [1, 2, 1, 2, 256], torch.uint8)
    c = _descriptor((8192, 8192), [128, 256], torch.float16)
    assert ptx == _jit_warmup(kernel, a, a_scale, b, b_scale, c, **values, num_warps=4, capability=100)
