"""Capturing the built-in kernels with the real Triton, ahead of time, on a CPU machine."""

from __future__ import annotations

import re

import pytest
import triton

from irscope.capturing import capture
from irscope.frontends import builtin_kernels, resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import CaptureMode, Stage, Status

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

BUILTINS = ["square_kernel", "add_kernel", "gelu_kernel", "softmax_kernel", "matmul_kernel"]
CUDA_BUILTINS = ["square_matrix_kernel", "gelu_tanh_kernel"]  # tests/test_cuda.py
NUMBA_BUILTINS = ["gelu_numba_kernel", "square_numba_kernel"]  # listed without numba: found with ast


def test_every_builtin_kernel_is_listed():
    assert sorted(ref.name for ref in builtin_kernels()) == sorted(BUILTINS + CUDA_BUILTINS + NUMBA_BUILTINS)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_kernel_compiles_with_every_stage_non_empty(name, arch):
    v = capture(name, arch=arch)
    assert v.status is Status.OK, v.error
    for stage in (s for s in Stage.all() if s.spec.made_for(v.vendor.value, v.frontend)):  # not CuTe DSL's IR
        if v.made_for_vendor(stage):
            assert v.listings[stage].strip(), f"{stage} is empty"
        elif stage.spec.frontends:  # another language's stage (Gluon's IR): not one a Triton kernel has
            assert "triton" not in stage.spec.frontends and stage not in v.listings
        else:
            assert stage not in v.listings and v.stage_errors[stage].endswith("is a stage of AMD GPUs only")
    assert v.cubin and v.cubin[:4] == b"\x7fELF"
    assert v.compile_info.mode is CaptureMode.AOT and v.arch == arch
    assert v.compile_info.compiler == f"triton {triton.__version__}"
    assert v.resources.registers and v.resources.registers > 0
    assert v.resources.spill_stores == 0 and v.resources.stack_frame == 0
    assert f".target sm_{arch[3:]}" in v.listings[Stage.PTX]


def _line_of(text: str, needle: str) -> int:
    return next(i + 1 for i, line in enumerate(text.splitlines()) if needle in line)


def test_row_times_row_maps_to_mulf_in_ttir_and_mul_f32_in_ptx():
    v = capture("square_kernel", arch="sm_90")
    smap = SourceMap(v)
    line = _line_of(v.listings[Stage.SOURCE], "square_output = row * row")
    ttir = [v.listings[Stage.TTIR].splitlines()[i] for i in smap.lines_for(Stage.TTIR, line)]
    ptx = [v.listings[Stage.PTX].splitlines()[i] for i in smap.lines_for(Stage.PTX, line)]
    assert any("arith.mulf" in text for text in ttir), ttir
    assert any(re.search(r"\bmul(\.rn)?\.f32\b", text) for text in ptx), ptx
    # and back: the mul.f32 lines point at that Python line
    for i, text in enumerate(v.listings[Stage.PTX].splitlines()):
        if re.search(r"\tmul(\.rn)?\.f32\b", text):
            assert smap.source_line(Stage.PTX, i) == line


def test_every_stage_maps_lines_back_to_the_kernel_file():
    v = capture("softmax_kernel", arch="sm_90")
    smap = SourceMap(v)
    for stage in filter(v.made_for_vendor, Stage.compiled()):
        mapped = {smap.source_line(stage, i) for i in range(len(v.listings[stage].splitlines()))} - {None, 0}
        assert mapped, stage
        assert all(1 <= n <= len(v.listings[Stage.SOURCE].splitlines()) for n in mapped)


def test_inlined_reductions_map_to_the_calling_line_in_every_stage():
    v = capture("softmax_kernel", arch="sm_90")
    smap = SourceMap(v)
    line = _line_of(v.listings[Stage.SOURCE], "tl.max(row, axis=0)")
    for stage in (Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS):
        lines = smap.lines_for(stage, line)
        assert lines, stage
        inlined = [smap.loc(stage, i) for i in lines if smap.loc(stage, i).file.endswith("standard.py")]
        assert inlined, f"{stage}: no line inlined from triton/language/standard.py"


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_reqntid_is_32_times_num_warps(num_warps):
    v = capture("square_kernel", {"num_warps": num_warps}, arch="sm_90")
    m = re.search(r"\.(?:reqntid|maxntid)\s+(\d+)", v.listings[Stage.PTX])
    assert m and int(m.group(1)) == 32 * num_warps


def test_aligned_vector_add_gets_v4_loads_and_misaligned_does_not():
    aligned = capture("add_kernel", arch="sm_90")
    misaligned = capture("add_kernel", {"offset": 1}, arch="sm_90")
    assert "ld.global.v4.b32" in aligned.listings[Stage.PTX]
    assert "ld.global.v4" not in misaligned.listings[Stage.PTX]
    assert "ld.global.b32" in misaligned.listings[Stage.PTX]
    assert set(aligned.compile_info.divisible_by_16) >= {"x_ptr", "y_ptr", "output_ptr"}
    assert not {"x_ptr", "y_ptr", "output_ptr"} & set(misaligned.compile_info.divisible_by_16)


