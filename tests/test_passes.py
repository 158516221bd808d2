"""Every MLIR pass of a real Triton compile: the pipeline's order, the IR after any pass, what a pass
changed, and the first pass where two configs part (irscope passes, sweep --passes)."""

from __future__ import annotations

import pytest

from irscope.capturing import capture
from irscope.diffing.passes import first_divergence, masked
from irscope.frontends.triton.versions import release
from irscope.ir.passes import (
    DUMP_HEADER,
    apply_delta,
    encode_delta,
    find_pass,
    header_pass,
    ir_after,
    ir_after_each,
    split_dumps,
)
from irscope.session import Session
from irscope.storage.variants import read_variant, write_variant
from irscope.types import PassStep, Stage

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

# n_cols=1024: 16-byte aligned rows, so that the coalesce pass may give a thread 4 elements.
ALIGNED = {"n_cols": 1024}

# The passes of make_ttir (third_party/nvidia/backend/compiler.py), in the order it adds them; Triton 3.8
# dropped add_rewrite_tensor_pointer.
TTIR_PASSES = [
    "inline",
    *(["triton-rewrite-tensor-pointer"] if release() < (3, 8) else []),
    "canonicalize",
    "triton-combine",
    "triton-reorder-broadcast",
    "cse",
    "symbol-dce",
    "triton-loop-unroll",
]
# The first passes of make_ttgir (3.9 assigns CGA layouts where 3.5 to 3.8 plan CTAs), and the last of make_llir.
TTGIR_FIRST = [
    "convert-triton-to-tritongpu",
    "tritongpu-coalesce",
    "tritongpu-F32DotTC",
    "triton-nvidia-gpu-plan-cta" if release() < (3, 9) else "triton-nvidia-gpu-assign-cga-layouts",
    "tritongpu-remove-layout-conversions",
]
LLIR_LAST = ["symbol-dce", "convert-nvvm-to-llvm", "enable-line-info"]


@pytest.fixture(scope="module")
def square():
    """square_kernel with BLOCK_SIZE 128 and 1024, every pass recorded (two real compiles)."""
    return {b: capture("square_kernel", {"BLOCK_SIZE": b, **ALIGNED}, arch="sm_90", passes=True) for b in (128, 1024)}


def test_square_kernels_passes_are_named_in_tritons_pipeline_order(square):
    log = square[1024].passes
    assert [s.index for s in log.steps] == list(range(1, len(log.steps) + 1))
    by_stage = {
        stage: [s for s in log.steps if s.stage == stage and not s.scope]
        for stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR)
    }
    assert [s.arg for s in by_stage[Stage.TTIR]] == TTIR_PASSES
    assert [s.arg for s in by_stage[Stage.TTGIR]][:5] == TTGIR_FIRST
    assert [s.arg for s in by_stage[Stage.LLIR]][-3:] == LLIR_LAST
    # the stages follow each other, never interleave
    stages = [s.stage for s in log.steps]
    assert stages == sorted(stages, key=[Stage.TTIR, Stage.TTGIR, Stage.LLIR].index)
    # the inliner's own canonicalize runs nested in it, on the kernel's function
    nested = [s for s in log.steps if s.scope]
    assert [(s.arg, s.scope) for s in nested] == [("canonicalize", "tt.func @square_kernel")]
    assert 60 <= len(log.steps) <= 80


def test_the_ir_after_each_stages_last_pass_is_that_stages_captured_listing(square):
    v = square[1024]
    log = v.passes
    for stage in (Stage.TTIR, Stage.TTGIR):
        last = max(s.index for s in log.steps if s.stage == stage)
        assert ir_after(log, last) == v.listings[stage]  # exactly, locations included
    # the llir stage's passes print MLIR's llvm dialect, which Triton then translates to LLVM IR
    assert "llvm.func @square_kernel" in ir_after(log, len(log.steps))
    assert ir_after(log, 0).startswith("#loc") and "tt.func public @square_kernel" in ir_after(log, 0)


def test_only_passes_that_changed_the_ir_keep_a_delta_and_the_counts_say_what_changed(square):
    log = square[1024].passes
    texts = ir_after_each(log)
    for step in log.steps:
        assert step.changed == (texts[step.index] != texts[step.index - 1])
    coalesce = find_pass(log, "tritongpu-coalesce")
    assert coalesce.changed and coalesce.ops_added == {"ttg.convert_layout": 7}
    assert "sizePerThread = [4]" not in texts[coalesce.index - 1]
    assert "sizePerThread = [4]" in texts[coalesce.index]
    lowering = find_pass(log, "convert-triton-gpu-to-llvm")
    assert lowering.ops_removed["tt.load"] == 1 and lowering.ops_added["llvm.inline_asm"] >= 1
    assert find_pass(log, "canonicalize#2").index > find_pass(log, "canonicalize").index


