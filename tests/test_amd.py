"""AMD targets: the same Triton kernels compiled for gfx942 (CDNA3, 64-lane waves) and gfx1100 (RDNA3, 32).

Three kernels written for the tests (an elementwise scaled add, a row softmax, a tl.dot matmul) are
captured by irscope and, in a separate process, compiled by ``triton.compile`` itself from an ASTSource
built by hand: every stage and the HSACO must be the same bytes. Resources are held to the HSACO's
metadata as ``llvm-readelf --notes`` prints it, and the source map to the AMDGCN's own ``.loc`` lines.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from amd_reference import triton_compiles
from written_kernels import MM_UNIT_B, ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE, SCALED_ADD, TILE_MM

from irscope.arch import CaptureMode, Target, Vendor, normalise_arch, wave_size
from irscope.capturing import capture
from irscope.errors import ParameterError
from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.stages import Stage

ARCHS = ("gfx942", "gfx1100")
SCALED_ADD_SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32"
# name -> (source, signature, constexprs, the types triton.compile is given, the divisible-by-16 arguments)
KERNELS = {
    "scaled_add": (
        SCALED_ADD,
        SCALED_ADD_SIGNATURE,
        {"BLOCK": 1024},
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32", "BLOCK": "constexpr"},
        [0, 1, 2, 3],
    ),
    "row_softmax": (
        ROW_SOFTMAX,
        ROW_SOFTMAX_SIGNATURE,
        {"BLOCK": 1024},
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "stride": "i32", "BLOCK": "constexpr"},
        [0, 1, 3],
    ),
    "tile_mm": (
        TILE_MM,
        MM_UNIT_B,
        {"BM": 64, "BN": 64, "BK": 32},
        {
            **{n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")},
            **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk")},
            "stride_bn": "constexpr",
            "stride_cm": "i32",
            **{n: "constexpr" for n in ("BM", "BN", "BK")},
        },
        [0, 1, 2, 3, 4, 5, 6, 7, 9],
    ),
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """``{(kernel, arch): (irscope's variant, triton.compile's asm)}`` for the three kernels on both targets."""
    folder = tmp_path_factory.mktemp("amd")
    jobs, variants = [], {}
    for name, (source, signature, constants, types, divisible) in KERNELS.items():
        path = folder / f"{name}.py"
        path.write_text(source)
        kernel = resolve_kernel(f"{path}:{name}", signature)
        for arch in ARCHS:
            overrides = {k: str(v) for k, v in constants.items()}
            variants[name, arch] = capture(kernel, overrides, arch, use_cache=False, compile_timeout=None)
            # irscope's defaults (num_warps 4, num_stages 3, as a launch on NVIDIA gets them) said to Triton
            options = {k: variants[name, arch].config.options[k] for k in ("num_warps", "num_stages")}
            jobs.append((name, str(path), types, constants, divisible, options, arch, wave_size(arch)))
    reference = triton_compiles(jobs, folder)
    return {key: (variant, reference[f"{key[0]}@{key[1]}"]) for key, variant in variants.items()}


CASES = [(name, arch) for name in KERNELS for arch in ARCHS]


def test_amd_archs_are_read_beside_nvidia_ones_with_their_wave_sizes():
    assert normalise_arch("GFX942") == "gfx942" and normalise_arch("sm90a") == "sm_90"
    assert [wave_size(a) for a in ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "sm_90")] == [64] * 3 + [32] * 3
    target = Target.for_arch("gfx1100")
    assert (target.arch, target.vendor, target.mode, target.wave_size) == ("gfx1100", Vendor.AMD, CaptureMode.AOT, 32)
    with pytest.raises(ParameterError, match=r"unknown AMD arch 'gfx9999'; Triton's HIP backend compiles for gfx90a"):
        normalise_arch("gfx9999")
    with pytest.raises(ParameterError, match="CUDA C.. compiles only for NVIDIA archs"):
        target.nvidia_capability("CUDA C++")


@pytest.mark.parametrize("name,arch", CASES)
def test_every_stage_and_the_hsaco_are_triton_compiles_own_bytes(compiled, name, arch):
    variant, reference = compiled[name, arch]
    assert variant.ok, variant.error
    for key, stage in (("ttir", Stage.TTIR), ("ttgir", Stage.TTGIR), ("llir", Stage.LLIR), ("amdgcn", Stage.AMDGCN)):
        assert variant.listings[stage] == reference[key], f"{key} differs"
    assert variant.cubin == bytes.fromhex(reference["hsaco"]) and variant.binary_name == "hsaco"
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"' in variant.listings[Stage.AMDGCN]
    # NVIDIA's stages are absent with a reason, not failures
    assert Stage.PTX not in variant.listings and Stage.SASS not in variant.listings
    assert variant.stage_errors[Stage.PTX] == f"not produced for {arch}: PTX is a stage of NVIDIA GPUs only"
    assert variant.compile_info.threads_per_block == wave_size(arch) * 4


@pytest.mark.skipif(shutil.which("llvm-readelf") is None, reason="llvm-readelf is not installed")
@pytest.mark.parametrize("name,arch", CASES)
def test_resources_are_the_hsaco_metadata_as_llvm_readelf_prints_it(compiled, tmp_path, name, arch):
    variant, _ = compiled[name, arch]
    path = tmp_path / "kernel.hsaco"
    path.write_bytes(variant.cubin)
    notes = subprocess.run(["llvm-readelf", "--notes", str(path)], capture_output=True, text=True, check=True).stdout
    said = {k: int(v) for k, v in re.findall(r"^\s+-? ?\.(\w+_(?:count|size)):\s+(\d+)$", notes, re.M)}
    r = variant.resources
    assert (r.registers, r.sgprs, r.agprs) == (
        said["vgpr_count"],
        said["sgpr_count"],
        said.get("agpr_count", 0),
    )  # RDNA has none to count
    assert (r.vgpr_spills, r.sgpr_spills, r.scratch) == (
        said["vgpr_spill_count"],
        said["sgpr_spill_count"],
        said["private_segment_fixed_size"],
    )
    # LDS: Triton's dynamic request plus the static group segment (0 here: Triton allocates it all at launch)
    assert said["group_segment_fixed_size"] == 0 and r.shared == (256 * 64 if name == "tile_mm" else r.shared)
    # the YAML copy of the metadata at the end of the AMDGCN text agrees
    assert re.search(rf"^\s+\.vgpr_count:\s+{r.registers}$", variant.listings[Stage.AMDGCN], re.M)


def test_the_matmul_uses_the_matrix_units_of_each_target(compiled):
    cdna, _ = compiled["tile_mm", "gfx942"]
    rdna, _ = compiled["tile_mm", "gfx1100"]
    assert "v_mfma_f32_32x32x8_f16" in cdna.listings[Stage.AMDGCN] and cdna.resources.agprs > 0
    assert "v_wmma_f32_16x16x16_f16" in rdna.listings[Stage.AMDGCN] and rdna.resources.agprs == 0
    assert "#ttg.amd_mfma" in cdna.listings[Stage.TTGIR] and "#ttg.amd_wmma" in rdna.listings[Stage.TTGIR]


@pytest.mark.parametrize("arch", ARCHS)
def test_the_source_map_joins_each_tl_load_line_and_the_amdgcn_loads_both_ways(compiled, arch):
    variant, _ = compiled["scaled_add", arch]
    text = variant.listings[Stage.AMDGCN]
    lines = text.splitlines()
    source = variant.listings[Stage.SOURCE].splitlines()
    load_lines = [i + 1 for i, line in enumerate(source) if "tl.load(" in line]
    assert len(load_lines) == 2
    smap = SourceMap(variant)
    for line in load_lines:
        opcodes = {lines[i].split()[0] for i in smap.lines_for(Stage.AMDGCN, line) if lines[i].startswith("\t")}
        assert any(re.match(r"(global|buffer)_load_", op) for op in opcodes), (line, opcodes)
    # and back: every global load of the listing belongs to one of the two tl.load lines
    loads = [i for i, line in enumerate(lines) if re.match(r"\t(global|buffer)_load_", line)]
    assert loads and {smap.source_line(Stage.AMDGCN, i) for i in loads} <= set(load_lines)


def test_amd_launch_options_reach_the_hip_backend_and_nvidia_ones_are_refused(compiled, tmp_path):
    path = tmp_path / "scaled_add.py"
    path.write_text(SCALED_ADD)
    kernel = resolve_kernel(f"{path}:scaled_add", SCALED_ADD_SIGNATURE)
    variant = capture(kernel, {"BLOCK": "256", "waves_per_eu": "2"}, "gfx942", use_cache=False, compile_timeout=None)
    assert variant.compile_info.options["waves_per_eu"] == 2
    assert '"amdgpu-waves-per-eu"="2, 2"' in variant.listings[Stage.LLIR]  # the attribute LLVM allocates by
    with pytest.raises(ParameterError, match="^maxnreg is a launch option of NVIDIA GPUs only; gfx942"):
        capture(kernel, {"BLOCK": "256", "maxnreg": "64"}, "gfx942", use_cache=False, compile_timeout=None)
    with pytest.raises(ParameterError, match="^kpack is a launch option of AMD GPUs only; sm_90"):
        capture(kernel, {"BLOCK": "256", "kpack": "2"}, "sm_90", use_cache=False, compile_timeout=None)


def test_dump_prints_the_amdgcn_and_refuses_an_unknown_gfx_in_one_line(compiled, tmp_path):
    variant, _ = compiled["row_softmax", "gfx1100"]
    kernel = f"{variant.kernel.file}:row_softmax"
    args = ["dump", kernel, "-S", ROW_SOFTMAX_SIGNATURE, "-c", "BLOCK=1024", "--arch", "gfx1100"]
    done = subprocess.run(
        [sys.executable, "-m", "irscope", *args, "--stage", "amdgcn", "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip("\n") == variant.listings[Stage.AMDGCN].rstrip("\n")
    assert re.search(r"gfx1100 \(aot\) · \d+ VGPRs \(0 AGPRs\) · \d+ SGPRs", done.stderr)
    assert (tmp_path / "out" / "row_softmax.hsaco").read_bytes() == variant.cubin
    bad = subprocess.run([sys.executable, "-m", "irscope", *args[:-1], "gfx1234"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown AMD arch 'gfx1234'" in bad.stderr
