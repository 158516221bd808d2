"""`passes --first-divergence` proved against Triton's own pass dumps (issue 30, point 3).

The independent source: Triton compiles both configs in a subprocess of its own, with
``MLIR_ENABLE_DUMP=1``, ``TRITON_ALWAYS_COMPILE=1`` and a fresh ``TRITON_CACHE_DIR``; the raw stderr
is split here by a splitter of this file (not irscope's), keeping the dumps before each pass over
the whole module; a minimal normalisation of this file's own makes the configs' numbers alike; the
first pass whose output differs (the dump before the pass after it) is the answer irscope must
give. irscope may name a pass nested in that one (a canonicalize the inliner runs on the kernel's
function): it is taken to the module-level pass around it.

On kernels written for the tests (tests/written_kernels.py): a reduction with tl.max and tl.sum
(whose helpers' symbols spell the block size), a tiled tl.dot matmul with a K loop (num_stages), and
an elementwise kernel; each with a block shape change, and num_warps or num_stages.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from written_kernels import MM_UNIT_B, ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE, SCALED_ADD, TILE_MM

from irscope.capturing import capture
from irscope.diffing.passes import first_divergence
from irscope.frontends import resolve_kernel

SCALED_ADD_SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32"

# Each kernel as irscope reads it (its source and -S signature) and as the subprocess compiles it: the
# runtime parameters' types, those declared 16-byte divisible, and runtime parameters made constants
# (the JIT's int equal to 1).
KERNELS = {
    "row_softmax": (
        ROW_SOFTMAX,
        ROW_SOFTMAX_SIGNATURE,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "stride": "i32"},
        ["x_ptr", "y_ptr", "stride"],
        {},
    ),
    "tile_mm": (
        TILE_MM,
        MM_UNIT_B,
        {
            **dict.fromkeys(["a_ptr", "b_ptr", "c_ptr"], "*fp16"),
            **dict.fromkeys(["M", "N", "K", "stride_am", "stride_bk", "stride_cm"], "i32"),
        },
        ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
        {"stride_bn": 1},
    ),
    "scaled_add": (
        SCALED_ADD,
        SCALED_ADD_SIGNATURE,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
        ["x_ptr", "y_ptr", "out_ptr", "n"],
        {},
    ),
}
# Block sizes no two of which are equal within a config: equal constants are one value after CSE, which
# would part the configs by a coincidence of their numbers rather than by a decision of the compiler.
MM = {"BM": 64, "BK": 32, "num_warps": 4}
CASES = [
    ("row_softmax", "block shape", {"BLOCK": 256, "num_warps": 4}, {"BLOCK": 1024, "num_warps": 4}),
    ("row_softmax", "num_warps", {"BLOCK": 1024, "num_warps": 2}, {"BLOCK": 1024, "num_warps": 8}),
    ("tile_mm", "num_stages", {**MM, "BN": 128, "num_stages": 2}, {**MM, "BN": 128, "num_stages": 3}),
    ("tile_mm", "block shape", {**MM, "BN": 128}, {**MM, "BN": 256}),
    ("scaled_add", "block shape", {"BLOCK": 128, "num_warps": 4}, {"BLOCK": 1024, "num_warps": 4}),
    ("scaled_add", "num_warps", {"BLOCK": 1024, "num_warps": 2}, {"BLOCK": 1024, "num_warps": 8}),
]
DEFAULTS = {"num_warps": 4, "num_stages": 3}

# The subprocess: Triton's own compile of the file's kernel, ahead of time for sm_90, nothing of irscope's.
COMPILE = textwrap.dedent("""
    import importlib.util, json, sys
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    path, name, signature, divisible, constants, options = sys.argv[1], sys.argv[2], *map(json.loads, sys.argv[3:])
    spec = importlib.util.spec_from_file_location("written", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name)
    signature = {p: signature.get(p, "constexpr") for p in fn.arg_names}
    attrs = {(fn.arg_names.index(p),): [["tt.divisibility", 16]] for p in divisible}
    triton.compile(ASTSource(fn, signature, constants, attrs), target=GPUTarget("cuda", 90, 32), options=options)