def test_line_operations_rebuild_the_ir_after_a_pass_from_the_ir_before_it(square):
    texts = ir_after_each(square[128].passes)
    for before, after in zip(texts, texts[1:]):
        a, b = before.splitlines(), after.splitlines()
        assert apply_delta(a, encode_delta(a, b)) == b


def test_block_size_128_and_1024_first_part_at_the_coalesce_pass_that_picks_size_per_thread(square):
    found = first_divergence(square[128].passes, square[1024].passes)
    assert found.step_a.arg == "tritongpu-coalesce" and found.step_a.stage == Stage.TTGIR
    added = [ln.text for h in found.between for ln in h.b if h.tag != "equal"]
    removed = [ln.text for h in found.between for ln in h.a if h.tag != "equal"]
    assert any("sizePerThread = [4]" in t for t in added)
    assert not any("sizePerThread" in t for t in removed)  # A keeps its [1] layout; B gains a [4] one
    # every pass before it differs only in the config's own constants: 128 against 1024
    assert "tensor<128x" in ir_after(square[128].passes, found.index - 1)


def test_the_cli_names_the_first_divergence_and_shows_the_layout_change(cli, square):
    coalesce = find_pass(square[1024].passes, "tritongpu-coalesce").index
    assert coalesce == len(TTIR_PASSES) + 3  # after make_ttir's, the nested canonicalize, convert-triton-to-tritongpu
    result = cli(
        "passes",
        "square_kernel",
        "--first-divergence",
        "-a",
        "BLOCK_SIZE=128,n_cols=1024",
        "-b",
        "BLOCK_SIZE=1024",
        "-b",
        "n_cols=1024",
    )
    assert result.exit_code == 0, result.output
    assert f"first divergence: pass {coalesce} TritonGPUCoalesce (tritongpu-coalesce), stage ttgir" in result.output
    assert "+#blocked1 = #ttg.blocked<{sizePerThread = [4]" in result.output
    assert "what tritongpu-coalesce did in A" in result.output and "what tritongpu-coalesce did in B" in result.output


def test_the_cli_prints_the_pipeline_the_ir_after_a_pass_and_a_passs_diff(cli, square):
    coalesce = find_pass(square[1024].passes, "tritongpu-coalesce").index
    table = cli("passes", "square_kernel", "-c", "BLOCK_SIZE=1024", "-c", "n_cols=1024")
    assert table.exit_code == 0
    rows = table.output.splitlines()
    assert any(r.split()[:2] == ["#", "pass"] for r in rows) and any("── ttgir" in r for r in rows)
    assert any("TritonGPUCoalesce (tritongpu-coalesce)" in r and "+ttg.convert_layout x7" in r for r in rows)
    after = cli("passes", "square_kernel", "-c", "BLOCK_SIZE=1024", "-c", "n_cols=1024", "--after", str(coalesce))
    assert "#ttg.blocked<{sizePerThread = [4]" in after.output
    diff = cli("passes", "square_kernel", "-c", "BLOCK_SIZE=1024", "-c", "n_cols=1024", "--diff", "tritongpu-coalesce")
    assert f"--- before {coalesce} tritongpu-coalesce" in diff.output and "\n+" in diff.output


def test_a_session_swept_with_passes_keeps_them(cli, tmp_path, square):
    out = tmp_path / "square"
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=1024", "-c", "n_cols=1024", "-o", str(out), "--passes")
    assert result.exit_code == 0, result.output
    stored = next((out / "variants").iterdir())
    assert (stored / "passes.json.gz").is_file()
    session = Session.open(out)
    assert session.variant(session.entries[0]).passes == square[1024].passes
    table = cli("passes", str(out), "-c", "BLOCK_SIZE=1024")
    assert table.exit_code == 0 and "TritonGPUCoalesce" in table.output


def test_a_variant_written_and_read_back_keeps_its_passes(tmp_path, square):
    write_variant(tmp_path / "v", square[128])
    assert read_variant(tmp_path / "v").passes == square[128].passes


