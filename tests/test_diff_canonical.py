"""The canonical diff (issue 15): only real changes show, on real compiles of kernels written for the test.

The floors (irscope/diffing/floor.py) are edit distances of the instructions read as opcode and
immediates (registers dropped) and as shapes (registers kept as their class), which no renaming can
beat; the normalised diff may change at most 1.5x the instructions of the first. Long listings are
held to it in tests/test_diff_floor.py.
"""

from __future__ import annotations

import textwrap

import pytest
from written_kernels import MM_UNIT_B, TILE_MM

from irscope.capturing import capture
from irscope.diffing import diff_variants
from irscope.diffing.canonical import canonical_diff, canonical_pair, listing_lines
from irscope.diffing.core import diff_lines, hunks_from, reorders_as_moves
from irscope.diffing.floor import floors
from irscope.frontends import resolve_kernel
from irscope.ir.normalize import NormalizedLine
from irscope.types import Stage

SQUARE = textwrap.dedent("""
    import triton
    import triton.language as tl


    @triton.jit
    def row_square(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask)
        tl.store(y_ptr + row * stride + cols, x * x, mask=mask)
""")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("canonical")
    (folder / "mm.py").write_text(TILE_MM)
    (folder / "sq.py").write_text(SQUARE)
    return folder


def _pair(kernels, which, a, b):
    if which == "mm":
        ref = resolve_kernel(f"{kernels / 'mm.py'}:tile_mm", MM_UNIT_B)
        base = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 8}
    else:
        ref = resolve_kernel(f"{kernels / 'sq.py'}:row_square", "*fp32, *fp32, i32, i32")
        base = {"BLOCK": 1024, "num_warps": 4}
    va, vb = capture(ref, {**base, **a}, "sm_90"), capture(ref, {**base, **b}, "sm_90")
    assert va.ok and vb.ok, (va.error, vb.error)
    return va, vb


PAIRS = [
    ("mm", {"num_stages": 2}, {"num_stages": 3}),
    ("mm", {"BM": 64}, {"BM": 128}),
    ("mm", {"num_warps": 4}, {"num_warps": 8}),
    ("sq", {"BLOCK": 256}, {"BLOCK": 2048}),
    ("sq", {"num_warps": 2}, {"num_warps": 8}),
]


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
@pytest.mark.parametrize("which,a,b", PAIRS)
def test_the_normalised_diff_changes_at_most_one_and_a_half_times_the_floor(kernels, which, a, b, stage):
    va, vb = _pair(kernels, which, a, b)
    d = diff_variants(va, vb, stage, summary_stages=())
    floor = floors(stage, listing_lines(stage, va.listings[stage]), listing_lines(stage, vb.listings[stage]))
    assert 0 < floor.opcode_immediates <= floor.registers_kept
    assert d.changed_instructions() <= 1.5 * floor.opcode_immediates, (d.changed_instructions(), floor)


def _alignment_pair(kernels):
    """A pointer not known to be 16-byte aligned (the signature's divisibility) against one that is."""
    plain = resolve_kernel(f"{kernels / 'sq.py'}:row_square", "*fp32, *fp32, i32, i32")
    aligned = resolve_kernel(f"{kernels / 'sq.py'}:row_square", "*fp32:16, *fp32:16, i32, i32:16")
    return capture(plain, {"BLOCK": 1024}, "sm_90"), capture(aligned, {"BLOCK": 1024}, "sm_90")


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
def test_alignment_changes_operands_and_nothing_else_beyond_the_floor(kernels, stage):
    """Alignment moves each thread's elements together: the same instructions with new offsets (512 -> 4).
    Those are real changes no opcode diff sees: the diff is within 1.5x the opcode+immediates floor, and
    with immediates ignored within 1.5x the floor of shapes without numbers (a handful of instructions
    read another register now: the floor of opcodes alone would be 3 against 6 in PTX)."""
    va, vb = _alignment_pair(kernels)
    lines_a, lines_b = listing_lines(stage, va.listings[stage]), listing_lines(stage, vb.listings[stage])
    floor = floors(stage, lines_a, lines_b, immediates=False).registers_kept
    quiet = diff_variants(va, vb, stage, summary_stages=(), ignore=("immediates",)).changed_instructions()
    assert 0 < floor and quiet <= 1.5 * floor, (quiet, floor)
    loud = diff_variants(va, vb, stage, summary_stages=()).changed_instructions()
    assert loud > quiet  # the offsets are there to see without --ignore
    assert loud <= 1.5 * floors(stage, lines_a, lines_b).opcode_immediates


