"""NVIDIA shared-memory bank conflicts (issue 44, point 7), on kernels written for the test: a 32x32 float
tile transposed through shared memory with a row pitch of 32 and 33 floats, ldmatrix.x4 fragments read
and stmatrix.x4 fragments written at a row pitch of 64 and 72 halves (tests/findings_kernels/bank_transpose.cu), the column sums of
tutorial 05's backward pass and Helion's pipelined matmul (tests/findings_kernels/library_idioms.py).

The independent source is an address table worked by hand from each kernel's source (which word of
shared memory each thread of warp 0 touches, and so how many words its busiest bank delivers), against
which the PTX finding and the SASS finding, proven each from its own listing, must agree, on sm_80,
sm_90, sm_100a and sm_120.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from irscope.annotating.findings import findings
from irscope.annotating.smem_banks import bank_patterns, sass_bank_patterns
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.types import Stage

HERE = Path(__file__).parent / "findings_kernels"
CUDA = HERE / "bank_transpose.cu"
LIBRARY = HERE / "library_idioms.py"
CACHE: dict = {}

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")


def _variant(name: str, arch: str, signature: str | None = None, config: dict | None = None):
    key = (name, arch, tuple(sorted((config or {}).items())))
    if key not in CACHE:
        variant = capture(resolve_kernel(name, signature), config or {}, arch)
        assert variant.ok, variant.error
        CACHE[key] = variant
    return CACHE[key]


def _hand(words_of_threads: list[list[int]]) -> tuple[int, int]:
    """(M, C) of one warp from the words each thread touches: the most different words one bank delivers,
    and the fewest wavefronts the different words need (32 a wavefront)."""
    words = {w for ws in words_of_threads for w in ws}
    busiest = max(Counter(w % 32 for w in words).values())
    return busiest, max(1, -(-len(words) // 32))


def _finding(variant, stage):
    found = [f for f in findings(variant, stage) if f.kind == "bank-conflicts"]
    assert len(found) <= 1
    return found[0] if found else None


def _claims(variant, stage) -> Counter:
    """{(load or store, M, C)} of each proven access, as the stage's own analysis gives them."""
    patterns, _ = bank_patterns(variant) if stage == Stage.PTX else sass_bank_patterns(variant)
    kind = {True: "load", False: "store"}
    return Counter(
        (kind[p.opcode.startswith(("ld", "LD"))], p.busiest, p.fewest) for p in patterns if "LDGSTS" not in p.opcode
    )


# both pitches on sm_90; the conflict also on the other SASS dialects (sm_80 and sm_120 scale the address
# register, [R8.X4]; sm_100a adds the shared window's base, [R6+UR4])
CASES = [("sm_90", 32), ("sm_90", 33), ("sm_80", 32), ("sm_100a", 32), ("sm_120", 32)]


@needs_nvcc
@pytest.mark.parametrize("arch,pitch", CASES)
def test_a_transposed_tile_is_32_way_without_padding_and_clear_with_a_33_float_pitch(arch, pitch):
    name = "transpose_unpadded" if pitch == 32 else "transpose_padded"
    variant = _variant(f"{CUDA}:{name}", arch)
    # warp 0 is row ty = 0 of the tile: thread tx stores tile[0 * P + tx], then reads tile[tx * P + 0]
    store = _hand([[0 * pitch + tx] for tx in range(32)])
    load = _hand([[tx * pitch + 0] for tx in range(32)])
    assert store == (1, 1)
    assert load == ((32, 1) if pitch == 32 else (1, 1))
    expected = Counter({("store", *store): 1, ("load", *load): 1})
    for stage in (Stage.PTX, Stage.SASS):
        assert _claims(variant, stage) == expected, (stage, _claims(variant, stage))
        found = _finding(variant, stage)
        if pitch == 32:
            assert found.severity == "warn" and "the worst 32-way" in found.title
            lines = variant.listings[stage].splitlines()
            assert [re.search(r"ld\.shared|\bLDS\b", lines[i]) is not None for i in found.lines] == [True]
        else:
            assert found.severity == "info" and found.title.startswith("shared-memory accesses force no bank conflict")