""")


def _raw_dumps(tmp_path, name: str, config: dict) -> str:
    """Triton's stderr while it compiles ``config`` with every pass dumped."""
    source, _, types, divisible, fixed = KERNELS[name]
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    script = tmp_path / "compile.py"
    script.write_text(COMPILE)
    options = {**DEFAULTS, **{k: v for k, v in config.items() if k in DEFAULTS}}
    constants = {**fixed, **{k: v for k, v in config.items() if k not in DEFAULTS}}
    cache = tmp_path / f"cache-{len(list(tmp_path.iterdir()))}"
    env = {**os.environ, "MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1", "TRITON_CACHE_DIR": str(cache)}
    env.pop("MLIR_DUMP_PATH", None)
    args = [json.dumps(x) for x in (types, divisible, constants, options)]
    done = subprocess.run(
        [sys.executable, str(script), str(path), name, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


# ---------------------------------------------------------------- this file's own splitter and normaliser

# // -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //
MODULE_DUMP = re.compile(
    r"^// -----// IR Dump Before \S+ \((?P<arg>[^)]+)\) \('builtin\.module' operation\) //----- //$"
)


def module_dumps(stderr: str) -> list[tuple[str, str]]:
    """``(pass argument, IR before it)`` for every pass over the whole module, in order. Every line
    starting ``// -----//`` opens a section; those of nested passes and the pipeliner's own dumps are
    dropped."""
    sections = re.split(r"^(?=// -----//)", stderr, flags=re.M)
    out = []
    for section in sections:
        header, _, body = section.partition("\n")
        m = MODULE_DUMP.match(header)
        if m:
            out.append((m["arg"], body))
    return out


# What every line but a layout definition has read as #, in this order: the numbers in a symbol (a
# helper's symbol spells its shape), the dimensions of tensor<128x64xf16> and memdesc<3x128x64xf16>
# (each followed by an x), a range's bounds.
MASKS = (
    (re.compile(r'@"[^"]*"|@[\w.$]+'), lambda m: re.sub(r"\d+", "#", m[0])),
    (re.compile(r"(?<=[<x])\d+(?=x)"), "#"),
    (re.compile(r"\b(start|end) = \d+"), r"\1 = #"),
)
# In a constant's line, every number standing alone (not in a name or a type: i32, %c128_i32, #blocked1)
CONSTANT, NUMBER = re.compile(r"\b(?:arith|llvm\.mlir)\.constant\b"), re.compile(r"(?<![A-Za-wyz_.$%#\d])\d+")
VALUE, LAYOUT = re.compile(r"%[\w.$#]+"), re.compile(r"^#\w+ = #")


def _without_locations(line: str) -> str:
    out, depth, i = [], 0, 0
    while i < len(line):
        if depth == 0 and line.startswith("loc(", i):
            depth, i = 1, i + 4
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(line[i], 0)
        else:
            out.append(line[i])
        i += 1
    return "".join(out).rstrip()


def normalised(ir: str) -> list[str]:
    """The IR with what the config itself writes into it read alike, and nothing else: locations dropped,
    values renamed by first appearance, and as ``#`` the numbers of constants, of tensor and buffer
    shapes, of ranges' bounds and in symbols (a helper's symbol spells its shape). Layouts and every
    other attribute (a loop's latency, a module's warp count) are the compiler's and stay."""
    names: dict[str, str] = {}
    out = []
    for line in ir.splitlines():
        if not line.strip() or line.startswith("#loc"):
            continue
        line = _without_locations(line)
        if not LAYOUT.match(line):
            for pattern, replacement in MASKS:
                line = pattern.sub(replacement, line)
            if CONSTANT.search(line):
                line = NUMBER.sub("#", line)
        line = VALUE.sub(lambda m: names.setdefault(m[0], f"%v{len(names)}"), line)
        out.append(line)
    return out


def raw_first_divergence(stderr_a: str, stderr_b: str) -> tuple[str, int] | None:
    """The module-level pass after which A's and B's IR first differ, as (argument, its occurrence
    among the module-level passes so far, from 1); None where the dumps never differ."""
    dumps_a, dumps_b = module_dumps(stderr_a), module_dumps(stderr_b)
    assert [a for a, _ in dumps_a] == [b for b, _ in dumps_b]  # one pipeline
    assert len(dumps_a) > 30
    assert normalised(dumps_a[0][1]) == normalised(dumps_b[0][1]), "different before the first pass"
    for k in range(1, len(dumps_a)):
        if normalised(dumps_a[k][1]) != normalised(dumps_b[k][1]):
            arg = dumps_a[k - 1][0]
            return arg, sum(a == arg for a, _ in dumps_a[:k])
    return None


def irscope_first_divergence(log_a, log_b) -> tuple[str, int] | None:
    """irscope's answer, taken to the module-level pass it runs in, as raw_first_divergence gives it."""
    found = first_divergence(log_a, log_b)
    assert found.index != 0, found.reason  # never "before the first pass"
    if found.index is None:
        return None
    module_level = [s for s in log_a.steps[: found.index] if not s.scope]
    arg = module_level[-1].arg
    return arg, sum(s.arg == arg for s in module_level)


@pytest.mark.parametrize("name,change,a,b", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_first_divergence_is_the_pass_the_raw_dumps_name(tmp_path, name, change, a, b):
    raw = raw_first_divergence(_raw_dumps(tmp_path, name, a), _raw_dumps(tmp_path, name, b))
    source, signature, *_ = KERNELS[name]
    (tmp_path / "irscope").mkdir()
    path = tmp_path / "irscope" / f"{name}.py"
    path.write_text(source)
    kernel = resolve_kernel(f"{path}:{name}", signature)
    va, vb = (capture(kernel, {**DEFAULTS, **config}, "sm_90", passes=True) for config in (a, b))
    assert va.ok and vb.ok, (va.error, vb.error)
    assert raw is not None, "the raw dumps never differ"
    assert irscope_first_divergence(va.passes, vb.passes) == raw


def test_the_splitter_keeps_module_passes_and_drops_nested_and_pipeliner_dumps():
    text = (
        "// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //\n"
        "module {\n}\n"
        "// -----// IR Dump Before Canonicalizer (canonicalize) ('tt.func' operation: @k) //----- //\n"
        "tt.func @k\n"
        "// -----// IR Dump Before TritonGPUPipeline (tritongpu-pipeline) ('builtin.module' operation) //----- //\n"
        "module { scf.for }\n"
        "// -----// SoftwarePipeliner internal IR Dump After: LowerLoops\n"
        "module { lowered }\n"
    )
    assert module_dumps(text) == [("inline", "module {\n}\n"), ("tritongpu-pipeline", "module { scf.for }\n")]
    ir = (
        "%c128_i32 = arith.constant 128 : i32 loc(#loc3)\n"
        'tt.call @"f__fp32S128S__"() : () -> () loc(callsite(#loc1 at #loc2))\n'
        "%0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>\n"
        "%1 = tt.load %0 {tt.latency = 2 : i32} : !ttg.memdesc<3x128x64xf16, #shared>\n"
        "#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
    )
    assert normalised(ir) == [
        "%v0 = arith.constant # : i32",
        'tt.call @"f__fp#S#S__"() : () -> ()',
        "%v1 = tt.make_range {end = # : i32, start = # : i32} : tensor<#xi32, #blocked>",
        "%v2 = tt.load %v1 {tt.latency = 2 : i32} : !ttg.memdesc<#x#x#xf16, #shared>",
        "#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>",
    ]
