"""The native core (irscope.diff._native_tokens) computes exactly what the Python computes.

Cleaning (normalize.clean_sass, clean_ptx) and splitting at names (canonical.tokenize for PTX and
SASS) are compared field by field, native against Python, on listings compiled by irscope, on the
recorded samples, and on thousands of random strings made of the characters and fragments where the
two could part ways."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from written_kernels import MM_UNIT_B, TILE_MM

from irscope.capture import capture
from irscope.diff import canonical, native
from irscope.diff.canonical import Line
from irscope.frontends import resolve_kernel
from irscope.ir import normalize
from irscope.ir.normalize import NormalizedLine
from irscope.types import Stage

REPO = Path(__file__).resolve().parent.parent
KINDS = {Stage.PTX: "ptx", Stage.SASS: "sass"}
HEAD_WRITES = {Stage.PTX: canonical._ptx_head_writes, Stage.SASS: canonical._sass_head_writes}
CLEANERS = {Stage.PTX: ("clean_ptx", normalize._clean_ptx_python),
            Stage.SASS: ("clean_sass", normalize._clean_sass_python)}

needs_native = pytest.mark.skipif(native.tokens is None, reason="the native core is not built here")


def test_the_native_core_is_there_where_it_is_required():
    """CI builds the extension and sets IRSCOPE_REQUIRE_NATIVE=1: a silent fall back to Python fails."""
    if os.environ.get("IRSCOPE_REQUIRE_NATIVE") != "1":
        pytest.skip("IRSCOPE_REQUIRE_NATIVE is not set")
    assert native.tokens is not None
    assert Path(native.tokens.__file__).parent == Path(canonical.__file__).parent


def test_irscope_pure_python_turns_the_native_core_off():
    code = "from irscope.diff import native; print(native.PURE_PYTHON, native.tokens)"
    env = {**os.environ, "IRSCOPE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["True", "None"]


# ---------------------------------------------------------------- comparing

def _python_tokens(stage: Stage, lines: list[NormalizedLine]) -> list[Line]:
    return canonical._tokenize_python(stage, lines, [x.text for x in lines])


def _sharing(x: Line) -> tuple[bool, bool, bool]:
    """Which of a line's lists are one object (Python shares some; the native core must share alike)."""
    return x.keys is x.names, x.reads is x.keys, x.reads is x.names


def assert_same_tokens(stage: Stage, lines: list[NormalizedLine]) -> list[Line]:
    """The native split of ``lines`` is the Python one in every field, type and sharing; and the public
    tokenize gives it."""
    expected = _python_tokens(stage, lines)
    got = native.tokens.tokenize(KINDS[stage], [x.index for x in lines], [x.text for x in lines], Line,
                                 HEAD_WRITES[stage])
    assert got is not None
    assert len(got) == len(expected)
    for x, y in zip(got, expected):
        assert type(x) is Line
        assert x == y, (x, y)
        assert list(map(type, x)) == list(map(type, y)), (x, y)
        assert _sharing(x) == _sharing(y), (x, y)
    # no list is shared between two lines (Python makes each line its own)
    lists = [id(v) for x in got for v in {id(x.names): x.names, id(x.keys): x.keys, id(x.reads): x.reads}.values()]
    assert len(lists) == len(set(lists))
    assert canonical.tokenize(stage, lines) == expected
    return got


def assert_same_cleaning(stage: Stage, text: str) -> tuple[list[int], list[str]]:
    name, python = CLEANERS[stage]
    expected = python(text)
    got = getattr(native.tokens, name)(text)
    assert got is not None
    indices, texts = got
    assert (indices, texts) == ([x.index for x in expected], [x.text for x in expected])
    assert all(type(i) is int for i in indices) and all(type(t) is str for t in texts)
    public = getattr(normalize, name)(text)
    assert public == expected and all(type(x) is NormalizedLine for x in public)
    return indices, texts


def assert_native_matches(stage: Stage, listing: str) -> int:
    """Cleaning and splitting of one listing, native against Python; the number of lines kept."""
    indices, texts = assert_same_cleaning(stage, listing)
    lines = normalize.normalized_lines(indices, texts)
    assert_same_tokens(stage, lines)
    # the immediates-dropped texts go through the native core as well
    drop = canonical._tokenize_python(stage, lines, [canonical.IMMEDIATE.sub("#", x.text) for x in lines])
    assert canonical.tokenize(stage, lines, ("immediates",)) == drop
    assert canonical.listing_tokens(stage, listing) == (lines, _python_tokens(stage, lines))
    return len(lines)