@needs_nvcc
@pytest.mark.parametrize("pitch", [64, 72])
@pytest.mark.parametrize("matrix", ["ldmatrix", "stmatrix"])
def test_ldmatrix_and_stmatrix_rows_at_a_128_byte_pitch_share_four_banks(matrix, pitch):
    prefix = "fragments" if matrix == "ldmatrix" else "stored_fragments"
    variant = _variant(f"{CUDA}:{prefix}_{'unpadded' if pitch == 64 else 'padded'}", "sm_90")
    sass_op = "LDSM" if matrix == "ldmatrix" else "STSM"
    # thread t supplies row t % 8 of matrix t // 8, whose 16 bytes start at half (t % 8) * P + 8 * (t // 8)
    words = []
    for t in range(32):
        byte = 2 * ((t % 8) * pitch + 8 * (t // 8))
        words.append(list(range(byte // 4, byte // 4 + 4)))
    busiest, fewest = _hand(words)
    assert (busiest, fewest) == ((8, 4) if pitch == 64 else (4, 4))
    for stage in (Stage.PTX, Stage.SASS):
        patterns, _ = bank_patterns(variant) if stage == Stage.PTX else sass_bank_patterns(variant)
        rows = [p for p in patterns if matrix in p.opcode or p.opcode.startswith(sass_op)]
        assert [(p.busiest, p.fewest) for p in rows] == [(busiest, fewest)], stage
        if matrix == "stmatrix":  # read back unrolled: read k takes half (k // 2) * P + (k % 2) * 32 + t
            back = {_hand([[((k // 2) * pitch + (k % 2) * 32 + t) // 2] for t in range(32)]) for k in range(64)}
            assert back == {(1, 1)}
            reads = [(p.busiest, p.fewest) for p in patterns if p not in rows]
            assert reads == [(1, 1)] * 64, stage
        found = _finding(variant, stage)
        assert (found.severity == "warn") is (pitch == 64)
        if pitch == 64:
            assert "2-way" in found.title  # at least 8 wavefronts where 4 would do


@pytest.mark.parametrize("arch", ["sm_90", "sm_120"])
def test_triton_column_sums_store_their_partials_16_way(arch):
    """Worked from the layout (sizePerThread [1, 8], threadsPerWarp [2, 16], warpsPerCTA [4, 1]): after the
    shuffle over lanes 16 apart, lanes 0-15 of warp w hold columns 8t .. 8t+7, and the partials cross warps
    through a [128 columns][4 warps] float array: column c of warp w at byte 16c + 4w, word 32t + 4j + w
    for its j-th column. Each of the 8 stores asks bank 4j + w for 16 words: 16-way, and so does each read
    back."""
    variant = _variant(
        f"{LIBRARY}:column_sums", arch, "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32:16", {"BM": 32, "BN": 128}
    )
    for j in range(8):
        assert _hand([[32 * t + 4 * j + 0] for t in range(16)]) == (16, 1)
    for stage in (Stage.PTX, Stage.SASS):
        claims = _claims(variant, stage)
        assert claims[("store", 16, 1)] == 16 and claims[("load", 16, 1)] == 16, (stage, claims)
        assert "the worst 16-way" in _finding(variant, stage).title


def test_a_swizzled_pipelined_matmul_forces_no_conflict_in_ptx_or_sass():
    variant = _variant(
        f"{LIBRARY}:generated_mm", "sm_80", "*fp16:16, *fp16:16, *fp16:16", {"num_warps": 4, "num_stages": 3}
    )
    for stage in (Stage.PTX, Stage.SASS):
        found = _finding(variant, stage)
        assert found is not None and found.severity == "info", stage
        patterns, total = bank_patterns(variant) if stage == Stage.PTX else sass_bank_patterns(variant)
        assert patterns and not any(p.conflict for p in patterns)
        kinds = " ".join(p.opcode for p in patterns)
        assert ("ldmatrix" in kinds and "cp.async" in kinds) if stage == Stage.PTX else ("LDSM" in kinds)


def test_amd_and_pre_ampere_get_no_nvidia_bank_finding():
    variant = _variant(
        f"{LIBRARY}:column_sums", "gfx942", "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32:16", {"BM": 32, "BN": 128}
    )
    assert not any(f.kind == "bank-conflicts" for f in findings(variant, Stage.AMDGCN))
