"""Hostile CUDA kernel names and sources: ``file.cu:NAME`` where NAME may be C++ (``v1::norm``, ``scale<float>``).

A name is only ever compared with what the file declares and what nvcc emitted: it never reaches
a compiler's command line or a shell. Whatever is typed after the file's colon is one line and exit
2; a ``.cu`` file built to make the name reader slow or confused is read in linear time; a damaged
listing's inline chain is cut short instead of growing with its length.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode, KernelNotFound
from irscope.frontends import resolve_kernel
from irscope.frontends.cuda.names import split_name
from irscope.frontends.cuda.source import kernels
from irscope.ir.locations import ptx_locations
from irscope.types import MAX_INLINE_DEPTH

FIXTURE = Path(__file__).resolve().parents[1] / "cuda_fixtures" / "multi.cu"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def _payloads(tmp_path: Path) -> list[str]:
    mark = tmp_path / "PWNED"
    return [
        "::",
        ":",
        "norm<",
        "norm<float",
        "scale<float>>",
        "scale<(>",
        "v1::",
        "v1:::norm",
        "1norm",
        "n" * 5000,
        "scale<" + "<" * 3000 + "float" + ">" * 3000 + ">",
        f"norm;touch {mark}",
        f"$(touch {mark})",
        f"`touch {mark}`",
        f"scale<float>;touch {mark}",
        f"scale<float)(touch {mark}>",
        "norm\nx",
        "norm\x1b[31m",
        "nörm",
        "norm|cat",
    ]


@pytest.mark.parametrize("index", range(20))
def test_any_name_after_a_cu_files_colon_is_one_line_and_exit_2(cli, tmp_path, index):
    name = _payloads(tmp_path)[index]
    result = cli("dump", f"{FIXTURE}:{name}")
    one_line_error(result, ExitCode.USAGE)
    assert len(result.stderr) < 600  # a 5000-character name is not echoed back whole
    assert "\x1b" not in result.stderr and not (tmp_path / "PWNED").exists()


def test_three_colons_after_the_file_are_a_name_that_is_not_one(cli):
    one_line_error(cli("dump", f"{FIXTURE}:::"), ExitCode.USAGE, "'::' is not a CUDA kernel name")


@pytest.mark.parametrize(
    "name", ["v1::norm", "::v1::norm", "scale<float>", "scale< __half >", "scale<float>", "v2::norm"]
)
def test_the_name_syntax_accepts_what_c_plus_plus_spells(name):
    base, args = split_name(name)
    assert "::" not in base[:2] and (not args or args.startswith("<"))


@pytest.mark.parametrize("name", ["scale<float> ", " v1::norm"])
@needs_nvcc
def test_spaces_around_a_name_are_not_part_of_it(name):
    assert resolve_kernel(f"{FIXTURE}:{name}").name == name.strip()


def test_a_name_too_long_for_a_path_is_refused_without_a_traceback(cli):
    result = cli("dump", f"{FIXTURE}:" + "a" * 100_000)
    one_line_error(result, ExitCode.USAGE, "not a kernel, kernel file or session")
    assert len(result.stderr) < 600


# ---------------------------------------------------------------- sources built to confuse the reader


@pytest.mark.parametrize(
    "source",
    [
        "template <typename T\n__global__ void k(T* x) { }\n",  # a template head that never closes
        "}}}}\n__global__ void k(float* x) { }\n}}}\n",  # braces closing what never opened
        "namespace a { namespace b {\n__global__ void k(float* x) { }\n",  # namespaces never closed
        "namespace inline_ns {\n__global__ void k(float* x) { }\n}\n",  # a namespace whose name starts with inline
        "template <typename T> __global__ void k(T* x) { }\nvoid f() { k<<<<1, 1>>>(0); k<float<<<1,1>>>(0); }\n",
    ],
)
def test_a_malformed_cu_file_still_lists_its_kernels_without_a_traceback(source):
    found = kernels(source)
    assert [decl.name.rpartition("::")[2] for decl in found] == ["k"]


def test_a_cu_file_of_a_hundred_thousand_template_uses_is_read_in_bounded_time():
    head = "template <typename T> __global__ void scale(T* x) { }\n"
    uses = "void f() { " + "scale<scale<scale<" * 30_000 + " }\n" + "scale<float>(0);\n" * 100_000
    start = time.perf_counter()
    (decl,) = kernels(head + uses)
    # past the uses a real file has, the reader stops and leaves the instantiation to nvcc's entries
    assert time.perf_counter() - start < 20 and decl.open_uses
    few = kernels(head + "scale<float>(0);\n" * 100 + "scale<__half>(0);\n")
    assert few[0].instances == ("<float>", "<__half>") and not few[0].open_uses


def test_many_kernels_and_namespaces_are_read_in_linear_time():
    text = "".join(f"namespace n{i} {{\n__global__ void k{i}(float* x) {{ }}\n}}\n" for i in range(20_000))
    start = time.perf_counter()
    found = kernels(text)
    assert time.perf_counter() - start < 20
    assert len(found) == 20_000 and found[-1].name == "n19999::k19999" and found[-1].line == 20_000 * 3 - 1


@pytest.mark.parametrize("opening", ["{", "namespace a {"])
def test_a_hundred_thousand_nested_scopes_are_read_in_linear_time(opening):
    text = opening * 100_000 + "\n__global__ void deep(float* x) { }\n" + "}" * 100_000
    start = time.perf_counter()
    (decl,) = kernels(text)
    assert time.perf_counter() - start < 20 and decl.name.endswith("deep") and decl.name.count("::") <= 64


def test_an_ambiguous_name_lists_every_candidate_on_one_line(tmp_path):
    path = tmp_path / "many.cu"
    path.write_text("".join(f"namespace v{i} {{ __global__ void norm(float* x) {{ }} }}\n" for i in range(40)))
    with pytest.raises(KernelNotFound) as caught:
        resolve_kernel(f"{path}:norm")
    message = str(caught.value)
    assert "\n" not in message and "v0::norm" in message and "v39::norm" in message
    assert resolve_kernel(f"{path}:v17::norm").name == "v17::norm"


# ---------------------------------------------------------------- listings read back from data


def test_a_ptx_listing_of_a_hundred_thousand_chained_inline_levels_keeps_each_chain_short():
    lines = ['.file 1 "/k.cu"', ".visible .entry k()", "{", ".loc 1 1 1"]
    lines += [
        f".loc 1 {n} 1, function_name $L{n}, inlined_at 1 {n - 1} 1\n\tadd.s32 %r1, %r1, 1;" for n in range(2, 100_000)
    ]
    start = time.perf_counter()
    locs = ptx_locations("\n".join([*lines, "}"]))
    assert time.perf_counter() - start < 20
    deepest = max((loc for loc in locs if loc is not None), key=lambda loc: len(loc.callers))
    assert len(deepest.callers) <= MAX_INLINE_DEPTH and deepest.callers[-1].line == 1  # the outermost frame stays
