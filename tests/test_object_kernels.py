"""Kernels given as Python objects (frontends/objects.py): defined in real IPython cells and in script files.

Each kernel is written for these tests and compiled by the real Triton, numba-cuda and nvcc.
A cell is run by IPython's own shell, under both of the file names cells get: a plain
shell's ``<ipython-input-N-...>`` and Jupyter's ``/tmp/ipykernel_<pid>/<hash>.py``
(ipykernel's compiler), neither a file on disk. The line of the cell each IR line maps to
is counted here from the text given to the shell, not asked of irscope.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
from pathlib import Path

import pytest

from irscope.capturing import capture, capture_many
from irscope.errors import KernelFileError, KernelNotFound, ParameterError, UsageError
from irscope.frontends import kernel_from_object
from irscope.frontends.config import resolve_config, sweep_configs
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

TRITON_CELL = """import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3.0, mask=mask)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32, -"

AUTOTUNED_CELL = """import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": 64}, num_warps=2), triton.Config({"BLOCK": 256}, num_warps=4)],
    key=["n"],
)
@triton.jit
def tuned_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x + 1.0, mask=offs < n)
"""

HEURISTICS_CELL = """import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def even_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * x, mask=offs < n)
"""

SPEC_CELL = """import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


@triton.jit
def cube_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * x * x, mask=offs < n)


cube = KernelSpec(
    cube_kernel,
    sizes=dict(n=4096),
    tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.y, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(256, (128, 256))),
    reference=lambda k: k.x**3,
)
"""

NUMBA_CELL = """from numba import cuda


@cuda.jit
def twice(x, y, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = x[i] * 2.0
"""
NUMBA_SIGNATURE = "float32[:], float32[:], int32"

# load_inline's cuda_sources: two kernels (one a template made twice) and torch's host side, no includes
# (load_inline adds torch's headers itself).
CUDA_SOURCE = r"""template <typename T>
__global__ void scale(const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * (T)3;
}
template __global__ void scale<float>(const float*, float*, int);
template __global__ void scale<double>(const double*, double*, int);

__global__ void square(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}

torch::Tensor square_host(torch::Tensor x) {
    auto y = torch::empty_like(x);
    square<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""

# Plain CUDA C++ (no torch): compiled whole, its namespaces kept.
CUDA_NAMESPACES = r"""namespace v1 {
__global__ void norm(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] < 0.f ? -x[i] : x[i];
}
}
namespace v2 {
__global__ void norm(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
}
"""

_counter = itertools.count()


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance()


def notebook_cell(shell, style: str):
    """``run(text)``: ``text`` run as a cell of ``shell``, named as ``style``'s cells are; its namespace."""
    from ipykernel.compiler import XCachingCompiler
    from IPython.core.compilerop import CachingCompiler

    shell.compile = XCachingCompiler() if style == "ipykernel" else CachingCompiler()

    def run(text: str) -> dict:
        result = shell.run_cell(text)
        assert result.success, result.error_in_exec or result.error_before_exec
        return shell.user_ns