# ---------------------------------------------------------------- real listings

BUILTIN = [("softmax_kernel", {"BLOCK_SIZE": 1024, "num_warps": 4}, "sm_90"),
           ("softmax_kernel", {"BLOCK_SIZE": 1024, "num_warps": 4}, "sm_80"),
           ("square_kernel", {"BLOCK_SIZE": 256}, "sm_80"),
           ("square_kernel", {"BLOCK_SIZE": 2048, "num_warps": 8}, "sm_90"),
           ("matmul_kernel", {}, "sm_90"),
           ("matmul_kernel", {}, "sm_80"),
           ("gelu_kernel", {}, "sm_90")]


@needs_native
@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
@pytest.mark.parametrize("kernel, params, arch", BUILTIN)
def test_builtin_kernels_clean_and_split_alike(kernel, params, arch, stage):
    v = capture(kernel, params, arch=arch)
    assert v.ok, v.error
    assert assert_native_matches(stage, v.listings[stage]) > 50


@pytest.fixture(scope="module")
def tile_mm(tmp_path_factory):
    path = tmp_path_factory.mktemp("native") / "mm.py"
    path.write_text(TILE_MM)
    return resolve_kernel(f"{path}:tile_mm", MM_UNIT_B)


@needs_native
@pytest.mark.parametrize("stage", [Stage.PTX, Stage.SASS])
@pytest.mark.parametrize("params", [{"BM": 128, "BN": 128, "BK": 64, "num_warps": 8, "num_stages": 3},
                                    {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4, "num_stages": 2}])
def test_a_kernel_written_for_the_tests_cleans_and_splits_alike(tile_mm, params, stage):
    v = capture(tile_mm, params, "sm_90")
    assert v.ok, v.error
    assert assert_native_matches(stage, v.listings[stage]) > 300


SAMPLE_LISTINGS = sorted((REPO / "samples").rglob("*.ptx")) + sorted((REPO / "samples").rglob("*.sass"))