@pytest.mark.parametrize("stage,mma", [(Stage.PTX, "wgmma.mma_async"), (Stage.SASS, "HGMMA")])
def test_the_unchanged_mma_loop_body_shows_as_unchanged(kernels, stage, mma):
    va, vb = _pair(kernels, "mm", {"num_stages": 2}, {"num_stages": 3})
    d = diff_variants(va, vb, stage, summary_stages=())
    in_equal = sum(mma in x.text for h in d.hunks if h.tag == "equal" for x in h.a)
    changed = [x.text for h in d.hunks if h.tag != "equal" for x in h.a + h.b if mma in x.text]
    assert in_equal > 0 and changed == []


def _with_insert(lines, at):
    """The listing with one instruction inserted at ``at``, defining a register of its own: renaming each
    side by first appearance shifts every name first seen after it."""
    import re

    top = max(int(n) for x in lines for n in re.findall(r"%r(\d+)\b", x.text)) + 1
    return lines[:at] + [NormalizedLine(10_000, f"add.s32 %r{top}, %r1, 12345;")] + lines[at:]


@pytest.mark.parametrize("stage", [Stage.PTX])
def test_an_inserted_instruction_changes_only_itself(kernels, stage):
    va, _ = _pair(kernels, "mm", {"num_stages": 3}, {"num_stages": 3})
    lines = listing_lines(stage, va.listings[stage])
    at = len(lines) // 3
    b = _with_insert(lines, at)
    hunks = diff_lines(*canonical_pair(stage, lines, b))
    changed = [h for h in hunks if h.tag != "equal"]
    assert [(h.tag, len(h.a), len(h.b)) for h in changed] == [("insert", 0, 1)], changed[:3]
    # renaming each side by first appearance alone (the old normal form) cascades
    from irscope.ir.normalize import normalize_ptx

    old = diff_lines(normalize_ptx(va.listings[stage]), normalize_ptx("\n".join(x.text for x in b)))
    assert sum(len(h.b) for h in old if h.tag != "equal") > 20


def test_a_moved_block_shows_as_moved(kernels):
    va, _ = _pair(kernels, "mm", {"num_stages": 3}, {"num_stages": 3})
    lines = listing_lines(Stage.PTX, va.listings[Stage.PTX])
    block = [n for n, x in enumerate(lines) if x.text.startswith("ld.param")]
    moved = [lines[n] for n in block[:3]]
    rest = [x for n, x in enumerate(lines) if n not in block[:3]]
    b = rest[:40] + moved + rest[40:]
    hunks = diff_lines(*canonical_pair(Stage.PTX, lines, b))
    tags = [h.tag for h in hunks if h.tag != "equal"]
    assert tags and set(tags) == {"moved"}, tags
    assert sum(len(h.a) for h in hunks if h.tag == "moved") == sum(len(h.b) for h in hunks if h.tag == "moved") == 3


def test_ignoring_immediates_registers_and_order(kernels):
    va, vb = _alignment_pair(kernels)
    plain = diff_variants(va, vb, Stage.PTX, summary_stages=()).changed_instructions()
    no_numbers = diff_variants(va, vb, Stage.PTX, summary_stages=(), ignore=("immediates",)).changed_instructions()
    assert no_numbers < plain
    same = diff_variants(va, va, Stage.SASS, summary_stages=(), ignore=("registers", "order"))
    assert not same.changed
    # four compares (each mask of a thread's elements) in reverse order: a change, unless order is
    # ignored, and then every one of them a move within its block
    lines = listing_lines(Stage.PTX, va.listings[Stage.PTX])
    at = next(n for n in range(len(lines)) if all(x.text.startswith("setp.") for x in lines[n : n + 4]))
    reordered = lines[:at] + lines[at : at + 4][::-1] + lines[at + 4 :]
    loud, quiet = (_changed_lines(Stage.PTX, lines, reordered, ignore) for ignore in ((), ("order",)))
    assert loud > 0 and quiet == 0
    out_a, out_b, ops = canonical_diff(Stage.PTX, lines, reordered, ("order",))
    hunks = reorders_as_moves(out_a, out_b, hunks_from(out_a, out_b, ops))
    assert sum(len(h.a) for h in hunks if h.tag == "moved") >= 2


