"""Deep decoding on real compiles: wgmma and tcgen05 operands by role, descriptors decoded from the
constants the listing builds them from, cp.async's zero-fill, and SASS control bits read from the
cubin and checked against what the listing itself shows."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from irscope.annotating import explain_lines
from irscope.annotating.explain import line_controls
from irscope.annotating.roles import descriptor_fields, instruction_descriptor_fields
from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir import sass as sass_ir
from irscope.types import Stage

KERNELS = textwrap.dedent("""
    import triton
    import triton.language as tl


    @triton.jit
    def masked_mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
        offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            offs_k = k0 + tl.arange(0, BK)
            x = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :], mask=offs_k[None, :] < K, other=0.0)
            y = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :], mask=offs_k[:, None] < K, other=0.0)
            acc += tl.dot(x, y)
        out = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
        tl.store(out, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


    @triton.jit
    def masked_row_sum(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for i in range(0, n, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + pid * n + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)
""")
MM_SIGNATURE = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16"
MM_CONFIG = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 8, "num_stages": 3}


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    path = tmp_path_factory.mktemp("deep") / "deep_kernels.py"
    path.write_text(KERNELS)
    mm = resolve_kernel(f"{path}:masked_mm", MM_SIGNATURE)
    row_sum = resolve_kernel(f"{path}:masked_row_sum", "*fp32:16, *fp32:16, i32")
    out = {f"mm_{arch}": capture(mm, MM_CONFIG, arch) for arch in ("sm_80", "sm_90", "sm_100")}
    out.update({f"sum_{arch}": capture(row_sum, {"BLOCK": 256, "num_warps": 4}, arch) for arch in ("sm_90", "sm_100")})
    for name, v in out.items():
        assert v.ok, (name, v.error)
    return out


def _lines(variant, stage, needle):
    """(line, explanation) of every line containing ``needle``."""
    return [
        (line, e)
        for line, e in zip(variant.listings[stage].splitlines(), explain_lines(variant, stage))
        if needle in line
    ]


def _operands(e):
    return [(p.token, p.text) for p in e.parts if p.role == "operand"]


# ----------------------------------------------------------------- wgmma (sm_90)


def test_wgmma_operands_are_explained_by_role_with_descriptor_fields_decoded(variants):
    mmas = _lines(variants["mm_sm_90"], Stage.PTX, "wgmma.mma_async")
    assert len(mmas) == 4  # BK=64 over K=16 per instruction
    for _, e in mmas:
        ops = _operands(e)
        assert ops[0][1].startswith("accumulator D: 64 registers")
        assert ops[1][1].startswith("A's shared-memory matrix descriptor") and "128-byte swizzle" in ops[1][1]
        assert ops[2][1].startswith("B's shared-memory matrix descriptor") and "128-byte swizzle" in ops[2][1]
        assert "stride-dimension byte offset 1024" in ops[1][1] and "stride-dimension byte offset 1024" in ops[2][1]
        assert ops[3][1].startswith("scale-d") and "accumulates" in ops[3][1]
        assert [t.split(":")[0] for _, t in ops[4:]] == ["imm-scale-a", "imm-scale-b", "imm-trans-a", "imm-trans-b"]
        assert "not transposed" in ops[6][1] and "B is transposed" in ops[7][1]  # tl.dot's B tile is N-contiguous
        assert not any("untyped" in t for _, t in ops)
    # The first MMA of the loop ORs the start address into a constant; the later ones add 32 bytes (16 fp16) per k-step.
    assert "or.b64" in _operands(mmas[0][1])[1][1]
    assert [re.search(r"advanced by (\d+) bytes", _operands(e)[1][1]).group(1) for _, e in mmas[1:]] == [
        "32",
        "64",
        "96",
    ]


def test_the_decoded_descriptor_is_the_one_the_sass_loads_into_the_hgmma_registers(variants):
    v = variants["mm_sm_90"]
    ptx = v.listings[Stage.PTX]
    const = int(re.search(r"or\.b64\s+%rd\d+, %rd\d+, (\d+);", ptx).group(1))
    assert descriptor_fields(const, "wgmma")[-1] == "128-byte swizzle"
    # ptxas puts the descriptor's constant upper half in the HGMMA's uniform registers with UMOV.
    assert f"UMOV UR9, 0x{const >> 32:x} ;" in v.listings[Stage.SASS]
    hgmma = [e for _, e in _lines(v, Stage.SASS, "HGMMA")]
    assert hgmma and all("A's in UR" in _operands(e)[1][1] and "B transposed" in _operands(e)[1][1] for e in hgmma)
    assert "closes a wgmma group" in _operands(hgmma[-1])[-1][1]


# ----------------------------------------------------------------- tcgen05 (sm_100)


def test_tcgen05_mma_names_tensor_memory_descriptors_and_decodes_the_instruction_descriptor(variants):
    v = variants["mm_sm_100"]
    assert ".target sm_100a" in v.listings[Stage.PTX]
    mmas = _lines(v, Stage.PTX, "tcgen05.mma")
    assert mmas
    first = _operands(mmas[0][1])
    assert first[0][1].startswith("D in tensor memory")
    assert "version bits 46-48 = 1 (as required)" in first[1][1] and "128-byte swizzle" in first[1][1]
    idesc = first[3][1]
    for fact in ("D is F32", "A is F16", "B is F16", "M=128", "N=128", "A K-major", "B transposed"):
        assert fact in idesc, (fact, idesc)
    assert "overwrites D" in first[4][1]  # the first k-step does not accumulate
    alloc = _operands(_lines(v, Stage.PTX, "tcgen05.alloc")[0][1])
    assert "columns: 128" in alloc[1][1]  # the 128x128 f32 accumulator takes 128 columns
    ld = _operands(_lines(v, Stage.PTX, "tcgen05.ld")[0][1])
    assert ld[0][1].startswith("64 registers") and "tensor-memory address" in ld[1][1]
    utc = _operands(_lines(v, Stage.SASS, "UTCHMMA")[0][1])
    assert "A's shared-memory matrix descriptor" in utc[0][1] and "instruction descriptor" in utc[4][1]
    assert "overwrites D" in utc[5][1]  # !UPT on the first, as %p17 = 0 in the PTX


def test_instruction_descriptor_fields_follow_the_table():
    # M=64, N=256, BF16 x BF16 -> F32, A transposed, B negated
    value = (1 << 4) | (1 << 7) | (1 << 10) | (1 << 14) | (1 << 15) | (256 // 8 << 17) | (64 // 16 << 24)
    fields = instruction_descriptor_fields(value, "f16")
    assert fields[:5] == ["D is F32", "A is BF16", "B is BF16", "M=64", "N=256"]
    assert "A transposed (MN-major)" in fields and "B negated" in fields and "A negated" not in fields
    assert instruction_descriptor_fields(value, "mxf4") is None


# ----------------------------------------------------------------- cp.async zero-fill


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_masked_pipelined_load_explains_src_size_as_zero_fill(variants, arch):
    copies = _lines(variants[f"mm_{arch}"], Stage.PTX, "cp.async.cg.shared.global")
    assert len(copies) >= 8
    for line, e in copies:
        ops = _operands(e)
        assert len(ops) == 4, line
        assert ops[2][1].startswith("cp-size: 16 bytes")
        assert ops[3][1].startswith("src-size") and "zero" in ops[3][1]
        # Triton selects 16 or 0 from the mask: the listing's selp chain is followed to say which.
        assert re.search(r"here 16 where %p\d+ is true.*else 0", ops[3][1]), ops[3][1]
    ldgsts = [e for _, e in _lines(variants[f"mm_{arch}"], Stage.SASS, "LDGSTS")]
    assert ldgsts and all("zero-filled" in _operands(e)[-1][1] for e in ldgsts)


# ----------------------------------------------------------------- SASS control bits


def _registers_written(ins):
    m = re.match(r"^R(\d+)$", ins.operands[0]) if ins.operands else None
    if not m:
        return set()
    return {f"R{int(m.group(1)) + i}" for i in range(max(1, (ins.access_bits or 32) // 32))}


def _reads(ins, regs):
    for i, op in enumerate(ins.operands):
        if i == 0 and not op.startswith("["):
            continue  # the destination
        named = set(re.findall(r"\bR\d+\b", op))
        pair = re.search(r"\bR(\d+)\.64\b", op)
        if pair:
            named.add(f"R{int(pair.group(1)) + 1}")
        if named & regs:
            return True
    return False


@pytest.mark.parametrize("name", ["sum_sm_90", "sum_sm_100"])
def test_a_loads_write_scoreboard_is_the_one_its_consumer_waits_on(variants, name):
    v = variants[name]
    controls = line_controls(v)
    found = sass_ir.instructions(v.listings[Stage.SASS])
    assert all(controls[ins.index] is not None for ins in found)
    pairs = direct = 0
    for i, load in enumerate(found):
        barrier = controls[load.index].write_barrier
        if load.base != "LDG" or barrier is None:
            continue
        regs = _registers_written(load)
        for later in found[i + 1 :]:
            if later.base in ("BRA", "EXIT", "BSYNC", "RET"):
                break
            if _reads(later, regs):
                pairs += 1
                between = [controls[x.index] for x in found[i + 1 : found.index(later) + 1]]
                assert any(barrier in c.waits_on for c in between), (load, later)
                direct += barrier in controls[later.index].waits_on
                break
    assert pairs >= 2 and direct >= 1
    # Scoreboards guard variable-latency results only: fixed-latency arithmetic never sets one.
    assert not [
        ins.opcode
        for ins in found
        if ins.base in ("IADD3", "IMAD", "FADD", "FFMA", "LOP3", "ISETP")
        and controls[ins.index].write_barrier is not None
    ]


def test_reuse_bits_match_the_reuse_operands_the_listing_prints(variants):
    for name in ("mm_sm_80", "mm_sm_90", "mm_sm_100"):
        v = variants[name]
        controls = line_controls(v)
        found = sass_ir.instructions(v.listings[Stage.SASS])
        assert sum(1 for ins in found if controls[ins.index].reuse) > 10
        for ins in found:
            assert bin(controls[ins.index].reuse).count("1") == ins.operand_text.count(".reuse"), ins


def test_sass_explanation_says_what_the_control_bits_mean(variants):
    v = variants["sum_sm_90"]
    loads = _lines(v, Stage.SASS, "LDG.E")
    assert loads
    _, e = loads[0]
    assert e.control is not None and e.control.write_barrier is not None
    assert f"sets scoreboard {e.control.write_barrier} until its result is written" in e.summary
    control_part = [p for p in e.parts if p.role == "control"]
    assert control_part and control_part[0].section.startswith("Jia et al.")
    waiting = [e for _, e in _lines(v, Stage.SASS, "/*") if e.control and e.control.waits_on]
    assert waiting and all(f"waits on scoreboard {e.control.waits_on[0]}" in e.summary for e in waiting)
    assert any("then yields" in e.summary for _, e in _lines(v, Stage.SASS, "/*"))


def test_annotate_json_carries_each_sass_lines_control_bits(cli):
    data = json.loads(cli("annotate", "square_kernel", "--stage", "sass", "--arch", "sm_90", "--json").stdout)
    instructions = [line for line in data["lines"] if line["kind"] == "instruction"]
    assert instructions and all("control" in line for line in instructions)
    assert {"stall", "yields", "write_barrier", "read_barrier", "waits_on", "reuse"} <= set(instructions[0]["control"])
    assert any(line["control"]["write_barrier"] is not None for line in instructions if "LDG" in line["text"])
