"""The analyses kernel engineers reach for next (issue 44, points 8 to 11), on kernels written for the test
(tests/findings_kernels/): spills by source line and the occupancy steps around a kernel; atomics by kind
and line, with tutorial 05's compare-and-swap lock named; threads that hold the same element (FLA's
chunked cumsum with BT=64 on 4 warps); Blackwell's tensor memory, two-CTA MMA, cluster launch,
warp-specialised partitions and the global scratch of device-side TMA descriptors.

Independent sources: the SASS's own line-info comments (nvdisasm -g) and ptxas -v for spills; NVIDIA's
occupancy calculator (cuda_occupancy.h, compiled by tests/test_findings.py's fixture) for the steps;
the listing's atomics read with regular expressions; the PTX's own thread addresses for the redundant
threads; Triton's compile metadata (tmem_size, global_scratch_size, num_ctas) and cuobjdump -elf's
cluster and thread attributes for Blackwell. Each present and absent; PTX and SASS agree where both show it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from test_findings import nvidia_occupancy  # noqa: F401  (a fixture: NVIDIA's calculator, compiled)

from irscope.annotating.blackwell import blackwell_findings
from irscope.annotating.findings import findings, kernel_occupancy
from irscope.annotating.ptx_lanes import PtxLanes, block_of
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir import ptx as ptx_ir
from irscope.types import CompileInfo, Config, KernelId, Stage, Status, Variant

HERE = Path(__file__).parent / "findings_kernels"
LIBRARY = HERE / "library_idioms.py"
GATHER = HERE / "gather_mm.py"
MM = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16"
NORM = "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32"
BIG = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 4, "num_stages": 3}
CACHE: dict = {}


def _variant(name: str, signature: str, config: dict, arch: str = "sm_90"):
    key = (name, tuple(sorted(config.items())), arch)
    if key not in CACHE:
        variant = capture(resolve_kernel(name, signature), config, arch)
        assert variant.ok, variant.error
        CACHE[key] = variant
    return CACHE[key]


def _one(variant, stage, kind):
    found = [f for f in findings(variant, stage) if f.kind == kind]
    assert len(found) <= 1, found
    return found[0] if found else None


def _triton_bin(tool: str) -> str:
    import triton

    return str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / tool)


# ---------------------------------------------------------------- 8. spills by line, occupancy steps

SPILLING = {"BLOCK": 2048, "num_warps": 1, "maxnreg": 40}


def _sass_local_by_line(sass: str, file: str) -> Counter:
    """{python line: STL + LDL} from the SASS text: each instruction under the last `//## File` comment, the
    kernel file's frame of it (an inlined helper's comment names the calling line too)."""
    out: Counter = Counter()
    line = None
    for text in sass.splitlines():
        if text.lstrip().startswith("//## File"):
            found = re.findall(rf'"{re.escape(file)}", line (\d+)', text)
            line = int(found[-1]) if found else None
        elif re.search(r"\b(?:STL|LDL)\b", text) and line is not None:
            out[line] += 1
    return out


def test_spills_are_counted_by_python_line_as_the_sass_line_info_says():
    variant = _variant(f"{LIBRARY}:row_norm", NORM, SPILLING)
    sass = variant.listings[Stage.SASS]
    truth = _sass_local_by_line(sass, str(LIBRARY))
    assert sum(truth.values()) > 100
    report = subprocess.run(
        [_triton_bin("ptxas"), "-v", "--gpu-name=sm_90a", "-", "-o", "/dev/null"],
        input=variant.listings[Stage.PTX],
        capture_output=True,
        text=True,
    ).stderr
    stores, loads = (int(x) for x in re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report).groups())
    found = _one(variant, Stage.SASS, "spills")
    assert f"{stores} bytes of spill stores and {loads} bytes of spill loads" in found.detail
    rows = [e for e in found.evidence if e.startswith("line ")]
    claimed = {
        int(re.match(r"line (\d+)", r)[1]): sum(map(int, re.findall(r"(\d+) (?:stores|loads)", r))) for r in rows
    }
    assert claimed == dict(truth.most_common(len(claimed)))
    assert next(iter(claimed)) == truth.most_common(1)[0][0]  # the line with most, first
    assert _one(_variant(f"{LIBRARY}:row_norm", NORM, {"BLOCK": 1024}), Stage.SASS, "spills") is None


@pytest.mark.parametrize(
    "name,signature,config,arch",
    [
        (f"{LIBRARY}:generated_mm", "*fp16:16, *fp16:16, *fp16:16", {"num_warps": 4, "num_stages": 3}, "sm_80"),
        (f"{GATHER}:tile_mm", MM, BIG, "sm_90"),
        (f"{LIBRARY}:row_norm", NORM, SPILLING, "sm_90"),
    ],
)
def test_the_occupancy_steps_are_where_nvidias_calculator_puts_them(nvidia_occupancy, name, signature, config, arch):  # noqa: F811
    variant = _variant(name, signature, config, arch)
    occ = kernel_occupancy(variant)
    found = _one(variant, Stage.PTX, "occupancy")

    def blocks(registers=None, shared=None):
        return nvidia_occupancy(
            occ.capability, registers or occ.registers, occ.threads, occ.shared if shared is None else shared
        )[0]

    keep = int(re.search(r"registers: up to (\d+) a thread keep (\d+) blocks", found.detail)[1])
    assert blocks(registers=keep) == occ.blocks
    if keep < 255:
        assert blocks(registers=keep + 1) < occ.blocks
    fewer = re.search(r"(\d+) or fewer fit (\d+) \(", found.detail)
    if fewer:
        assert blocks(registers=int(fewer[1])) == int(fewer[2]) == occ.blocks + 1
        assert blocks(registers=int(fewer[1]) + 1) == occ.blocks
    if occ.shared:
        keep_shared = int(re.search(r"shared memory: up to (\d+) B a block keep", found.detail)[1])
        assert blocks(shared=keep_shared) == occ.blocks and blocks(shared=keep_shared + 128) < occ.blocks


# ---------------------------------------------------------------- 9. atomics and locks

LOCKED = (
    f"{LIBRARY}:locked_partials",
    "*fp16:16, *fp16:16, *fp16:16, *i32:16, i32:16, i32:16",
    {"GROUPS": 64, "BLOCK": 1024},
)
SUMS = (f"{LIBRARY}:atomic_sums", "*fp32:16, *fp32:16, *fp32:16, i32", {"BLOCK": 1024})
ATOM = {
    Stage.PTX: re.compile(r"\b(?:atom|red)\.[\w.:]*?\.(cas|exch|add|max|min)\b"),
    Stage.SASS: re.compile(r"\b(?:ATOMG|REDG|ATOM|RED|ATOMS)\.[\w.]*?\b(CAS|EXCH|ADD|MAX|MIN)\b"),
}


@pytest.mark.parametrize("case,lock", [(LOCKED, True), (SUMS, False)])
def test_atomics_are_counted_by_kind_and_a_cas_spin_lock_is_named(case, lock):
    variant = _variant(*case)
    titles = set()
    for stage in (Stage.PTX, Stage.SASS):
        truth = Counter(m.lower() for m in ATOM[stage].findall(variant.listings[stage]))
        found = _one(variant, stage, "atomics")
        claimed = Counter({k: int(n) for k, n in re.findall(r"(\w+) x(\d+)", found.title.split(";")[0])})
        assert claimed == truth, (stage, claimed, truth)
        assert ("a spin lock" in found.title) is lock
        titles.add(found.title)
        if lock:
            lines = variant.listings[stage].splitlines()
            cited = " ".join(lines[i] for i in found.lines)
            assert re.search(r"cas|CAS", cited) and re.search(r"exch|EXCH", cited) and re.search(r"bra|BRA", cited)
            assert "line 121's compare-and-swap" in found.title  # the `while tl.atomic_cas(...)` line
    assert len(titles) == 1
    assert _one(_variant(f"{LIBRARY}:row_norm", NORM, {"BLOCK": 1024}), Stage.PTX, "atomics") is None


# ---------------------------------------------------------------- 10. redundant threads

CUMSUM = (f"{LIBRARY}:chunk_cumsum", "*fp32:16, *fp32:16, i32")


@pytest.mark.parametrize("bt,warps,factor", [(64, 4, 2), (64, 2, 1), (32, 4, 4)])
def test_a_block_smaller_than_its_threads_gives_each_element_to_several(bt, warps, factor):
    variant = _variant(*CUMSUM, {"H": 1, "BT": bt, "REVERSE": False, "num_warps": warps})
    # by hand: a [BT] tensor, one element a thread, on 32 x warps threads
    assert max(1, 32 * warps // bt) == factor
    # the PTX's own addresses: threads t and t + BT load the same element
    ptx = variant.listings[Stage.PTX]
    lanes = PtxLanes(ptx, block_of(ptx, 32 * warps))
    load = next(i for i in ptx_ir.instructions(ptx) if i.opcode.startswith("ld.global"))
    address = lanes.value(re.search(r"\[\s*(%rd\d+)", load.operand_text)[1])
    per_element = Counter(address.lanes)
    assert set(per_element.values()) == {factor}
    for stage in (Stage.PTX, Stage.SASS):
        found = _one(variant, stage, "redundant-threads")
        if factor == 1:
            assert found is None
        else:
            assert f"give each element to {factor} threads" in found.title
            assert f"[{bt}] tensor" in found.detail


# ---------------------------------------------------------------- 11. Blackwell


def _metadata(fn_name: str, options: dict) -> dict:
    """Triton's own compile of a gather_mm.py kernel for sm_100a: its metadata."""
    import importlib.util

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    spec = importlib.util.spec_from_file_location("written_gather_mm", GATHER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    signature = {"A": "*fp16", "B": "*fp16", "C": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    signature |= {"BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    source = ASTSource(
        getattr(module, fn_name),
        signature,
        {(6,): 128, (7,): 128, (8,): 64},
        {(i,): [["tt.divisibility", 16]] for i in range(6)},
    )
    return triton.compile(source, target=GPUTarget("cuda", 100, 32), options=options).metadata._asdict()


def test_tensor_memory_columns_and_global_scratch_as_tritons_metadata_says():
    variant = _variant(f"{GATHER}:tma_mm", MM, BIG, "sm_100a")
    meta = _metadata("tma_mm", {"num_warps": 4, "num_stages": 3})
    tmem = _one(variant, Stage.PTX, "tensor-memory")
    assert f"tensor memory: {meta['tmem_size']} of 512 columns" in tmem.title
    scratch = _one(variant, Stage.PTX, "global-scratch")
    assert f"{meta['global_scratch_size']} B of global scratch" in scratch.title and "set_allocator" in scratch.detail
    assert _one(variant, Stage.PTX, "cluster") is None and _one(variant, Stage.PTX, "warp-specialization") is None
    # one CTA's MMAs (cta_group::1): no two-CTA MMA, in PTX or SASS
    ptx, sass = variant.listings[Stage.PTX], variant.listings[Stage.SASS]
    assert re.search(r"tcgen05\.mma\.cta_group::1", ptx) and "cta_group::2" not in ptx
    assert re.search(r"UTC\w*MMA", sass) and not re.search(r"UTC\w*MMA\.2CTA", sass)
    for stage in (Stage.PTX, Stage.SASS):
        assert not any(f.title.startswith("two-CTA MMA") for f in findings(variant, stage))
    # a host-side descriptor, or none: no scratch; Hopper has no tensor memory
    assert _one(_variant(f"{GATHER}:tile_mm", MM, BIG, "sm_100a"), Stage.PTX, "global-scratch") is None
    assert _one(_variant(f"{GATHER}:tma_mm", MM, BIG, "sm_90"), Stage.PTX, "tensor-memory") is None


def _elf_values(cubin: bytes, attribute: str, tmp_path: Path) -> list[int]:
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    out = subprocess.run([_triton_bin("cuobjdump"), "-elf", str(path)], capture_output=True, text=True).stdout
    m = re.search(rf"Attribute:\s+{attribute}\s+Format:\s+\w+\s+Value:\s+((?:0x[0-9a-f]+\s+)+)", out)
    return [int(x, 16) for x in m[1].split()] if m else []


def test_a_cluster_launch_as_the_cubin_records_it(tmp_path):
    variant = _variant(f"{GATHER}:tile_mm", MM, {**BIG, "num_ctas": 2}, "sm_100a")
    assert _elf_values(variant.cubin, "EIATTR_CTA_PER_CLUSTER", tmp_path) == [2, 1, 1]
    assert _metadata("tile_mm", {"num_warps": 4, "num_stages": 3, "num_ctas": 2})["num_ctas"] == 2
    for stage in (Stage.PTX, Stage.SASS):
        assert _one(variant, stage, "cluster").title == "cluster launch: 2 CTAs per cluster (2 x 1 x 1)"
    # the shape every launch must have, as the PTX requires it: a resource dump, diff and compare show
    assert re.search(r"^\.reqnctapercluster 2$", variant.listings[Stage.PTX], re.M)  # y and z left out: 1
    assert variant.resources.cluster == "2x1x1"
    single = _variant(f"{GATHER}:tile_mm", MM, BIG, "sm_100a")
    assert _elf_values(single.cubin, "EIATTR_CTA_PER_CLUSTER", tmp_path) == []
    assert _one(single, Stage.PTX, "cluster") is None
    assert ".reqnctapercluster" not in single.listings[Stage.PTX] and single.resources.cluster is None


WS = """\
import triton
import triton.language as tl


@triton.jit
def ws_mm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, WS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(A, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(B, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        acc += tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]))
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(C + rm[:, None] * N + rn[None, :], acc.to(tl.float16))
"""


@pytest.mark.parametrize("specialised", [True, False])
def test_warp_specialised_partitions_and_the_threads_the_block_really_has(tmp_path, specialised):
    (tmp_path / "ws.py").write_text(WS)
    variant = _variant(f"{tmp_path / 'ws.py'}:ws_mm", MM, {**BIG, "WS": specialised}, "sm_100a")
    threads = _elf_values(variant.cubin, "EIATTR_REQNTID", tmp_path)
    ttgir = variant.listings[Stage.TTGIR]
    partitions = re.findall(r"partition\d+\(.*\) num_warps\((\d+)\)", ttgir)
    found = _one(variant, Stage.PTX, "warp-specialization")
    if not specialised:
        assert not partitions and found is None and threads == [128, 1, 1]
        return
    warps = 4 + sum(map(int, partitions))  # the default partition's 4 and each partition's own
    assert threads[0] == 256 >= 32 * warps
    assert found.title == f"warp-specialised: {len(partitions) + 1} partitions, {threads[0]} threads a block"
    assert kernel_occupancy(variant).threads == threads[0]  # occupancy counts every warp the block runs


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_a_two_cta_mma_in_ptx_and_sass_as_nvcc_builds_it(tmp_path):
    """irscope's CUDA frontend compiles for sm_100, where tcgen05 does not exist: nvcc is run here for
    sm_100a, and its PTX and cuobjdump's SASS are read as the variant's own listings."""
    source = HERE / "two_cta_mma.cu"
    for kind in ("ptx", "cubin"):
        subprocess.run(
            ["nvcc", "-arch=sm_100a", f"-{kind}", str(source), "-o", str(tmp_path / f"k.{kind}")], check=True
        )
    ptx = (tmp_path / "k.ptx").read_text()
    sass = subprocess.run(
        [_triton_bin("cuobjdump"), "-sass", str(tmp_path / "k.cubin")], capture_output=True, text=True
    ).stdout
    assert _elf_values((tmp_path / "k.cubin").read_bytes(), "EIATTR_CTA_PER_CLUSTER", tmp_path) == [2, 1, 1]
    variant = Variant(
        KernelId("pair_mma", str(source), "written"),
        Config(),
        "sm_100a",
        Status.OK,
        {Stage.PTX: ptx, Stage.SASS: sass},
        compile_info=CompileInfo(mode=None, arch="sm_100a", compiler="nvcc", compile_seconds=0.0),
    )
    counts = {
        Stage.PTX: len(re.findall(r"tcgen05\.mma\.cta_group::2", ptx)),
        Stage.SASS: len(re.findall(r"UTC\w*MMA\.2CTA", sass)),
    }
    assert counts[Stage.PTX] == counts[Stage.SASS] == 1
    for stage in (Stage.PTX, Stage.SASS):
        found = {f.kind + ":" + f.title for f in blackwell_findings(variant, stage)}
        assert any(t.startswith("tensor-memory:two-CTA MMA: 1 ") for t in found), found
        assert "tensor-memory:tensor memory: 256 of 512 columns allocated (1 tcgen05.alloc, cta_group::2)" in found
        assert "cluster:cluster launch: 2 CTAs per cluster (2 x 1 x 1)" in found
