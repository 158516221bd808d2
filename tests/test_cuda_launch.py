"""CUDA C++ and Numba kernels made runnable: CudaSpecs, the block shape as a knob, arguments packed as the PTX says.

No GPU here: the launch itself is tested in tests/gpu/test_cuda_bench.py. What runs
here is everything before it, on real nvcc and Numba compiles of kernels written for
these tests (a saxpy with a float scalar, a 2-D Numba kernel).
"""

from __future__ import annotations

import ctypes
import shutil
import textwrap

import pytest

from irscope.capturing import capture
from irscope.errors import KernelFileError, ParameterError
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config, sweep_configs
from irscope.nvidia.launch import LaunchError, NumbaArray, entry_params, pack
from irscope.spec import parse_block
from irscope.types import Stage, Status

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

SAXPY = textwrap.dedent("""
    // saxpy written for the tests: a float scalar, a 64-bit count, an unrolled tile
    #ifndef UNROLL
    #define UNROLL 1
    #endif

    __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, long long n) {
        long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
    #pragma unroll
        for (int j = 0; j < UNROLL; ++j)
            if (base + j < n) y[base + j] = a * x[base + j] + y[base + j];
    }
""")

SAXPY_SPEC = textwrap.dedent("""
    from irscope.spec import CudaSpec, Tensor, Tunable, cdiv

    saxpy = CudaSpec(
        "saxpy", source="saxpy.cu",
        sizes=dict(n=1 << 20),
        tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True, init="ones")),
        args=lambda k: (2.5, k.x, k.y, k.n),
        block=Tunable("256", ("128", "256")),
        macros=dict(UNROLL=Tunable(1, (1, 4))),
        grid=lambda k: (cdiv(k.n, k.block_x * k.UNROLL),),
        reference=lambda k: 2.5 * k.x + 1.0,
    )
""")


@pytest.fixture
def saxpy(tmp_path):
    (tmp_path / "saxpy.cu").write_text(SAXPY)
    (tmp_path / "saxpy_spec.py").write_text(SAXPY_SPEC)
    return resolve_kernel(f"{tmp_path / 'saxpy.cu'}:saxpy", spec_file=str(tmp_path / "saxpy_spec.py"))


def test_a_named_spec_gives_inputs_sizes_macro_sweeps_and_the_block_shape(saxpy):
    assert saxpy.can_launch
    table = saxpy.parameter_table()
    assert table["block"] == {"default": "256", "sweep": ["128", "256"], "kind": "option"}
    assert table["UNROLL"]["sweep"] == [1, 4] and table["UNROLL"]["kind"] == "constexpr"
    assert table["n"] == {"default": 1 << 20, "sweep": [1 << 20], "kind": "size"}
    configs = sweep_configs(table, saxpy.name, {"block": ["128", "256"], "UNROLL": ["1", "4"]}, {})
    assert sorted(c.label().split(" ", 1)[0] + " " + str(c.options["block"]) for c in configs) == [
        "UNROLL=1 128",
        "UNROLL=1 256",
        "UNROLL=4 128",
        "UNROLL=4 256",
    ]
    assert all(c.options["block"] in ("128", "256") and "block=" in c.label() for c in configs)


def test_a_named_spec_travels_in_the_kernels_handle_to_its_workers(saxpy):
    from irscope import frontends

    again = frontends.load(saxpy.handle())  # what a bench worker does
    assert again.spec_file == saxpy.spec_file and again.can_launch and again.spec.name == "saxpy"


def test_a_kernel_without_a_spec_compiles_but_cannot_launch(tmp_path):
    (tmp_path / "lone.cu").write_text(SAXPY)
    ref = resolve_kernel(f"{tmp_path / 'lone.cu'}:saxpy")
    assert not ref.can_launch and "block" not in ref.parameter_table()
    with pytest.raises(ParameterError, match="lone_spec.py"):
        ref.launch(resolve_config(ref, {}))


def test_a_spec_file_that_fails_to_import_is_one_line(tmp_path):
    (tmp_path / "bad.cu").write_text(SAXPY)
    (tmp_path / "bad_spec.py").write_text("import not_a_module_anywhere\n")
    with pytest.raises(KernelFileError, match="bad_spec.py:1: error importing the spec file: .*not_a_module"):
        resolve_kernel(f"{tmp_path / 'bad.cu'}:saxpy", spec_file=str(tmp_path / "bad_spec.py")).parameter_table()


@pytest.mark.parametrize("text,dims", [("256", (256, 1, 1)), ("16x16", (16, 16, 1)), ("8x8x4", (8, 8, 4))])
def test_block_shapes_parse(text, dims):
    assert parse_block(text) == dims


@pytest.mark.parametrize("text", ["0", "64x64", "axb", "1x2x3x4", ""])
def test_a_bad_block_shape_is_refused_when_the_config_is_made(saxpy, text):
    with pytest.raises(ParameterError, match="block must be threads per block"):
        resolve_config(saxpy, {"block": text})


@needs_nvcc
def test_arguments_are_packed_as_the_kernels_ptx_declares_them(saxpy):
    import torch

    v = capture(saxpy, {"UNROLL": 4}, arch="sm_90")
    assert v.status is Status.OK, v.error
    entry = v.compile_info.options["entry"]
    types = entry_params(v.listings[Stage.PTX], entry)
    assert types == ["f32", "u64", "u64", "u64"]  # float a, two pointers, long long n
    x, y = torch.arange(4, dtype=torch.float32), torch.zeros(4)
    packed = pack(types, (2.5, x, y, 1 << 40))
    assert isinstance(packed[0], ctypes.c_float) and packed[0].value == 2.5
    assert packed[1].value == x.data_ptr() and packed[3].value == 1 << 40
    with pytest.raises(LaunchError, match="takes 4 parameters and the spec's args give 3"):
        pack(types, (2.5, x, y))
    with pytest.raises(LaunchError, match="parameter 0 is .f32 but the spec passes a tensor"):
        pack(types, (x, x, y, 4))


@needs_nvcc
def test_the_builtin_cuda_square_sweeps_its_launch_shape_without_recompiling_different_code():
    ref = resolve_kernel("square_matrix_kernel")
    shapes = [capture(ref, {"block": b}, arch="sm_90") for b in ("16x16", "32x8", "256x1")]
    assert all(v.status is Status.OK for v in shapes)
    assert {v.config.options["block"] for v in shapes} == {"16x16", "32x8", "256x1"}
    # The launch shape is a launch option: the binary is the same for each.
    assert len({v.listings[Stage.SASS] for v in shapes}) == 1


def test_numba_arrays_expand_to_the_parameters_numba_lowers_them_to():
    pytest.importorskip("numba.cuda", reason="needs numba-cuda")
    import torch

    v = capture("square_numba_kernel", arch="sm_90")
    assert v.status is Status.OK, v.error
    types = entry_params(v.listings[Stage.PTX], v.compile_info.options["entry"])
    assert len(types) == 2 * (5 + 2 * 2)  # two 2-D arrays: meminfo, parent, nitems, itemsize, data, shape, strides
    m = torch.zeros(3, 5)
    packed = pack(types, (NumbaArray(m), NumbaArray(m)))
    assert [p.value for p in packed[:9]] == [0, 0, 15, 4, m.data_ptr(), 3, 5, 20, 4]