    return run


@pytest.fixture
def cell(shell):
    """A Jupyter notebook's cell (ipykernel names it /tmp/ipykernel_<pid>/<hash>.py)."""
    return notebook_cell(shell, "ipykernel")


@pytest.fixture(params=["ipython", "ipykernel"])
def any_cell(shell, request):
    """A cell of either kind: a plain IPython shell's (``<ipython-input-N-...>``) or Jupyter's."""
    return notebook_cell(shell, request.param)


def script(tmp_path: Path, text: str) -> dict:
    """``text`` as a script file on disk, imported: its module's namespace."""
    path = tmp_path / f"kernels_{next(_counter)}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"object_kernels_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def line_of(text: str, needle: str) -> int:
    """The 1-based line of ``text`` holding ``needle`` (once)."""
    (found,) = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    return found


def assert_maps(variant, line: int, instruction: str) -> None:
    """The PTX lines of ``instruction`` map to ``line`` of the kernel's source, and that line to them."""
    ptx = variant.listings[Stage.PTX].splitlines()
    smap = SourceMap(variant)
    loads = [i for i, text in enumerate(ptx) if re.search(instruction, text)]
    assert loads, f"no {instruction} in the PTX"
    assert {smap.source_line(Stage.PTX, i) for i in loads} == {line}
    assert set(loads) <= set(smap.lines_for(Stage.PTX, line))


def entries(variant) -> list[str]:
    return re.findall(r"\.entry\s+(\w+)", variant.listings[Stage.PTX])


def test_a_triton_kernel_from_a_cell_maps_every_ptx_load_to_the_cells_line(any_cell):
    namespace = any_cell(TRITON_CELL)
    fn = namespace["scale_kernel"]
    filename = fn.fn.__code__.co_filename
    assert not os.path.exists(filename)  # a cell, not a file
    kernel = kernel_from_object(fn, signature=SIGNATURE)
    assert kernel.compiles_here and kernel.file == filename and kernel.source() == TRITON_CELL
    variant = capture(kernel, {"BLOCK": 256}, arch="sm_90", compile_timeout=None)
    assert variant.status is Status.OK
    assert entries(variant) == ["scale_kernel"]
    assert f'"{filename}"' in variant.listings[Stage.PTX]  # Triton's own line info names the cell
    assert_maps(variant, line_of(TRITON_CELL, "tl.load"), r"ld\.global")


def test_a_triton_kernel_from_a_script_file_maps_to_the_files_lines(tmp_path):
    fn = script(tmp_path, TRITON_CELL)["scale_kernel"]
    kernel = kernel_from_object(fn, signature=SIGNATURE)
    assert kernel.file == fn.fn.__code__.co_filename and Path(kernel.file).is_file()
    variant = capture(kernel, {"BLOCK": 128}, arch="sm_90", compile_timeout=None)
    assert entries(variant) == ["scale_kernel"]
    assert_maps(variant, line_of(TRITON_CELL, "tl.load"), r"ld\.global")


def test_an_autotuned_cell_kernel_sweeps_its_own_configs(cell):
    kernel = kernel_from_object(cell(AUTOTUNED_CELL)["tuned_kernel"], signature=SIGNATURE)
    configs = sweep_configs(kernel.parameter_table(), kernel.name, {}, {})
    assert [(c.constexprs["BLOCK"], c.options["num_warps"]) for c in configs] == [(64, 2), (256, 4)]
    done = {c.index: c.variant for c in capture_many(kernel, configs, "sm_90", compile_timeout=None)}
    assert all(v.status is Status.OK and entries(v) == ["tuned_kernel"] for v in done.values())
    assert [v.compile_info.options["num_warps"] for _, v in sorted(done.items())] == [2, 4]
    for variant in done.values():
        assert_maps(variant, line_of(AUTOTUNED_CELL, "tl.load"), r"ld\.global")


def test_a_heuristics_cell_kernel_compiles_here_whatever_jobs_and_timeout_say(cell):
    """The cell's own heuristic runs (a worker could neither import the cell nor run a rebuilt kernel's
    heuristics), so two variants with jobs=2 and a timeout both compile, in this process."""
    kernel = kernel_from_object(cell(HEURISTICS_CELL)["even_kernel"], signature="*fp32:16, *fp32:16, i32, -, -")
    configs = [resolve_config(kernel, {"BLOCK": 128, "n": n}) for n in (1024, 1000)]
    done = {c.index: c.variant for c in capture_many(kernel, configs, "sm_90", jobs=2, compile_timeout=300)}
    even, ragged = done[0], done[1]
    assert even.status is Status.OK and ragged.status is Status.OK
    assert even.compile_info.heuristics == {"EVEN": True} and ragged.compile_info.heuristics == {"EVEN": False}
    # n % BLOCK == 0: the unmasked load's line of the cell; otherwise the masked one's
    assert_maps(even, line_of(HEURISTICS_CELL, "x = tl.load(x_ptr + offs)"), r"ld\.global")
    assert_maps(ragged, line_of(HEURISTICS_CELL, "x = tl.load(x_ptr + offs, mask"), r"ld\.global")


@pytest.mark.parametrize("where", ["cell", "script"])
def test_a_kernel_spec_object_gives_example_inputs_and_needs_no_signature(request, tmp_path, where):
    namespace = request.getfixturevalue("cell")(SPEC_CELL) if where == "cell" else script(tmp_path, SPEC_CELL)
    kernel = kernel_from_object(namespace["cube"])
    assert kernel.can_launch and kernel.name == "cube_kernel"
    assert kernel.parameter_table()["BLOCK"]["sweep"] == [128, 256]
    variant = capture(kernel, {"BLOCK": 128}, arch="sm_90", compile_timeout=None)
    assert entries(variant) == ["cube_kernel"]
    assert_maps(variant, line_of(SPEC_CELL, "tl.load"), r"ld\.global")


@pytest.mark.parametrize("where", ["ipython", "ipykernel", "script"])
def test_a_numba_kernel_object_maps_its_loads_to_its_line(shell, tmp_path, where):
    pytest.importorskip("numba.cuda", reason="needs numba-cuda")
    namespace = script(tmp_path, NUMBA_CELL) if where == "script" else notebook_cell(shell, where)(NUMBA_CELL)
    kernel = kernel_from_object(namespace["twice"], signature=NUMBA_SIGNATURE)
    assert kernel.compiles_here and kernel.source() == NUMBA_CELL
    # Two configs, two jobs, a timeout: a worker would import the kernel's file, which a cell has none of.
    configs = [resolve_config(kernel, {"fast_math": f}) for f in (False, True)]
    done = [c.variant for c in capture_many(kernel, configs, "sm_90", jobs=2, compile_timeout=300)]
    assert all(v.status is Status.OK for v in done)
    for variant in done:
        (entry,) = entries(variant)
        assert "twice" in entry
        # Numba's arrays are generic pointers: its loads are ld.f32, not ld.global
        assert_maps(variant, line_of(NUMBA_CELL, "y[i] = x[i]"), r"^\s*ld\.f32")


def test_cuda_source_text_with_torch_host_code_compiles_each_kernel_by_name():
    square = capture(kernel_from_object(CUDA_SOURCE, name="square"), arch="sm_90", compile_timeout=None)
    assert square.status is Status.OK and entries(square) == ["_Z6squarePKfPfi"]
    assert_maps(square, line_of(CUDA_SOURCE, "y[i] = x[i] * x[i]"), r"ld\.global")
    double = capture(kernel_from_object(CUDA_SOURCE, name="scale<double>"), arch="sm_90", compile_timeout=None)
    assert double.status is Status.OK and entries(double) == ["_Z5scaleIdEvPKT_PS0_i"]
    assert "ld.global.f64" in double.listings[Stage.PTX]
    assert_maps(double, line_of(CUDA_SOURCE, "(T)3"), r"ld\.global")


def test_cuda_source_text_names_its_kernels_as_a_cu_file_does():
    with pytest.raises(KernelNotFound, match=r"holds 3 __global__ kernels .*name one as name="):
        kernel_from_object(CUDA_SOURCE)
    with pytest.raises(KernelNotFound, match="scale in the CUDA source string is a template instantiated 2 times"):
        kernel_from_object(CUDA_SOURCE, name="scale")
    with pytest.raises(KernelNotFound, match="'norm' is ambiguous in the CUDA source string: v1::norm, v2::norm"):
        kernel_from_object(CUDA_NAMESPACES, name="norm")
    kernel = kernel_from_object(CUDA_NAMESPACES, name="v2::norm")
    assert kernel.device_code is None  # no torch: the text compiles as it is, its namespaces kept
    assert Path(kernel.file).read_text() == CUDA_NAMESPACES
    variant = capture(kernel, arch="sm_90", compile_timeout=None)
    assert entries(variant) == ["_ZN2v24normEPKfPfi"]
    assert_maps(variant, line_of(CUDA_NAMESPACES, "x[i] * x[i]"), r"ld\.global")


def test_the_same_cuda_text_is_one_file_and_one_cache_entry():
    first, again = (kernel_from_object(CUDA_NAMESPACES, name="v1::norm") for _ in range(2))
    assert first.file == again.file
    configs = [resolve_config(first, {})]
    list(capture_many(first, configs, "sm_90", compile_timeout=None))
    assert [c.cached for c in capture_many(again, configs, "sm_90", compile_timeout=None)] == [True]


def test_a_changed_cell_compiles_again_and_two_cells_of_one_name_share_nothing(cell):
    one = kernel_from_object(cell(TRITON_CELL)["scale_kernel"], signature=SIGNATURE)
    configs = [resolve_config(one, {"BLOCK": 64})]
    first = next(iter(capture_many(one, configs, "sm_90", compile_timeout=None)))
    assert next(iter(capture_many(one, configs, "sm_90", compile_timeout=None))).cached
    changed_text = TRITON_CELL.replace("x * 3.0", "x * 5.0")
    other = kernel_from_object(cell(changed_text)["scale_kernel"], signature=SIGNATURE)
    assert other.name == one.name
    second = next(iter(capture_many(other, configs, "sm_90", compile_timeout=None)))
    assert not second.cached and second.variant.listings[Stage.SOURCE] == changed_text
    # 3.0 and 5.0 as PTX writes floats
    assert "0f40400000" in first.variant.listings[Stage.PTX] and "0f40A00000" in second.variant.listings[Stage.PTX]
    assert "0f40400000" not in second.variant.listings[Stage.PTX]


def test_a_script_edited_since_its_kernel_was_defined_is_refused(tmp_path):
    fn = script(tmp_path, TRITON_CELL)["scale_kernel"]
    path = Path(fn.fn.__code__.co_filename)
    path.write_text("# a line added above\n" + TRITON_CELL)
    with pytest.raises(KernelFileError, match="has changed since it was defined"):
        kernel_from_object(fn, signature=SIGNATURE)


def test_a_function_whose_source_is_nowhere_is_one_line():
    pytest.importorskip("numba.cuda", reason="needs numba-cuda")
    namespace = {}
    exec(compile(NUMBA_CELL, "<generated>", "exec"), namespace)  # no file, no cell: linecache has nothing
    with pytest.raises(KernelFileError, match="neither a file nor a notebook cell"):
        kernel_from_object(namespace["twice"], signature=NUMBA_SIGNATURE)


def test_what_is_no_kernel_object_is_refused_in_one_line(cell):
    fn = cell(TRITON_CELL)["scale_kernel"]
    with pytest.raises(ParameterError, match="signature="):
        kernel_from_object(fn)
    with pytest.raises(UsageError, match="name= picks a kernel of a CUDA source string"):
        kernel_from_object(fn, signature=SIGNATURE, name="scale_kernel")
    for thing, said in [(42, "an int"), (lambda x: x, "decorate it with"), ("square_kernel", "no __global__")]:
        with pytest.raises(UsageError, match=said) as caught:
            kernel_from_object(thing)
        assert "\n" not in str(caught.value)
