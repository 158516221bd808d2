"""Findings that are right (issue 16), on real compiles of kernels written for the test.

Each finding comes from one stage's own instructions and cites lines of that stage; widths come from
each instruction's own size; mixed widths are reported as mixed; masked counts include copies that
zero-fill; occupancy names every binding limit, checked against NVIDIA's own occupancy calculator
(cuda_occupancy.h, compiled here); advice blames only arguments that reach an address, in the role
they play there; every line of a region op and of compiler-made code maps to a real Python line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from written_kernels import MM_STRIDED_B, MM_UNIT_B, TILE_MM

from irscope.annotating import annotate
from irscope.annotating.findings import findings, kernel_occupancy
from irscope.annotating.occupancy import occupancy, sm_limits
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir.dialects import stage_stats
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage

SCALE_COLS = textwrap.dedent("""
    import triton
    import triton.language as tl


    @triton.jit
    def scale_cols(x_ptr, y_ptr, n, stride_x, alpha, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs * stride_x, mask=mask)
        tl.store(y_ptr + offs, x * alpha, mask=mask)
""")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("findings")
    (folder / "scale.py").write_text(SCALE_COLS)
    (folder / "mm.py").write_text(TILE_MM)
    return folder


def _scale(folder, arch="sm_90"):
    ref = resolve_kernel(f"{folder / 'scale.py'}:scale_cols", "*fp32:16, *fp32:16, i32:16, i32, fp32")
    return capture(ref, {"BLOCK": 1024}, arch)


def _mm(folder, config, arch="sm_90", signature=MM_UNIT_B):
    ref = resolve_kernel(f"{folder / 'mm.py'}:tile_mm", signature)
    variant = capture(ref, {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4, "num_stages": 3, **config}, arch)
    assert variant.ok, variant.error
    return variant


def _by_kind(found):
    out = {}
    for f in found:
        out.setdefault(f.kind, []).append(f)
    return out


# ------------------------------------------------- each stage's findings cite that stage's own lines

SASS_KIND = {
    "vectorization": re.compile(r"\b(?:LDG|STG|LDGSTS)\b"),
    "async-copy": re.compile(r"\bLDGSTS\b"),
    "tensor-cores": re.compile(r"\b(?:HMMA|HGMMA)\b"),
    "masking": re.compile(r"@!?P\d .*\b(?:LDG|STG)\b|\bLDGSTS\b.*, !?P\d ;"),
}
PTX_KIND = {
    "vectorization": re.compile(r"\b(?:ld|st)\.global|cp\.async\.c[ag]\b"),
    "async-copy": re.compile(r"cp\.async\.c[ag]\b"),
    "tensor-cores": re.compile(r"\b(?:wgmma\.mma_async|mma\.sync)\b"),
    "masking": re.compile(r"@%p\d+ (?:ld|st)\.global|cp\.async\.c[ag]\S* .*, %r\d+;"),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("stage,kinds", [(Stage.SASS, SASS_KIND), (Stage.PTX, PTX_KIND)])
def test_findings_cite_lines_of_their_own_stage_that_are_what_they_say(folder, stage, kinds, arch):
    """`annotate --stage sass --findings` printed PTX line numbers as SASS lines (UIADD3 and FMUL for square's
    loads; past the end of a matmul's listing)."""
    for variant in (_mm(folder, {}, arch), _scale(folder, arch)):
        result = annotate(variant, stage)
        listing = variant.listings[stage].splitlines()
        checked = 0
        for f in result.findings:
            assert f.stage is stage, f.title
            assert all(0 <= i < len(listing) for i in f.lines), (f.title, max(f.lines), len(listing))
            pattern = kinds.get(f.kind)
            if pattern is not None and f.lines:
                wrong = [listing[i].strip() for i in f.lines if not pattern.search(listing[i])]
                assert not wrong, (f.title, wrong[:3])
                checked += 1
        assert checked >= 2, [f.title for f in result.findings]


def test_ldgsts_moves_sixteen_bytes(folder):
    """The diff summary called LDGSTS.E.BYPASS.128 a 4-byte "widest load": it copies 16 bytes."""
    variant = _mm(folder, {}, "sm_80")
    sass = variant.listings[Stage.SASS]
    assert "LDGSTS.E.BYPASS.128" in sass or "LDGSTS.E.BYPASS.LTC128B.128" in sass
    stats = stage_stats(Stage.SASS, sass)
    copies = [a for a in stats.global_accesses if a.opcode.startswith("LDGSTS")]
    assert copies and {a.bytes for a in copies} == {16}
    assert stats.widest("load") == 16
    fast = stage_stats(Stage.SASS, sass, positions=False)  # the summary's own scan of stages not diffed
    assert fast.widest("load") == 16 and fast.predicated_accesses() == stats.predicated_accesses()


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
def test_mixed_widths_are_reported_as_mixed_with_each_widths_share(folder, stage):
    """B's column stride is a plain i32: B is read 2 bytes at a time beside A's 16-byte copies. That was
    called "vectorised: 16 bytes per thread"."""
    variant = _mm(folder, {}, signature=MM_STRIDED_B)
    stats = stage_stats(stage, variant.listings[stage])
    shares = stats.width_shares("load")
    assert set(shares) == {16, 2}, shares
    f = _by_kind(findings(variant, stage))["vectorization"][0]
    assert f.severity == "warn" and "mix" in f.title, f.title
    assert f"16 B {100 * shares[16]:.0f}%" in f.title and f"2 B {100 * shares[2]:.0f}%" in f.title
    listing = variant.listings[stage].splitlines()
    narrow = {a.index for a in stats.global_accesses if a.kind == "load" and a.bytes == 2}
    assert set(f.lines) == narrow  # the narrow accesses are the ones cited
    assert all(("b16" in listing[i] or "U16" in listing[i]) for i in f.lines)
    # and why: B's column stride is not known to be 1 (not "not a multiple of 16")
    assert "stride_bn multiplies the element index and is not known to be 1" in f.detail
    unit = _by_kind(findings(_mm(folder, {}), stage))["vectorization"][0]
    assert unit.severity == "info" and "vectorised: 16 bytes" in unit.title  # the same kernel with stride_bn = 1


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
def test_masked_counts_include_zero_filling_copies_and_copies_exclude_their_groups(folder, stage):
    """ "16 of 64 global accesses are masked" missed the cp.async masked through src-size; "56 asynchronous
    copies" counted commit/wait groups as copies."""
    variant = _mm(folder, {}, "sm_80")
    listing = variant.listings[stage].splitlines()
    copy = re.compile(r"cp\.async\.c[ag]\.shared\.global" if stage == Stage.PTX else r"\bLDGSTS\b")
    group = re.compile(
        r"cp\.async\.(?:commit_group|wait_group|wait_all)" if stage == Stage.PTX else r"\b(?:LDGDEPBAR|DEPBAR)\b"
    )
    copies = [i for i, line in enumerate(listing) if copy.search(line)]
    groups = [i for i, line in enumerate(listing) if group.search(line)]
    assert copies and groups
    found = _by_kind(findings(variant, stage))
    async_copy = found["async-copy"][0]
    assert async_copy.title.startswith(f"{len(copies)} asynchronous copies")
    assert f"{len(groups)} commit/wait" in async_copy.title
    assert sorted(async_copy.lines) == copies
    masking = found["masking"][0]
    assert set(copies) <= set(masking.lines)  # every copy reads under the K mask: zero-filled past it
    assert f"for the {len(copies)} asynchronous copies" in masking.detail


def test_vectorisation_advice_blames_only_what_reaches_the_address_in_its_role(folder):
    """The advice blamed a float scalar (alpha), and said a unit stride passed as a plain i32 was "not known to
    be a multiple of 16" when the point is that it is not known to be 1."""
    f = _by_kind(findings(_scale(folder)))["vectorization"][0]
    assert "not vectorised" in f.title
    assert "alpha" not in f.detail
    assert "stride_x multiplies the element index and is not known to be 1" in f.detail
    assert "multiple of 16" not in f.detail  # n, x_ptr and y_ptr are declared multiples of 16 / aligned


# ------------------------------------------------- occupancy: every limit, checked against NVIDIA's calculator

OCC_PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include "cuda_occupancy.h"
int main(int argc, char **argv) {
    cudaOccDeviceProp p;
    p.computeMajor = atoi(argv[1]); p.computeMinor = atoi(argv[2]);
    p.maxThreadsPerBlock = 1024; p.maxThreadsPerMultiprocessor = atoi(argv[3]);
    p.regsPerBlock = 65536; p.regsPerMultiprocessor = 65536; p.warpSize = 32;
    p.sharedMemPerBlock = 49152; p.sharedMemPerMultiprocessor = atoi(argv[4]);
    p.numSms = 1; p.sharedMemPerBlockOptin = atoi(argv[5]); p.reservedSharedMemPerBlock = atoi(argv[6]);
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = 1024; a.numRegs = atoi(argv[7]); a.sharedSizeBytes = 0;
    a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin; a.numBlockBarriers = 1;
    cudaOccDeviceState s;
    cudaOccResult r;
    int e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, atoi(argv[8]), atoi(argv[9]));
    printf("%d %d %u\n", e, r.activeBlocksPerMultiprocessor, r.limitingFactors);
    return 0;
}
"""


def _toolkit_include(nvcc: str) -> Path | None:
    """The toolkit's include folder, as nvcc itself passes it to the host compiler (nvcc may be a wrapper)."""
    dry = subprocess.run(
        [nvcc, "-dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"], capture_output=True, text=True
    )
    for folder in re.findall(r'-I"?([^" ]+)', dry.stdout + dry.stderr):
        if (Path(folder) / "cuda_occupancy.h").exists():
            return Path(folder)
    return None


