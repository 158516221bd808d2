"""CUDA C++ kernels beside Triton's: real nvcc compiles (CUDA 13 on these machines), no GPU needed.

The built-ins are the lecture's square (2-D, 16x16 blocks) and a tanh GeLU; the
tunable-macro and register kernels are written for these tests.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

# The lecture's load_inline square as people write it: running this file would build a torch extension
# (minutes) and needs a GPU; irscope reads its CUDA string without running it.
LECTURE = "# The lecture's load_inline square, as people write it (written for irscope's tests).\nimport torch\nfrom torch.utils.cpp_extension import load_inline\n\ncuda_source = '''\n__global__ void square_matrix_kernel(const float* matrix, float* result, int width, int height) {\n    int row = blockIdx.y * blockDim.y + threadIdx.y;\n    int col = blockIdx.x * blockDim.x + threadIdx.x;\n\n    if (row < height && col < width) {\n        int idx = row * width + col;\n        result[idx] = matrix[idx] * matrix[idx];\n    }\n}\n\ntorch::Tensor square_matrix(torch::Tensor matrix) {\n    const auto height = matrix.size(0);\n    const auto width = matrix.size(1);\n\n    auto result = torch::empty_like(matrix);\n\n    dim3 threads_per_block(16, 16);\n    dim3 number_of_blocks((width + threads_per_block.x - 1) / threads_per_block.x,\n                          (height + threads_per_block.y - 1) / threads_per_block.y);\n\n    square_matrix_kernel<<<number_of_blocks, threads_per_block>>>(\n        matrix.data_ptr<float>(), result.data_ptr<float>(), width, height);\n\n    return result;\n    }\n'''\n\ncpp_source = \"torch::Tensor square_matrix(torch::Tensor matrix);\"\n\nsquare_matrix_extension = load_inline(\n    name='square_matrix_extension',\n    cpp_sources=cpp_source,\n    cuda_sources=cuda_source,\n    functions=['square_matrix'],\n    with_cuda=True,\n    extra_cuda_cflags=[\"-O2\"],\n    build_directory='./load_inline_cuda',\n)\n\na = torch.tensor([[1., 2., 3.], [4., 5., 6.]], device='cuda')\nprint(square_matrix_extension.square_matrix(a))\n"

pytestmark = pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="needs nvcc")

TILED = textwrap.dedent("""
    // A row sum written for the tests: TILE elements per thread, unrolled.
    #ifndef TILE
    #define TILE 4
    #endif

    __global__ void row_sum(const float* __restrict__ x, float* __restrict__ out, int n) {
        int base = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
        float acc = 0.0f;
    #pragma unroll
        for (int j = 0; j < TILE; ++j) {
            if (base + j < n) acc += x[base + j];
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    }

    extern "C" __global__ void unused_neighbour(float* y) { y[threadIdx.x] = 1.0f; }

    // TILE values live at once: register pressure grows with TILE.
    __global__ void many_live(const float* __restrict__ x, float* __restrict__ out) {
        float acc[TILE];
    #pragma unroll
        for (int j = 0; j < TILE; ++j) acc[j] = x[threadIdx.x + j * 1024];
    #pragma unroll
        for (int r = 0; r < 4; ++r) {
    #pragma unroll
            for (int j = 0; j < TILE; ++j) acc[j] = acc[j] * acc[(j + 1) % TILE] + 1.0f;
        }
    #pragma unroll
        for (int j = 0; j < TILE; ++j) out[threadIdx.x + j * 1024] = acc[j];
    }
""")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", ["square_matrix_kernel", "gelu_tanh_kernel"])
def test_the_builtin_cuda_kernels_compile_to_ptx_and_sass(name, arch):
    v = capture(name, arch=arch)
    assert v.status is Status.OK, v.error
    ptx, sass = v.listings[Stage.PTX], v.listings[Stage.SASS]
    assert f".target {arch}" in ptx and f".entry _Z{len(name)}{name}" in ptx
    assert v.compile_info.compiler.startswith("nvcc V13") and v.compile_info.options["entry"].startswith("_Z")
    assert v.resources.registers and v.resources.spill_stores == 0
    assert '.cu", line' in sass and v.cubin[:4] == b"\x7fELF"
    assert set(v.listings) == {Stage.SOURCE, Stage.PTX, Stage.SASS}


def test_every_ptx_and_sass_line_of_the_square_maps_to_its_line_of_the_cu_file():
    v = capture("square_matrix_kernel", {"fast_math": False}, arch="sm_90")
    source = v.listings[Stage.SOURCE].splitlines()
    line = next(i + 1 for i, text in enumerate(source) if "matrix[idx] * matrix[idx]" in text)
    smap = SourceMap(v)
    ptx = v.listings[Stage.PTX].splitlines()
    mul = next(i for i, text in enumerate(ptx) if "mul.f32" in text)
    assert smap.source_line(Stage.PTX, mul) == line
    sass = v.listings[Stage.SASS].splitlines()
    fmul = next(i for i, text in enumerate(sass) if " FMUL " in text)
    assert smap.source_line(Stage.SASS, fmul) == line


def test_tunable_macros_are_swept_with_d(tmp_path, cli):
    path = tmp_path / "tiled.cu"
    path.write_text(TILED)
    ref = resolve_kernel(f"{path}:row_sum")
    table = ref.parameter_table()
    assert table["TILE"] == {"default": 4, "sweep": [4], "kind": "constexpr"}
    narrow, wide = capture(ref, {"TILE": 2}, "sm_90"), capture(ref, {"TILE": 16}, "sm_90")

    def loads(v) -> int:  # in row_sum's own entry (the PTX holds every kernel of the file)
        ptx = v.listings[Stage.PTX]
        body = ptx[ptx.index(".entry _Z7row_sum") :]
        return body[: body.index("\n}")].count("ld.global")

    assert (loads(narrow), loads(wide)) == (2, 16)  # unrolled TILE times
    result = cli("sweep", f"{path}:row_sum", "-s", "TILE=2,8", "-c", "fast_math=0", "--json")
    assert result.exit_code == 0, result.output
    assert [line.count('"TILE"') for line in result.stdout.splitlines() if line.startswith("{")] == [1, 1]


def test_fast_math_changes_the_gelus_tanh_and_the_diff_says_so(cli):
    exact = capture("gelu_tanh_kernel", {"fast_math": False}, arch="sm_90")
    fast = capture("gelu_tanh_kernel", {"fast_math": True}, arch="sm_90")
    assert "tanh.approx.f32" in fast.listings[Stage.PTX] and "tanh.approx" not in exact.listings[Stage.PTX]
    result = cli("diff", "gelu_tanh_kernel", "-a", "fast_math=0", "-b", "fast_math=1", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    assert "tanh.approx.f32" in result.stdout


def test_maxrregcount_caps_the_registers(tmp_path):
    path = tmp_path / "tiled.cu"
    path.write_text(TILED)
    ref = resolve_kernel(f"{path}:many_live")
    free = capture(ref, {"TILE": 64, "fast_math": False}, "sm_90")
    capped = capture(ref, {"TILE": 64, "fast_math": False, "maxrregcount": 32}, "sm_90")
    assert free.resources.registers > 32 >= capped.resources.registers
    assert "-maxrregcount" not in str(free.compile_info.options) and capped.compile_info.options["maxrregcount"] == 32


def test_a_cu_file_that_does_not_compile_is_one_line(tmp_path, run_irscope):
    path = tmp_path / "broken.cu"
    path.write_text("__global__ void broken(float* x) {\n  x[0] = undefined_name;\n}\n")
    result = run_irscope("dump", f"{path}:broken", "--stage", "ptx")
    assert result.returncode == 3, result.stderr
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("irscope: error")]
    assert 'failed at nvcc: broken.cu(2): error: identifier "undefined_name" is undefined' in error
    assert "Traceback" not in result.stderr
    missing = run_irscope("dump", f"{path}:nope")
    assert missing.returncode == 2 and "no __global__ kernel named 'nope'" in missing.stderr


def test_list_shows_the_cuda_builtins(cli):
    result = cli("list", "--json")
    import json

    kernels = {k["name"]: k for k in map(json.loads, result.stdout.splitlines())}
    assert kernels["square_matrix_kernel"]["frontend"] == "cuda"
    assert kernels["gelu_tanh_kernel"]["parameters"]["fast_math"]["sweep"] == [False, True]


def test_a_load_inline_kernel_compiles_from_the_python_file_without_running_it(tmp_path, run_irscope):
    path = tmp_path / "lecture_square.py"
    path.write_text(LECTURE)
    ref = resolve_kernel(f"{path}:square_matrix_kernel")
    assert ref.frontend == "cuda" and ref.file == str(path)
    v = capture(ref, {"fast_math": False}, "sm_90")
    assert v.status is Status.OK, v.error
    assert not (tmp_path / "load_inline_cuda").exists()  # the file did not run: no extension was built
    python = LECTURE.splitlines()
    line = next(i + 1 for i, text in enumerate(python) if "matrix[idx] * matrix[idx]" in text)
    ptx = v.listings[Stage.PTX].splitlines()
    mul = next(i for i, text in enumerate(ptx) if "mul.f32" in text)
    smap = SourceMap(v)
    assert smap.source_line(Stage.PTX, mul) == line  # a line of the .py, inside the string
    sass = v.listings[Stage.SASS].splitlines()
    assert smap.source_line(Stage.SASS, next(i for i, t in enumerate(sass) if " FMUL " in t)) == line
    assert "square_matrix(torch::Tensor" not in v.listings[Stage.PTX]  # the host function is not compiled
    result = run_irscope("dump", f"{path}:square_matrix_kernel", "--stage", "sass")
    assert result.returncode == 0 and f'File "{path}", line {line}' in result.stdout, result.stderr


async def test_the_tui_opens_a_cuda_kernel_with_its_source_highlighted_as_cuda():
    from irscope.tui.factory import make_app
    from irscope.tui.widgets.listing import ListingView

    app = make_app("square_matrix_kernel")
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(100):
            await pilot.pause(0.1)
            if all(r.variant is not None for r in app.model.rows):
                break
        # fast_math off and on, each for the spec's three launch shapes
        assert [r.variant.status for r in app.model.rows] == [Status.OK] * 6
        for key in ("5", "6", "j"):  # PTX, SASS, next variant
            await pilot.press(key)
            await pilot.pause(0.05)
        source = app.query_one("#source", ListingView)
        assert source.suffix == ".cu" and any("__global__" in line for line in source.lines)
        # ...highlighted by pygments' CUDA lexer (imported only now): a keyword there, bold (a name to Python's)
        line = next(i for i, text in enumerate(source.lines) if "__global__" in text)
        assert any(
            seg.text == "__global__" and seg.style is not None and seg.style.bold for seg in source._segments(line)
        )


SHARED = textwrap.dedent("""
    // Written for the tests: a shared-memory tiled matrix multiply and a warp-shuffle sum.
    #ifndef TILE
    #define TILE 16
    #endif

    __global__ void tiled_matmul(const float* a, const float* b, float* c, int n) {
        __shared__ float as[TILE][TILE];
        __shared__ float bs[TILE][TILE];
        int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
        float acc = 0.0f;
        for (int t = 0; t < n; t += TILE) {
            as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
            bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
            __syncthreads();
            for (int k = 0; k < TILE; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
            __syncthreads();
        }
        c[row * n + col] = acc;
    }

    __global__ void warp_sum(const float* x, float* out) {
        float v = x[blockIdx.x * 32 + threadIdx.x];
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
""")


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i + 1 for i, line in enumerate(text.splitlines()) if needle in line][nth]


@pytest.fixture
def shared_cu(tmp_path):
    path = tmp_path / "shared.cu"
    path.write_text(SHARED)
    return path


def test_barriers_and_shared_loads_map_to_syncthreads_and_the_inner_product(shared_cu):
    v = capture(resolve_kernel(f"{shared_cu}:tiled_matmul"), {"TILE": 16}, "sm_90")
    assert v.status is Status.OK, v.error
    smap = SourceMap(v)
    sync_lines = {_line_of(SHARED, "__syncthreads", 0), _line_of(SHARED, "__syncthreads", 1)}
    inner = _line_of(SHARED, "acc += as")
    ptx, sass = v.listings[Stage.PTX].splitlines(), v.listings[Stage.SASS].splitlines()
    bars = {smap.source_line(Stage.PTX, i) for i, t in enumerate(ptx) if "bar.sync" in t}
    assert bars == sync_lines
    sass_bars = {smap.source_line(Stage.SASS, i) for i, t in enumerate(sass) if " BAR.SYNC" in t}
    assert sass_bars == sync_lines
    lds = [smap.source_line(Stage.SASS, i) for i, t in enumerate(sass) if " LDS" in t]
    assert lds and all(line == inner for line in lds)
    assert v.resources.shared == 2 * 16 * 16 * 4  # two TILE x TILE float tiles, as ptxas reports them


def test_a_shuffle_maps_to_its_shfl_down_sync_line(shared_cu):
    v = capture(resolve_kernel(f"{shared_cu}:warp_sum"), {}, "sm_90")
    assert v.status is Status.OK, v.error
    smap = SourceMap(v)
    sass = v.listings[Stage.SASS].splitlines()
    shfl = [smap.source_line(Stage.SASS, i) for i, t in enumerate(sass) if "SHFL.DOWN" in t]
    assert len(shfl) == 5 and set(shfl) == {_line_of(SHARED, "__shfl_down_sync")}  # unrolled: offsets 16..1


def test_the_tile_diff_shows_the_shared_memory_change(shared_cu, cli):
    result = cli("diff", f"{shared_cu}:tiled_matmul", "-a", "TILE=16", "-b", "TILE=32", "--stage", "sass")
    assert result.exit_code == 0, result.output
    assert "2048" in result.output and "8192" in result.output, result.output[-1500:]


def test_a_missing_nvcc_is_one_line(tmp_path, run_irscope, monkeypatch):
    path = tmp_path / "k.cu"
    path.write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    env_path = ":".join(p for p in os.environ["PATH"].split(":") if not (Path(p) / "nvcc").exists())
    monkeypatch.setenv("PATH", env_path)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "no-toolkit"))
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "no-toolkit"))
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    result = run_irscope("dump", f"{path}:k")
    assert result.returncode == 3, result.stderr
    assert (
        [ln for ln in result.stderr.splitlines() if ln.startswith("irscope: error")]
        and "nvcc (the CUDA toolkit) is not installed here" in result.stderr
        and "Traceback" not in result.stderr
    )