def _changed_lines(stage, a, b, ignore) -> int:
    """Lines removed plus added by the normalised diff of listings ``a`` and ``b`` (as diff_variants counts them)."""
    out_a, out_b, ops = canonical_diff(stage, a, b, ignore)
    hunks = hunks_from(out_a, out_b, ops)
    if "order" in ignore:
        hunks = reorders_as_moves(out_a, out_b, hunks)
    return sum(len(h.a) + len(h.b) for h in hunks if h.tag not in ("equal", "moved"))


def test_the_cli_takes_ignore_and_refuses_an_unknown_class(cli):
    result = cli("diff", "square_kernel", "-a", "BLOCK_SIZE=256", "-b", "BLOCK_SIZE=1024", "--ignore", "immediates")
    assert result.exit_code == 0, result.output
    bad = cli("diff", "square_kernel", "-a", "BLOCK_SIZE=256", "-b", "BLOCK_SIZE=1024", "--ignore", "colours")
    assert bad.exit_code == 2 and "--ignore 'colours' is not a noise class" in bad.output


def test_changed_tokens_of_an_aligned_pair_are_only_the_ones_that_differ():
    from irscope.diffing.render import changed_spans

    left, right = "add.s32 %r85, %r84, 32768;", "add.s32 %r85, %r84, 49152;"
    sa, sb = changed_spans(left, right)
    assert [left[x:y] for x, y in sa] == ["32768"] and [right[x:y] for x, y in sb] == ["49152"]


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
def test_a_guard_is_read_not_defined(kernels, stage):
    """``@!P0 LDG.E R17, [...]`` and ``@%p2 ld.global.b32 {%r10}, [...]`` read their guard: it keeps the
    value its compare wrote (and is never taken for the line's destination)."""
    from irscope.diffing.canonical import tokenize

    va, _ = _pair(kernels, "sq", {}, {})
    lines = tokenize(stage, listing_lines(stage, va.listings[stage]))
    guarded = [x for x in lines if x.parts[0] in ("@", "@!")]
    assert len(guarded) >= 4  # the masked loads and stores
    last_write: dict[str, str] = {}  # a guard's name -> the key its last definition gave it
    for x in lines:
        if x.parts[0] in ("@", "@!"):
            assert x.dest != 0, x.parts
            if stage == Stage.SASS:  # SASS keys carry the value's version: the guard's is the last write's
                assert x.keys[0] == last_write[x.parts[1]], x.parts
        elif x.dest >= 0:
            last_write[x.parts[2 * x.dest + 1]] = x.keys[x.dest]


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
def test_each_python_line_says_how_its_access_width_and_masks_changed(kernels, stage):
    """Pointers, stride and length known to be multiples of 16 against not: the tl.load line goes from
    4-byte to 16-byte loads; the summary says so on that line."""
    from irscope.diffing.summary import summary_lines
    from irscope.ir.dialects import stage_stats

    plain = resolve_kernel(f"{kernels / 'sq.py'}:row_square", "*fp32, *fp32, i32, i32")
    aligned = resolve_kernel(f"{kernels / 'sq.py'}:row_square", "*fp32:16, *fp32:16, i32:16, i32:16")
    va, vb = capture(plain, {"BLOCK": 1024}, "sm_90"), capture(aligned, {"BLOCK": 1024}, "sm_90")
    d = diff_variants(va, vb, stage, summary_stages=(stage,))
    load = next(c for c in d.by_line if "tl.load" in c.source)
    widths = [
        {a.bytes for a in stage_stats(stage, v.listings[stage]).global_accesses if a.kind == "load"} for v in (va, vb)
    ]
    assert widths == [{4}, {16}]  # the fact the line must report
    assert any(k.startswith("load 4 B x") for k in load.access_a) and all("16 B" not in k for k in load.access_a)
    assert any(k.startswith("load 16 B x") for k in load.access_b)
    assert load.masked_a > 0 and load.masked_b > 0  # `mask=mask` on both
    assert load.access_changed
    text = "\n".join(summary_lines(d))
    assert "global accesses: load 4 B x" in text and "-> load 16 B x" in text
    store = next(c for c in d.by_line if "tl.store" in c.source)
    assert any("store 16 B" in k for k in store.access_b) and not any("load" in k for k in store.access_b)


