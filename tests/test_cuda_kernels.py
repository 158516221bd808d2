"""Several kernels in one ``.cu`` file (issue 30): each kernel's facts are its own, and C++ names open it.

The fixture (tests/cuda_fixtures/multi.cu, written for these tests) holds a namespaced pair
(``v1::norm`` with shared memory and barriers, ``v2::norm`` with a warp shuffle from a header
helper two inline levels deep), a shuffle reduction beside a shared-memory one, and a template
instantiated for float and __half. Every count irscope shows for a kernel is checked against
the toolkit's own view of THAT kernel: nvcc's PTX cut at its ``.entry`` by the test itself,
``nvdisasm`` on the whole cubin cut at its section, ``cuobjdump -res-usage`` and ``ptxas -v``
per function, ``c++filt`` for the instantiation opened, ``nvdisasm -gi`` for the inline chains.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.annotating.facts import ptx_facts, sass_facts
from irscope.annotating.findings import findings
from irscope.capturing import capture
from irscope.errors import ExitCode
from irscope.frontends import resolve_kernel
from irscope.ir.dialects import stage_stats
from irscope.ir.sourcemap import SourceMap
from irscope.nvidia.launch import entry_params
from irscope.nvidia.sass import nvdisasm_path
from irscope.session.store import variant_facts
from irscope.types import Stage, Status

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

FIXTURES = Path(__file__).resolve().parent / "cuda_fixtures"
MULTI = FIXTURES / "multi.cu"
HELPERS = FIXTURES / "helpers.cuh"
KERNELS = ["v1::norm", "v2::norm", "shuffle_sum", "shared_sum", "scale<float>", "scale<__half>"]


def _line_of(path: Path, needle: str) -> int:
    return next(i + 1 for i, text in enumerate(path.read_text().splitlines()) if needle in text)


@pytest.fixture(scope="module")
def nvcc_view(tmp_path_factory):
    """The toolkit's own view of the fixture, compiled here as nvcc compiles it, tool by tool."""
    out = tmp_path_factory.mktemp("nvcc")
    proc = subprocess.run(
        ["nvcc", "-arch=sm_90", "-lineinfo", "-cubin", "-Xptxas", "-v", "--keep", "--keep-dir", str(out)]
        + ["-o", str(out / "multi.cubin"), str(MULTI)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    ptx = (out / "multi.ptx").read_text()
    tools = Path(nvdisasm_path()).parent
    sass = subprocess.run(
        [str(tools / "nvdisasm"), "-c", "-gi", str(out / "multi.cubin")], capture_output=True, text=True, check=True
    ).stdout
    usage = subprocess.run(
        [str(tools / "cuobjdump"), "-res-usage", str(out / "multi.cubin")], capture_output=True, text=True, check=True
    ).stdout
    return {"ptx": ptx, "sass": sass, "usage": usage, "ptxas": proc.stderr + proc.stdout}


def _ptx_body(ptx: str, entry: str) -> str:
    start = ptx.index(f".entry {entry}(")
    return ptx[start : ptx.index("\n}", start)]


def _sass_section(sass: str, entry: str) -> str:
    start = sass.index(f".text.{entry}:")
    end = sass.find("//---------------------", start)
    return sass[start : end if end > 0 else len(sass)]


def _ptxas_report(log: str, entry: str) -> dict[str, int]:
    block = log[log.index(f"Function properties for {entry}") :]
    used = re.search(r"Used (\d+) registers, used (\d+) barriers(?:, (\d+) bytes smem)?", block)
    assert used is not None, block[:200]
    return {"registers": int(used.group(1)), "barriers": int(used.group(2)), "shared": int(used.group(3) or 0)}


@pytest.fixture(scope="module")
def variants():
    out = {}
    for name in KERNELS:
        v = capture(resolve_kernel(f"{MULTI}:{name}"), {"fast_math": False}, "sm_90")
        assert v.status is Status.OK, (name, v.error)
        out[name] = v
    return out


@pytest.mark.parametrize("name", KERNELS)
def test_each_kernels_ptx_holds_its_own_entry_and_counts_what_nvccs_entry_holds(name, variants, nvcc_view):
    v = variants[name]
    entry = v.compile_info.options["entry"]
    listing = v.listings[Stage.PTX]
    others = [e for e in re.findall(r"\.entry\s+(\w+)\(", nvcc_view["ptx"]) if e != entry]
    assert len(others) == 5 and not any(other in listing for other in others)
    body = _ptx_body(nvcc_view["ptx"], entry)  # cut by the test from nvcc's own PTX
    mine, theirs = ptx_facts(listing), ptx_facts(body)
    assert len(mine.instructions) == len(theirs.instructions) > 10
    assert len(mine.shuffles) == body.count("shfl.sync")
    assert len(mine.barriers) == body.count("bar.sync")
    assert len(mine.shared) == body.count("ld.shared") + body.count("st.shared")
    assert len(mine.global_accesses("load")) == body.count("ld.global")
    assert len(mine.global_accesses("store")) == body.count("st.global")
    # a launch packs the arguments as the listing's entry declares them: the same as in nvcc's module
    assert entry_params(listing, entry) == entry_params(nvcc_view["ptx"], entry) != []


@pytest.mark.parametrize("name", KERNELS)
def test_each_kernels_sass_is_its_own_section_as_nvdisasm_prints_it(name, variants, nvcc_view):
    v = variants[name]
    entry = v.compile_info.options["entry"]
    listing = v.listings[Stage.SASS]
    assert re.findall(r"^//-+ \.text\.(\S+)", listing, re.M) == [entry]
    section = _sass_section(nvcc_view["sass"], entry)
    opcodes = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", section)
    mine = sass_facts(listing)
    assert stage_stats(Stage.SASS, listing).count == len(opcodes) > 10
    assert len(mine.shuffles) == sum(op.startswith("SHFL") for op in opcodes)
    assert len(mine.barriers) == sum(op.startswith("BAR") for op in opcodes)
    assert len(mine.shared) == sum(op.startswith(("LDS", "STS")) for op in opcodes)
    assert len(mine.global_accesses("load")) == sum(op.startswith("LDG") for op in opcodes)
    assert len(mine.global_accesses("store")) == sum(op.startswith("STG") for op in opcodes)


@pytest.mark.parametrize("name", KERNELS)
def test_each_kernels_registers_barriers_and_shared_memory_are_its_own(name, variants, nvcc_view):
    v = variants[name]
    entry = v.compile_info.options["entry"]
    report = _ptxas_report(nvcc_view["ptxas"], entry)
    usage = re.search(rf"Function {re.escape(entry)}:\s*REG:(\d+)", nvcc_view["usage"])
    assert v.resources.registers == report["registers"] == int(usage.group(1))
    assert v.resources.barriers == report["barriers"]
    assert v.resources.shared == report["shared"]


@pytest.mark.parametrize("name", KERNELS)
def test_a_kernels_ptx_slice_is_a_module_ptxas_assembles_to_the_same_report(name, variants, nvcc_view, tmp_path):
    v = variants[name]
    entry = v.compile_info.options["entry"]
    (tmp_path / "slice.ptx").write_text(v.listings[Stage.PTX])
    proc = subprocess.run(
        ["ptxas", "-v", "--gpu-name=sm_90", str(tmp_path / "slice.ptx"), "-o", str(tmp_path / "slice.cubin")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert _ptxas_report(proc.stderr + proc.stdout, entry) == _ptxas_report(nvcc_view["ptxas"], entry)


def test_a_shuffle_reduction_and_a_shared_memory_one_are_credited_only_with_their_own_code(variants):
    shuffle, shared = variants["shuffle_sum"], variants["shared_sum"]
    for stage in (Stage.PTX, Stage.SASS):
        facts = {
            name: (ptx_facts if stage is Stage.PTX else sass_facts)(v.listings[stage]) for name, v in variants.items()
        }
        assert len(facts["shuffle_sum"].shuffles) == 5 and not facts["shuffle_sum"].barriers
        assert not facts["shuffle_sum"].shared
        assert not facts["shared_sum"].shuffles and len(facts["shared_sum"].barriers) >= 7
    said = {v.kernel.name: " ".join(f.title + " " + f.detail for f in findings(v)) for v in (shuffle, shared)}
    assert "shuffle" in said["shuffle_sum"] and "barrier" not in said["shuffle_sum"]
    assert "barrier" in said["shared_sum"] and "shuffle" not in said["shared_sum"]
    # the busiest line is the kernel's own: the shuffle loop, the shared tree
    assert _line_of(MULTI, "__shfl_down_sync") == _busiest(shuffle)
    assert _line_of(MULTI, "tile[threadIdx.x] +=") == _busiest(shared)


def _busiest(v) -> int:
    smap = SourceMap(v)
    lines = [smap.source_line(Stage.PTX, i) for i, _ in stage_stats(Stage.PTX, v.listings[Stage.PTX]).instructions]
    return max({line for line in lines if line is not None}, key=lines.count)


def test_the_sweep_table_shows_each_kernels_own_widths_and_ptx_lines(variants, cli, tmp_path):
    facts = {name: variant_facts(v) for name, v in variants.items()}
    assert facts["shared_sum"].ldst == "16/4" and facts["shuffle_sum"].ldst == "4/4"
    assert facts["scale<__half>"].ldst == "2/2" and facts["scale<float>"].ldst == "4/4"
    assert all(f.ptx_lines == len(variants[n].listings[Stage.PTX].splitlines()) < 200 for n, f in facts.items())
    result = cli("sweep", f"{MULTI}:shuffle_sum", "-s", "fast_math=0", "--json", "-o", str(tmp_path / "s"))
    assert result.exit_code == 0, result.output
    row = json.loads(next(line for line in result.stdout.splitlines() if line.startswith("{")))
    assert (row["ldst"], row["ptx_lines"]) == ("4/4", facts["shuffle_sum"].ptx_lines)


def test_the_diff_of_the_two_norms_compares_the_two_kernels(cli):
    result = cli("diff", f"{MULTI}:v1::norm", "-b", f"kernel={MULTI}:v2::norm", "-c", "fast_math=0", "--stage", "sass")
    assert result.exit_code == 0, result.output
    assert re.search(r"SHFL\.BFLY\s+0 -> 5", result.stdout) and re.search(r"BAR\.SYNC\S*\s+2 -> 0", result.stdout)


def test_a_namespaced_kernel_opens_by_its_qualified_name_and_a_bare_one_lists_both(cli):
    for name, entry in (("v1::norm", "_ZN2v14normEPKfPfi"), ("::v2::norm", "_ZN2v24normEPKfPfi")):
        assert resolve_kernel(f"{MULTI}:{name}").name == name.removeprefix("::")
        result = cli("dump", f"{MULTI}:{name}", "-c", "fast_math=0", "--json")
        assert result.exit_code == 0 and json.loads(result.stdout)["compile_info"]["options"]["entry"] == entry
    one_line_error(cli("dump", f"{MULTI}:norm"), ExitCode.USAGE, "'norm' is ambiguous", "v1::norm, v2::norm")
    assert resolve_kernel(f"{MULTI}:shuffle_sum").name == "shuffle_sum"


def test_a_template_opens_the_instantiation_named_and_says_which(cli):
    demangled = {}
    for name in ("scale<float>", "scale<__half>", "scale<  __half >"):
        result = cli("dump", f"{MULTI}:{name}", "-c", "fast_math=0", "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        entry = data["compile_info"]["options"]["entry"]
        demangled[data["kernel"]["name"]] = subprocess.run(["c++filt", entry], capture_output=True, text=True).stdout
    assert demangled == {
        "scale<float>": "void scale<float>(float const*, float*, float, int)\n",
        "scale<__half>": "void scale<__half>(__half const*, __half*, float, int)\n",
    }
    header = cli("dump", f"{MULTI}:scale<__half>", "-c", "fast_math=0").stderr
    assert header.startswith("scale<__half> ·")
    one_line_error(cli("dump", f"{MULTI}:scale"), ExitCode.USAGE, "instantiated 2 times", "scale<float>, scale<__half>")
    one_line_error(cli("dump", f"{MULTI}:scale<double>"), ExitCode.USAGE, "scale<float>, scale<__half>")
    one_line_error(cli("dump", f"{MULTI}:shuffle_sum<float>"), ExitCode.USAGE, "not a template")


LAUNCHED = """
// A template instantiated only through a templated launcher: the file's text cannot say for which types.
template <typename T>
__global__ void fill(T* y, T value) { y[threadIdx.x] = value; }

template <typename T>
void launch_fill(T* y, T value) { fill<T><<<1, 32>>>(y, value); }

template void launch_fill<int>(int*, int);
template void launch_fill<double>(double*, double);
"""


def test_a_template_launched_through_a_templated_launcher_is_settled_by_nvccs_entries(tmp_path, cli):
    path = tmp_path / "launched.cu"
    path.write_text(LAUNCHED)
    one_line_error(
        cli("dump", f"{path}:fill"),
        ExitCode.COMPILE_ERROR,
        "nvcc made 2 kernels named fill",
        "fill<int>",
        "fill<double>",
    )
    result = cli("dump", f"{path}:fill<double>", "-c", "fast_math=0", "--stage", "ptx")
    assert result.exit_code == 0 and "st.global.f64" in result.stdout and "st.global.u32" not in result.stdout
    one_line_error(cli("dump", f"{path}:fill<float>"), ExitCode.COMPILE_ERROR, "nvcc made no fill<float>", "fill<int>")
    path.write_text(LAUNCHED.replace("template void launch_fill<double>(double*, double);", ""))
    once = cli("dump", f"{path}:fill", "-c", "fast_math=0")  # made once: opened, and the header says which
    assert once.exit_code == 0 and once.stderr.startswith("fill (fill<int>) ·"), once.stderr


def test_a_shuffle_in_a_header_helper_maps_through_every_inline_level_to_the_kernels_line(variants, nvcc_view):
    v = variants["v2::norm"]
    call = _line_of(MULTI, "warp_allreduce(v)")
    step, loop = _line_of(HELPERS, "__shfl_xor_sync"), _line_of(HELPERS, "shuffle_step(v, offset)")
    smap = SourceMap(v)
    for stage, opcode in ((Stage.PTX, "shfl.sync.bfly"), (Stage.SASS, "SHFL.BFLY")):
        found = [i for i, text in enumerate(v.listings[stage].splitlines()) if opcode in text]
        assert len(found) == 5 and {smap.source_line(stage, i) for i in found} == {call}
        innermost = smap.loc(stage, found[0])  # the innermost location stays: the intrinsic, then the helpers
        assert innermost.file.endswith("sm_30_intrinsics.hpp")
        chain = [(Path(c.file).name, c.line) for c in innermost.callers]
        assert chain == [("helpers.cuh", step), ("helpers.cuh", loop), ("multi.cu", call)]
    # nvdisasm -gi, reading the same cubin nvcc made here, prints the same chain before each SHFL
    section = _sass_section(nvcc_view["sass"], v.compile_info.options["entry"])
    lines = section.splitlines()
    shfl = next(i for i, line in enumerate(lines) if "SHFL.BFLY" in line)
    printed = [line.strip() for line in lines[shfl - 4 : shfl]]
    assert printed[0].startswith('//## File "') and f'helpers.cuh", line {step}' in printed[0]
    assert printed[-1] == f'//## File "{MULTI}", line {call}'
    mine = next(t for t in v.listings[Stage.SASS].splitlines() if "helpers.cuh" in t and "inlined at" in t)
    assert mine.count("inlined at") == 3 and mine.rstrip().endswith(f'inlined at "{MULTI}", line {call}')


def test_a_half_conversion_inlined_two_levels_deep_maps_to_its_kernel_line(variants):
    v = variants["scale<__half>"]
    line = _line_of(MULTI, "static_cast<T>(static_cast<float>(x[i]) * factor)")
    smap = SourceMap(v)
    sass = v.listings[Stage.SASS].splitlines()
    converts = [i for i, t in enumerate(sass) if re.search(r"\bF2FP|HADD2\.F32|\bF2F", t)]
    assert converts and {smap.source_line(Stage.SASS, i) for i in converts} == {line}


CALLS = """
// Written for the test: a kernel calling a __noinline__ helper, another reaching sin's slow path.
__device__ __noinline__ float helper(float x) { return x * x + 1.0f; }
__global__ void trig(double* x) { x[threadIdx.x] = sin(x[threadIdx.x]) / x[threadIdx.x + 1]; }
__global__ void called(float* x) { x[threadIdx.x] = helper(x[threadIdx.x]); }
"""


def _captured(path: Path, text: str, *names: str) -> list:
    """Each kernel ``names`` of ``text`` (written to ``path``), compiled for sm_90 without fast math."""
    path.write_text(text)
    out = [capture(resolve_kernel(f"{path}:{name}"), {"fast_math": False}, "sm_90") for name in names]
    assert all(v.ok for v in out), [v.error for v in out]
    return out


def test_a_kernels_ptx_keeps_the_functions_and_tables_it_uses_and_none_of_its_neighbours(tmp_path):
    trig, called = _captured(tmp_path / "calls.cu", CALLS, "trig", "called")
    t, c = trig.listings[Stage.PTX], called.listings[Stage.PTX]
    assert "__internal_trig_reduction_slowpathd(" in t and "__cudart_i2opi_d[" in t and "_Z6helperf" not in t
    assert ".func  (.param .b32 func_retval0) _Z6helperf(" in c and "__cudart" not in c and "slowpath" not in c
    for v in (trig, called):  # the helpers' SASS lives in the kernel's own section, called from it
        assert "CALL.REL.NOINC" in v.listings[Stage.SASS]
        assert re.findall(r"^//-+ \.text\.(\S+)", v.listings[Stage.SASS], re.M) == [v.compile_info.options["entry"]]
        (tmp_path / "k.ptx").write_text(v.listings[Stage.PTX])
        ptxas = subprocess.run(["ptxas", "--gpu-name=sm_90", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.o")])
        assert ptxas.returncode == 0


INLINE_TWO = '''
from torch.utils.cpp_extension import load_inline

cuda_source = """
__global__ void halve(float* x) { x[threadIdx.x] *= 0.5f; }
__global__ void shuffled(float* x) {
    float v = x[threadIdx.x];
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    x[threadIdx.x] = v;
}
"""
ext = load_inline(name="two", cpp_sources="", cuda_sources=cuda_source, functions=[])
'''


def test_a_load_inline_string_of_two_kernels_gives_each_its_own_ptx_and_sass(tmp_path):
    halve, shuffled = _captured(tmp_path / "two.py", INLINE_TWO, "halve", "shuffled")
    assert "shuffled" not in halve.listings[Stage.PTX] and "halve" not in shuffled.listings[Stage.PTX]
    assert "SHFL" not in halve.listings[Stage.SASS] and "SHFL.BFLY" in shuffled.listings[Stage.SASS]


def test_a_numba_compile_is_one_kernel_already():
    """Numba compiles one @cuda.jit function per PTX module: nothing of a neighbour can be in it."""
    pytest.importorskip("numba.cuda")
    from numba import cuda

    def first(x):
        x[0] = 1.0

    ptx, _ = cuda.compile_ptx(first, "void(float32[:])", cc=(9, 0))
    assert len(re.findall(r"\.entry\s", ptx)) == 1