def test_matmul_uses_wgmma_on_sm90_and_mma_on_sm80_with_shared_memory():
    hopper = capture("matmul_kernel", arch="sm_90")
    ampere = capture("matmul_kernel", arch="sm_80")
    assert "wgmma.mma_async" in hopper.listings[Stage.PTX]
    assert "mma.sync.aligned" in ampere.listings[Stage.PTX]
    assert "HGMMA" in hopper.listings[Stage.SASS] and "HMMA" in ampere.listings[Stage.SASS]
    assert hopper.resources.shared > 0 and ampere.resources.shared > 0


def test_block_size_that_is_not_a_power_of_two_fails_in_the_frontend_with_the_line():
    v = capture("square_kernel", {"BLOCK_SIZE": 1000}, arch="sm_90")
    assert v.status is Status.FAILED
    assert v.error.stage == "ttir (frontend)"
    assert "power of 2" in v.error.message
    ref = resolve_kernel("square_kernel")
    line = _line_of(open(ref.file).read(), "tl.arange(0, BLOCK_SIZE)")
    assert f"square.py:{line}:" in v.error.message
    assert Stage.PTX in v.stage_errors and Stage.SOURCE in v.listings


def test_too_much_shared_memory_is_a_failed_variant_that_keeps_its_stages():
    v = capture("matmul_kernel", {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "num_stages": 5}, arch="sm_90")
    assert v.status is Status.FAILED and v.error.stage == "resources"
    assert "shared memory" in v.error.message and "232448" in v.error.message
    assert Stage.PTX in v.listings and Stage.SASS in v.listings


def test_the_same_variant_again_comes_from_the_cache_unchanged(cold_cache):
    from irscope.capturing import capture_many
    from irscope.frontends.config import resolve_config

    ref = resolve_kernel("gelu_kernel")
    config = resolve_config(ref, {"BLOCK_SIZE": 512})
    first = next(capture_many(ref, [config], "sm_90"))
    again = next(capture_many(ref, [config], "sm_90"))
    assert again.cached
    assert again.variant.listings == first.variant.listings
    assert again.variant.resources == first.variant.resources
    assert again.variant.cubin == first.variant.cubin


def test_a_changed_config_misses_the_cache(cold_cache):
    from irscope.capturing import capture_many
    from irscope.frontends.config import resolve_config

    ref = resolve_kernel("gelu_kernel")
    first = next(capture_many(ref, [resolve_config(ref, {"BLOCK_SIZE": 256})], "sm_90"))
    # the cache is this test's own (cold_cache): no other test, nor an earlier CI run, has cached it
    other = next(capture_many(ref, [resolve_config(ref, {"BLOCK_SIZE": 256, "num_warps": 1})], "sm_90"))
    assert not other.cached and other.variant.config != first.variant.config
    assert ".reqntid 32" in other.variant.listings[Stage.PTX]


def test_parallel_capture_yields_every_variant_once():
    from irscope.capturing import capture_many
    from irscope.frontends.config import resolve_config

    ref = resolve_kernel("add_kernel")
    configs = [resolve_config(ref, {"BLOCK_SIZE": b, "num_warps": w}) for b in (128, 256, 512) for w in (1, 2)]
    got = list(capture_many(ref, configs, "sm_86", jobs=2, use_cache=False))
    assert sorted(c.index for c in got) == list(range(len(configs)))
    for c in got:
        assert c.variant.ok and c.variant.config == configs[c.index]
        assert f".reqntid {32 * configs[c.index].options['num_warps']}" in c.variant.listings[Stage.PTX]
        assert Stage.SASS in c.variant.listings


SHIFT = """\
import triton
import triton.language as tl


@triton.jit
def shift_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask) + 1.0, mask=mask)
"""


def test_a_listing_compiled_at_another_path_maps_to_the_kernel_file(tmp_path):
    """Triton's cache key holds a kernel's text and first line, not its path: a program run in a second folder
    gets the listing compiled in the first (seen under `irscope run`). Its lines still map; a listing from a file
    of another name does not."""
    import dataclasses

    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "shift.py").write_text(SHIFT)
    (tmp_path / "other.py").write_text(SHIFT)
    v = capture(f"{first / 'shift.py'}:shift_kernel", {"BLOCK": 256}, arch="sm_90", signature="*fp32,*fp32,i32")
    assert v.status is Status.OK, v.error
    store = _line_of(SHIFT, "tl.store(")
    own = SourceMap(v)
    for seen_from, expected in ((second / "shift.py", True), (tmp_path / "other.py", False)):
        moved = dataclasses.replace(v, kernel=dataclasses.replace(v.kernel, file=str(seen_from)))
        assert str(first) in moved.listings[Stage.PTX] and str(seen_from) not in moved.listings[Stage.PTX]
        smap = SourceMap(moved)
        for stage in (Stage.TTIR, Stage.LLIR, Stage.PTX, Stage.SASS):
            if expected:
                assert smap.own_lines(stage) == own.own_lines(stage), stage
                assert smap.lines_for(stage, store) == own.lines_for(stage, store) != [], stage
            else:
                assert set(smap.own_lines(stage)) == {None} and smap.lines_for(stage, store) == [], stage