@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
@pytest.mark.parametrize("ignore", [(), ("immediates",)])
def test_a_listing_split_at_once_gives_each_line_what_splitting_it_alone_gives(kernels, stage, ignore):
    """PTX and SASS are split at their names in one call over the whole listing (tokenize): each line's
    parts, names and shape are those of the line split by itself, on the matmul written for the tests."""
    from irscope.diffing.canonical import IMMEDIATE, NAMES, tokenize

    va, _ = _pair(kernels, "mm", {"num_stages": 3}, {})
    lines = listing_lines(stage, va.listings[stage])
    tokens = tokenize(stage, lines, ignore)
    assert len(tokens) == len(lines) > 300
    for line, x in zip(lines, tokens):
        text = IMMEDIATE.sub("#", line.text) if ignore else line.text
        parts = NAMES[stage].split(text)
        assert (x.index, x.text, x.parts, x.names) == (line.index, text, parts, parts[1::2])
        shape = list(parts)
        shape[1::2] = [n.rstrip("0123456789") for n in parts[1::2]]
        assert x.shape == "".join(shape)
        assert x.written(x.names) == text


def test_a_nul_in_a_listing_is_read_as_a_replacement_character():
    """A frame joins the text between names with NUL: a NUL of the listing's own cannot split it."""
    from irscope.diffing.canonical import tokenize

    lines = [NormalizedLine(0, "add.s32 %r1, %r2\x00, 1;"), NormalizedLine(1, "mov.u32 %r3, %r1;")]
    tokens = tokenize(Stage.PTX, lines)
    assert [x.names for x in tokens] == [["%r1", "%r2"], ["%r3", "%r1"]]
    assert tokens[0].text == "add.s32 %r1, %r2\ufffd, 1;" == tokens[0].written(tokens[0].names)


@pytest.mark.parametrize("stage", [Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS])
@pytest.mark.parametrize("count", [0, 1, 2])
def test_short_listings_split_as_their_lines_do(stage, count):
    from irscope.diffing.canonical import NAMES, tokenize

    lines = [NormalizedLine(i, f"%{i} = add %r{i}, R{i}; // .L_x_{i}") for i in range(count)]
    assert [x.names for x in tokenize(stage, lines)] == [NAMES[stage].split(x.text)[1::2] for x in lines]


def test_a_diff_leaves_the_collector_as_it_found_it(kernels):
    """The collector is paused during a diff and its survivors moved to the oldest generation after;
    it is on again afterwards, and objects the program froze itself stay frozen."""
    import gc

    va, vb = _pair(kernels, "sq", {"BLOCK": 256}, {"BLOCK": 2048})
    assert gc.isenabled()
    diff_variants(va, vb, Stage.SASS)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        diff_variants(va, vb, Stage.PTX)
        # still frozen (unfreezing would have emptied it); a few may have been freed by reference counting
        assert gc.isenabled() and 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        diff_variants(va, vb, Stage.PTX)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_sass_names_are_what_the_plain_pattern_finds(kernels):
    """NAMES[SASS] is written for speed; it finds what ``\\b(?:UR|UP|R|P|B)\\d+\\b|\\.L_x_\\d+`` finds."""
    import re

    from irscope.diffing.canonical import NAMES

    plain = re.compile(r"(\b(?:UR|UP|R|P|B)\d+\b|\.L_x_\d+)")
    va, _ = _pair(kernels, "mm", {"num_stages": 3}, {})
    texts = [
        va.listings[Stage.SASS],
        "U5 R5 UR5 UP0 P0 B1 xR5 R5x .L_x_3 a.L_x_4 UPT PT RZ URZ R5.64 [R2+0x10] "
        "-R3 |R4| !P1 U R UR UB4 PU1 _R2 R2_ 9R2 UR URR4 UUR4",
    ]
    for text in texts:
        assert NAMES[Stage.SASS].split(text) == plain.split(text)