@needs_native
@pytest.mark.parametrize("path", SAMPLE_LISTINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recorded_samples_clean_and_split_alike(path):
    assert SAMPLE_LISTINGS
    stage = Stage.PTX if path.suffix == ".ptx" else Stage.SASS
    assert assert_native_matches(stage, path.read_text()) > 10


# ---------------------------------------------------------------- random text

CHARS = "%rdfpb0123456789$L_B.xRPUBZ @!,;[]{}+-/*\t\r\n\x0b\x0c\x1c\x1d\x1e\x1f:<>ace"
FRAGMENTS = [".reuse", "/*00a0*/", "/* 0x00 */", "//", ".loc", ".reg .b32 %r<12>;", "$L__BB0_3", ".L_x_12", "UR4",
             "@!P0 ", "@P1 ", "@%p1 ", "@!%p2 ", ".section", ".file", "$L__tmp3:", "$L__func_begin0:", "<7>",
             ".reg ", "\r\n", "\n", "UP1", "URZ", "%rd12", "%r5", "$L12", "ST.E ", "LDG.E ", "IMAD ", "BRA ",
             "st.global.b32 ", "mov.u32 ", "ld.global.b32 ", "[%rd1]", "{", "}", ".re", "use", "/*", "*/", "ff",
             "R2.reuse", ".L_x_3:", "       ", "\t\t", "HGMMA ", "B1", "P0", "R255",
             # the prefixes of names and markers, which must not match alone
             "$L__tmp", "$L__func_end", "$L__info_string2", "$L__BB2_", "$L__BB", "$L", "%r", "U", ".L_x_", "<12",
             ".reg\t", ".sec", "/*0", "*/ ", "R2_", "_R2", "<>", "\n.reg .pred %p<>;", "\n.reg .b64 %rd<3a>;"]


def random_text(rng: random.Random, pieces: int) -> str:
    return "".join(rng.choice(FRAGMENTS) if rng.random() < 0.4 else rng.choice(CHARS) for _ in range(pieces))


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_random_text_cleans_alike(seed):
    rng = random.Random(seed)
    kept = 0
    for _ in range(1500):
        text = random_text(rng, rng.randrange(0, 80))
        for stage in (Stage.PTX, Stage.SASS):
            kept += len(assert_same_cleaning(stage, text)[0])
    assert kept > 1000  # the strings were not all thrown away


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_random_lines_split_alike(seed):
    """Random lines, as cleaned and as they come (any ASCII but NUL and newline is a line)."""
    rng = random.Random(seed)
    named = 0
    for _ in range(600):
        text = random_text(rng, rng.randrange(0, 120))
        for stage in (Stage.PTX, Stage.SASS):
            raw = [NormalizedLine(rng.randrange(10**6), t) for t in text.split("\n")]
            cleaned = CLEANERS[stage][1](text)
            for lines in (raw, cleaned):
                named += sum(bool(x.names) for x in assert_same_tokens(stage, lines))
    assert named > 1000  # the lines had names to split at


@needs_native
def test_the_tokens_of_one_listing_version_sass_names_across_lines():
    """Versions carry from line to line (a random listing has few writes; this one many)."""
    text = "\n".join(["IMAD R4, R4, R5", "@P0 LDG.E R4, [R2.64]", "@!P1 BRA .L_x_3", "HGMMA R24, gdesc[UR8], R24",
                      ".L_x_3:", "ST.E [R2.64], R4", "MOV R4, UR4", "IADD3 R4, R4, 1", "@!UP0 UMOV UR4, 0x1",
                      "EXIT", "{ R5 }"] * 3)
    lines = normalize.normalized_lines(*native.tokens.clean_sass(text))
    got = assert_same_tokens(Stage.SASS, lines)
    # an update in place reads and writes one value: the line's every R4 is the new version
    assert got[0].keys == ["R4.1", "R4.1", "R5.0"] and got[0].dest == 0 and got[0].reads == ["R4.1", "R5.0"]
    assert got[1].keys == ["P0.0", "R4.2", "R2.0"] and got[1].dest == -1  # a guarded write: a version, no definition
    assert got[11].keys == ["R4.5", "R4.5", "R5.1"]  # the next round goes on counting
    assert got[10].template == "{{ {} }}"


# ---------------------------------------------------------------- text the native core leaves to Python

@needs_native
@pytest.mark.parametrize("text", ["IMAD R4, R4, R5 // é", "R1\x00R2", "add.s32 %r1, %r2\x00, 1;", "\u2028R1",
                                  "mov.u32 %r1, %r2;\x85R3"])
def test_text_not_ascii_or_with_a_nul_is_left_to_python(text):
    for stage in (Stage.PTX, Stage.SASS):
        name, python = CLEANERS[stage]
        assert getattr(native.tokens, name)(text) is None
        assert getattr(normalize, name)(text) == python(text)
        lines = [NormalizedLine(0, text), NormalizedLine(1, "R1 %r1")]
        assert native.tokens.tokenize(KINDS[stage], [0, 1], [text, "R1 %r1"], Line, HEAD_WRITES[stage]) is None
        assert canonical.tokenize(stage, lines) == _python_tokens(stage, lines)


@needs_native
def test_a_text_with_a_newline_is_left_to_python():
    """Not one line: Python splits such texts one by one (its other branch); the native core declines."""
    lines = [NormalizedLine(0, "mov.u32 %r1, %r2;\nadd.s32 %r3, %r1, 1;"), NormalizedLine(1, "bra $L__BB0_2;")]
    texts = [x.text for x in lines]
    assert native.tokens.tokenize("ptx", [0, 1], texts, Line, canonical._ptx_head_writes) is None
    assert canonical.tokenize(Stage.PTX, lines) == _python_tokens(Stage.PTX, lines)


@needs_native
def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        native.tokens.tokenize("llir", [0], ["x"], Line, canonical._ptx_head_writes)
    with pytest.raises(ValueError):
        native.tokens.tokenize("ptx", [0, 1], ["x"], Line, canonical._ptx_head_writes)
    with pytest.raises(TypeError):
        native.tokens.tokenize("ptx", [0], ["x"], list, canonical._ptx_head_writes)
    with pytest.raises(ZeroDivisionError):  # an error in head_writes comes through
        native.tokens.tokenize("sass", [0], ["MOV R1, R2"], Line, lambda head: 1 / 0)