@pytest.mark.parametrize(
    "args, code, words",
    [
        (("square_kernel", "--after", "no-such-pass"), 2, "no pass 'no-such-pass'"),
        (("square_kernel", "--after", "999"), 2, "no pass 999"),
        (("square_kernel", "--after", "3", "--diff", "4"), 2, "do not go together"),
        (("square_kernel", "--first-divergence", "-a", "BLOCK_SIZE=128"), 2, "needs both"),
        (("gelu_tanh_kernel",), 2, "only Triton (Gluon's too) and TileLang kernels"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_a_documented_exit_code(run_irscope, args, code, words):
    result = run_irscope("passes", *args)
    assert result.returncode == code
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


DUMP = """\
// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //
module {
  tt.func public @k() {
    tt.return loc(#loc1)
  } loc(#loc)
} loc(#loc)


// -----// IR Dump Before Canonicalizer (canonicalize) ('tt.func' operation: @k) //----- //
module {
}


// -----// IR Dump Before TritonGPUPipeline (tritongpu-pipeline) ('builtin.module' operation) //----- //
module {
}

// -----// SoftwarePipeliner internal IR Dump After: LowerLoops
module {
  scf.for
}
"""


def test_dumps_split_at_their_headers_with_scope_and_the_pipeliners_own_dumps_left_out():
    dumps = split_dumps(DUMP)
    assert [(d.name, d.arg, d.scope) for d in dumps] == [
        ("Inliner", "inline", ""),
        ("Canonicalizer", "canonicalize", "tt.func @k"),
        ("TritonGPUPipeline", "tritongpu-pipeline", ""),
    ]
    assert dumps[0].before.startswith("module {") and dumps[0].before.endswith("} loc(#loc)\n")
    assert dumps[2].before == "module {\n}\n"


# The same passes' headers as MLIR prints them until Triton 3.7 and from 3.8 on (square_kernel, 3.6 and 3.9).
HEADERS_37 = """\
// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //
// -----// IR Dump Before Canonicalizer (canonicalize) ('tt.func' operation: @square_kernel) //----- //
// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //
// -----// IR Dump Before TritonGPUF32DotTC (tritongpu-F32DotTC) ('builtin.module' operation) //----- //
// -----// IR Dump Before ConvertTritonGPUToLLVM (convert-triton-gpu-to-llvm) ('builtin.module' operation) //----- //
// -----// IR Dump Before SymbolDCE (symbol-dce) ('builtin.module' operation) //----- //
"""
HEADERS_38 = """\
// -----// IR Dump Before InlinerPass: inline{default-pipeline=canonicalize inlining-threshold=4294967295 max-iterations=4 } ('builtin.module' operation) //----- //
// -----// IR Dump Before CanonicalizerPass: canonicalize{cse-between-iterations=false    max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true} ('tt.func' operation: @square_kernel) //----- //
// -----// IR Dump Before TritonGPUCoalesce: tritongpu-coalesce ('builtin.module' operation) //----- //
// -----// IR Dump Before TritonGPUF32DotTC: tritongpu-F32DotTC{emu-tf32=true} ('builtin.module' operation) //----- //
// -----// IR Dump Before ConvertTritonGPUToLLVM: convert-triton-gpu-to-llvm{compute-capability=90 ptx-version=94} ('builtin.module' operation) //----- //
// -----// IR Dump Before SymbolDCEPass: symbol-dce ('builtin.module' operation) //----- //
"""


def test_both_header_forms_give_each_passs_argument_and_scope_alike():
    args = ["inline", "canonicalize", "tritongpu-coalesce", "tritongpu-F32DotTC", "convert-triton-gpu-to-llvm"]
    args.append("symbol-dce")
    scopes = ["", "tt.func @square_kernel", "", "", "", ""]
    old, new = split_dumps(HEADERS_37), split_dumps(HEADERS_38)
    assert [(d.arg, d.scope) for d in old] == [(d.arg, d.scope) for d in new] == list(zip(args, scopes))
    assert [d.name for d in old][:3] == ["Inliner", "Canonicalizer", "TritonGPUCoalesce"]
    assert [d.name for d in new][:3] == ["InlinerPass", "CanonicalizerPass", "TritonGPUCoalesce"]
    for text in (HEADERS_37, HEADERS_38):
        headers = text.splitlines()
        assert [header_pass(DUMP_HEADER.match(h))[1] for h in headers] == args


def test_the_configs_own_constants_are_masked_and_layouts_are_not():
    step = PassStep(1, "X", "x", Stage.TTGIR)
    a = (
        "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
        "%c128_i32 = arith.constant 128 : i32\n%0 = tt.make_range {end = 128 : i32, start = 0 : i32} : "
        "tensor<128xi32, #blocked>\n"
    )
    b = a.replace("128", "1024")
    assert [x.text for x in masked(step, a)][1:] == [x.text for x in masked(step, b)][1:]
    c = a.replace("sizePerThread = [1]", "sizePerThread = [4]")
    assert [x.text for x in masked(step, a)] != [x.text for x in masked(step, c)]