LIMIT_BITS = {"threads": 0x1, "registers": 0x2, "shared memory": 0x4, "blocks": 0x8}


@pytest.fixture(scope="module")
def nvidia_occupancy(tmp_path_factory):
    """NVIDIA's occupancy calculator (the CUDA toolkit's header-only cuda_occupancy.h), as a program."""
    nvcc, compiler = shutil.which("nvcc"), shutil.which("g++") or shutil.which("c++")
    if nvcc is None or compiler is None:
        pytest.skip("needs the CUDA toolkit's cuda_occupancy.h and a C++ compiler")
    include = _toolkit_include(nvcc)
    if include is None:
        pytest.skip("nvcc names no include folder with cuda_occupancy.h")
    folder = tmp_path_factory.mktemp("occ")
    (folder / "occ.cpp").write_text(OCC_PROGRAM)
    subprocess.run([compiler, "-O1", f"-I{include}", "occ.cpp", "-o", "occ"], cwd=folder, check=True)

    def run(capability: int, registers: int, threads: int, shared: int) -> tuple[int, set[str]]:
        limits = sm_limits(capability)
        out = subprocess.run(
            [
                str(folder / "occ"),
                str(capability // 10),
                str(capability % 10),
                str(limits.max_threads),
                str(limits.shared),
                str(limits.shared_per_block),
                str(limits.reserved_shared_per_block),
                str(registers),
                str(threads),
                str(shared),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        error, blocks, bits = (int(x) for x in out.stdout.split())
        assert error == 0
        return blocks, {name for name, bit in LIMIT_BITS.items() if bits & bit}

    return run


# (config, arch, the limit that binds): three tl.dot configs whose binding limit differs
OCCUPANCY_CASES = [
    ({"BM": 64, "BN": 64, "BK": 32, "num_warps": 4, "num_stages": 2}, "sm_90", "registers"),
    ({"BM": 64, "BN": 64, "BK": 128, "num_warps": 4, "num_stages": 4}, "sm_90", "shared memory"),
    # 1536 threads an SM on sm_89: with registers capped at 32 a thread, only threads bind
    ({"BM": 16, "BN": 16, "BK": 16, "num_warps": 4, "num_stages": 1, "maxnreg": 32}, "sm_89", "threads"),
]


@pytest.mark.parametrize("config,arch,binding", OCCUPANCY_CASES)
def test_occupancy_names_the_binding_limit_as_nvidias_calculator_does(folder, nvidia_occupancy, config, arch, binding):
    variant = _mm(folder, config, arch)
    occ = kernel_occupancy(variant)
    blocks, limiting = nvidia_occupancy(occ.capability, occ.registers, occ.threads, occ.shared)
    assert occ.blocks == blocks and set(occ.binding) == limiting, (occ.by, blocks, limiting)
    assert occ.binding == (binding,), occ.by
    f = _by_kind(findings(variant))["occupancy"][0]
    if binding == "threads":  # every warp slot is taken: nothing to change
        assert f.title == f"full occupancy: {occ.warps} warps per SM" and occ.warps == occ.max_warps
    else:
        assert f.title.endswith(f"limited by {binding}"), f.title
        assert f"For {blocks + 1} blocks per SM" in f.detail  # what would change it


def test_a_tie_names_both_limits_and_says_easing_one_gains_nothing(folder, nvidia_occupancy):
    """128x256 tiles, 3 stages: registers and shared memory each allow one block. The old finding blamed
    registers alone."""
    variant = _mm(folder, {"BM": 128, "BN": 256, "BK": 64, "num_warps": 8, "num_stages": 3})
    occ = kernel_occupancy(variant)
    blocks, limiting = nvidia_occupancy(occ.capability, occ.registers, occ.threads, occ.shared)
    assert (occ.blocks, set(occ.binding)) == (blocks, limiting) == (1, {"registers", "shared memory"})
    f = _by_kind(findings(variant))["occupancy"][0]
    assert "limited by registers and shared memory" in f.title
    assert "easing only one of them gains nothing" in f.detail


@pytest.mark.parametrize("capability", [80, 86, 89, 90, 100, 120])
def test_occupancy_rules_match_nvidias_calculator_across_shapes(nvidia_occupancy, capability):
    for registers in (24, 32, 40, 64, 96, 128, 168, 192, 232, 255):
        for threads in (32, 64, 128, 256, 512, 1024):
            for shared in (0, 4096, 49152, 98304, 100352):
                occ = occupancy(capability, registers, threads, shared)
                blocks, limiting = nvidia_occupancy(capability, registers, threads, shared)
                assert occ.blocks == blocks, (capability, registers, threads, shared, occ.by, blocks)
                if blocks:
                    assert set(occ.binding) == limiting, (capability, registers, threads, shared, occ.by, limiting)


# ------------------------------------------------- the source map


def test_region_ops_map_to_their_python_line(folder):
    """`scf.for ... {` and `"tt.reduce"(...) ({` carry their location on the line that closes the region."""
    variant = _mm(folder, {})
    smap = SourceMap(variant)
    source = variant.listings[Stage.SOURCE].splitlines()
    for stage in (Stage.TTIR, Stage.TTGIR):
        lines = variant.listings[stage].splitlines()
        opening = [i for i, line in enumerate(lines) if "scf.for" in line and line.rstrip().endswith("{")]
        assert opening
        for i in opening:
            line = smap.source_line(stage, i)
            assert line is not None and "for k in range" in source[line - 1], (stage, lines[i][:60], line)


def test_compiler_made_code_never_maps_to_line_zero(folder):
    """PTX `.loc 1 0 26` is DWARF's "no line", not line 0 of the kernel."""
    variant = _mm(folder, {})
    ptx = variant.listings[Stage.PTX]
    assert re.search(r"^\s*\.loc\s+\d+\s+0\s+\d+", ptx, re.M)  # the compile has such lines
    smap = SourceMap(variant)
    for stage in (Stage.PTX, Stage.SASS, Stage.LLIR):
        assert all(loc is None or loc.line > 0 for loc in smap.locs(stage)), stage
