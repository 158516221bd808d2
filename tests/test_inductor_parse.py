"""Reading Inductor output code: real TORCH_LOGS=output_code logs recorded on an H200 (torch 2.11).

The fixtures are samples/inductor/*.log. What they hold, and so what is asserted:
square (1 pointwise), gelu_tanh (1 pointwise), softmax (1 persistent reduction),
mlp_layernorm (a training forward: layer-norm persistent reduction, two pointwise
kernels, and addmm/mm as extern cuBLAS calls), reduction (3 reductions and 2
persistent reductions), matmul_autotune (max-autotune: the Triton mm template won,
so there is a template kernel, a pointwise relu, and no extern call at all).
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest

from irscope.errors import UsageError
from irscope.interop.inductor.parse import (
    InductorLogError,
    NoTritonKernels,
    OutputCode,
    TruncatedLog,
    parse_log,
    parse_output_code,
)

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "inductor"

# V1121 08:30:38.701000 672 torch/_inductor/graph.py:2552] [0/0] [__output_code] <text>
# (written independently of the parser's own regexes, to cross-check it)
PREFIX = re.compile(r"^V\d{4} [\d:.]+ \d+ torch/_inductor/graph\.py:2552\] \[0/0\] \[__output_code\] ")

EXPECTED = {
    "square": [("triton_poi_fused_pow_0", "pointwise")],
    "gelu_tanh": [("triton_poi_fused_gelu_0", "pointwise")],
    "softmax": [("triton_per_fused__softmax_exp_prepare_softmax_online_sub_0", "persistent_reduction")],
    "mlp_layernorm": [
        ("triton_per_fused_native_layer_norm_0", "persistent_reduction"),
        ("triton_poi_fused_gelu_view_1", "pointwise"),
        ("triton_poi_fused_add_addmm_view_2", "pointwise"),
    ],
    "reduction": [
        ("triton_red_fused_mean_pow_0", "reduction"),
        ("triton_red_fused_add_mean_mul_pow_rsqrt_sum_1", "reduction"),
        ("triton_per_fused_add_mean_mul_pow_rsqrt_sum_2", "persistent_reduction"),
        ("triton_red_fused_abs_amax_3", "reduction"),
        ("triton_per_fused_abs_amax_4", "persistent_reduction"),
    ],
    "matmul_autotune": [("triton_tem_fused_mm_0", "template"), ("triton_poi_fused_relu_1", "pointwise")],
}


def log_text(name: str) -> str:
    return (SAMPLES / f"{name}.log").read_text()


def only(name: str) -> OutputCode:
    outputs = parse_log(log_text(name))
    assert len(outputs) == 1
    return outputs[0]


def kernel(name: str, kernel_name: str):
    return next(k for k in only(name).kernels if k.name == kernel_name)


def bare_module(log: str) -> str:
    """The module as Inductor wrote it to its .py: the record's lines, prefixes removed."""
    lines = [PREFIX.sub("", line) for line in log.split("\n") if PREFIX.match(line)]
    assert lines[0].strip() == "Output code:"
    return "\n".join(lines[1:])


# ---------------------------------------------------------------- the fixtures


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_parses_to_its_kernels(name):
    out = only(name)
    assert out.graph == "[0/0]"
    assert [(k.name, k.kind) for k in out.kernels] == EXPECTED[name]
    # The module is the logged record, prefixes off, and nothing from other loggers.
    assert out.module == bare_module(log_text(name))
    assert "Output code written to" not in out.module
    assert "Autotune Choices Stats" not in out.module
    for k in out.kernels:
        assert k.arch == "sm_90"
        assert k.device["type"] == "cuda" and k.device["cc"] == 90 and k.device["multi_processor_count"] == 132
        assert "_type" not in k.device
        assert k.heuristic_args["triton_meta"] is not None and k.triton_meta is k.heuristic_args["triton_meta"]
        assert k.inductor_meta["kernel_name"] == k.name
        assert k.kernel_path.startswith("/tmp/") and k.kernel_path.endswith(".py")
        assert k.user_source == ()  # torch 2.11 writes no "# File:" lines
        assert len(k.launches) == 1 and k.launches[0].startswith(f"{k.name}.run(")
        assert f"def {k.name}(" in k.source


def test_pointwise_kernel_square():
    k = kernel("square", "triton_poi_fused_pow_0")
    assert k.source.startswith("\nimport triton\nimport triton.language as tl\n")
    assert k.source.endswith("    tl.store(out_ptr0 + (x0), tmp1, None)\n")
    assert k.source_nodes == ("square",)
    assert k.aten_ops == ("aten.pow",)
    assert k.node_map == ("square => pow_1",)
    assert k.graph_fragment == (
        '%arg0_1 : Tensor "f32[4096, 4096][4096, 1]cuda:0" = PlaceHolder[target=arg0_1]',
        '%pow_1 : Tensor "f32[4096, 4096][4096, 1]cuda:0"[num_users=1] = call_function'
        "[target=torch.ops.aten.pow.Tensor_Scalar](args = (%arg0_1, 2), kwargs = {})",
        "return %pow_1",
    )
    assert k.signature == {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}
    assert k.divisible_by_16 == ("in_ptr0", "out_ptr0", "xnumel")
    assert k.constants == {}
    assert k.launches == ("triton_poi_fused_pow_0.run(arg0_1, buf0, 16777216, stream=stream0)",)
    assert k.launch_args == ("arg0_1", "buf0", "16777216")
    assert k.kernel_path == "/tmp/tmphq63mzyz/rx/crxuf2uvvzzmhgspkfcmhdahmbuhcw4uicozp4neiwdpen7yhl7b.py"
    args = k.heuristic_args
    assert args["size_hints"] == {"x": 16777216}
    assert args["filename"] is None  # filename=__file__
    assert args["min_elem_per_thread"] == 0
    assert k.inductor_meta["autotune_hints"] == set()
    assert k.inductor_meta["autotune_remote_cache"] is None
    assert k.triton_meta["device"]["_type"] == "DeviceProperties"
    assert k.triton_meta["configs"] == [
        {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]], (2,): [["tt.divisibility", 16]]}
    ]


def test_reduction_kernels():
    out = only("reduction")
    red = out.kernels[0]
    assert red.heuristic_args["size_hints"] == {"x": 8192, "r0_": 2048}
    assert red.heuristic_args["reduction_hint"] == "INNER"  # ReductionHint.INNER
    assert red.source_nodes == ("pow_1", "mean")
    assert red.aten_ops == ("aten.pow", "aten.mean")
    assert red.node_map == ("mean => mean", "pow_1 => pow_1")
    assert red.graph_fragment[-1] == "return %buf0"
    assert red.signature == {
        "in_ptr0": "*fp32",
        "out_ptr0": "*fp32",
        "xnumel": "i32",
        "r0_numel": "i32",
        "XBLOCK": "constexpr",
        "R0_BLOCK": "constexpr",
    }
    assert red.launch_args == ("arg0_1", "buf0", "8192", "2048")

    split = out.kernels[1]
    assert split.heuristic_args["reduction_hint"] == "OUTER"
    assert split.source_nodes == ("pow_1", "mean", "add", "rms", "mul", "mul_1", "sum_1")
    assert split.aten_ops == ("aten.pow", "aten.mean", "aten.add", "aten.rsqrt", "aten.mul", "aten.sum")
    assert "rms => rsqrt" in split.node_map
    assert split.launch_args == ("arg0_1", "buf0", "arg1_1", "buf1", "131072", "128")

    # The last kernel reduces to one value: xnumel is a constant, so it is not divisible by 16.
    last = out.kernels[4]
    assert last.signature["xnumel"] == "constexpr"
    assert last.constants == {"xnumel": 1}
    assert last.divisible_by_16 == ("in_ptr0", "out_ptr0", "r0_numel")
    assert last.heuristic_args["size_hints"] == {"x": 1, "r0_": 512}
    assert last.launch_args == ("buf4", "buf5", "1", "512")
    assert out.extern_calls == ()


def test_softmax_persistent_reduction():
    k = only("softmax").kernels[0]
    assert k.aten_ops == ("prims.prepare_softmax_online", "aten.sub", "aten.exp", "aten._softmax")
    assert k.source_nodes == ("softmax",)
    assert k.heuristic_args["size_hints"] == {"x": 4096, "r0_": 1024}
    # 781 columns: r0_numel is not a multiple of 16, so Inductor did not mark it.
    assert k.divisible_by_16 == ("in_ptr0", "out_ptr2", "xnumel")
    assert k.launch_args == ("arg0_1", "buf2", "4096", "781")
    assert "R0_BLOCK: tl.constexpr = 1024" in k.source


def test_mlp_layernorm_kernels_and_extern_calls():
    out = only("mlp_layernorm")
    ln = out.kernels[0]
    assert ln.aten_ops == ("aten.native_layer_norm",)
    assert ln.node_map == ("layer_norm => add, add_1, mul, mul_1, rsqrt, sub, var_mean",)
    assert ln.inductor_meta["mutated_arg_names"] == ["in_out_ptr0"]
    assert ln.launch_args == ("buf3", "primals_3", "primals_1", "primals_2", "buf0", "buf4", "4096", "768")
    assert len(ln.divisible_by_16) == 8
    assert out.kernels[1].source_nodes == ("linear", "gelu")
    assert [c.split("(")[0] for c in out.extern_calls] == ["extern_kernels.addmm", "extern_kernels.mm"]
    assert out.extern_calls[1].endswith("out=buf7)")


def test_template_kernel_from_max_autotune():
    out = only("matmul_autotune")
    tem = out.kernels[0]
    assert tem.name == "triton_tem_fused_mm_0" and tem.kind == "template"
    assert tem.heuristic_args["num_stages"] == 4 and tem.heuristic_args["num_warps"] == 4
    assert "size_hints" not in tem.heuristic_args
    assert tem.signature == {"arg_A": "*fp16", "arg_B": "*fp16", "out_ptr0": "*fp16"}
    assert tem.divisible_by_16 == ("arg_A", "arg_B", "out_ptr0")
    assert tem.inductor_meta["config_args"]["BLOCK_M"] == 64
    assert tem.inductor_meta["grid_type"] == "FixedGrid"
    assert tem.launch_args == ("arg0_1", "arg1_1", "buf0", "128", "1", "1")
    # A template's block sizes are constexprs defined in the body, and stay there.
    assert "    BLOCK_K : tl.constexpr = 128" in tem.jit_source
    assert tem.aten_ops == ("aten.mm",)
    relu = out.kernels[1]
    assert relu.aten_ops == ("aten.relu",) and relu.launch_args == ("buf1", "1048576")
    # The Triton template beat cuBLAS in autotuning, so call() has no extern kernel.
    assert out.extern_calls == ()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_jit_source_is_a_plain_triton_kernel_with_the_same_line_numbers(name):
    for k in only(name).kernels:
        src, jit = k.source.split("\n"), k.jit_source.split("\n")
        assert len(jit) == len(src)
        assert "@triton.jit" in k.jit_source
        assert "triton_heuristics." not in k.jit_source.replace("import triton_helpers, triton_heuristics", "")
        assert "@triton_heuristics" in k.source
        def_line = next(i for i, line in enumerate(src) if line.startswith("def "))
        assert jit[def_line] == src[def_line] == next(line for line in jit if line.startswith("def "))
        assert jit[def_line - 1] == "@triton.jit"
        # Outside the decorator, every line is untouched.
        changed = [i for i, (a, b) in enumerate(zip(src, jit)) if a != b]
        assert changed and all(jit[i] == "" for i in changed)
        tree = ast.parse(k.jit_source)
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        assert fn.name == k.name and fn.lineno == def_line + 1
        assert [ast.unparse(d) for d in fn.decorator_list] == ["triton.jit"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_bare_output_code_file_parses_to_the_same_kernels(name, tmp_path):
    from_log = only(name)
    path = tmp_path / "output_code.py"
    path.write_text(bare_module(log_text(name)))
    for out in (parse_log(path.read_text())[0], parse_output_code(path.read_text())):
        assert out.graph == ""
        assert out.kernels == from_log.kernels
        assert out.extern_calls == from_log.extern_calls


def test_parse_output_code_takes_the_graph_it_is_given():
    out = parse_output_code(bare_module(log_text("square")), graph="[3/1]")
    assert out.graph == "[3/1]" and out.kernels[0].name == "triton_poi_fused_pow_0"


def test_parsing_the_largest_fixture_is_fast():
    text = max((log_text(n) for n in EXPECTED), key=len)
    best = min(_timed(parse_log, text) for _ in range(3))
    assert best < 0.1, f"{best * 1000:.1f} ms"


def _timed(fn, arg) -> float:
    t0 = time.perf_counter()
    fn(arg)
    return time.perf_counter() - t0


# ---------------------------------------------------------------- log layouts


def _relabel(log: str, graph: str, pid: str) -> list[str]:
    return [re.sub(r"^(\S+ \S+) \d+ (.*?) \[0/0\]", rf"\1 {pid} \2 [{graph}]", line) for line in log.split("\n")]


def test_several_graphs_interleaved_with_other_loggers():
    first, second = _relabel(log_text("square"), "0/0", "672"), _relabel(log_text("gelu_tanh"), "1/0", "672")
    mixed = []
    for i in range(max(len(first), len(second))):
        mixed += first[i : i + 1] + second[i : i + 1]
        if i % 7 == 3:  # other loggers write in between, tagged or not
            mixed.append("I1121 08:30:40.100000 672 torch/_dynamo/convert_frame.py:1000] [1/0] Step 1: tracing")
            mixed.append("W1121 08:30:40.200000 672 torch/_inductor/utils.py:10] [1/0] [__graph_code] x = 1")
            mixed.append("  warnings.warn(")
    outputs = parse_log("\n".join(mixed))
    assert [(o.graph, [k.name for k in o.kernels]) for o in outputs] == [
        ("[0/0]", ["triton_poi_fused_pow_0"]),
        ("[1/0]", ["triton_poi_fused_gelu_0"]),
    ]
    assert outputs[0].module == only("square").module
    assert outputs[1].kernels == only("gelu_tanh").kernels


def test_a_foreign_prefix_before_the_output_code_tag():
    module = bare_module(log_text("reduction"))
    lines = ["Output code: ", *module.split("\n"), "Output code written to: /tmp/x.py"]
    for lead in (
        "[rank1]:V1121 08:31:33.739000 1032 torch/_inductor/graph.py:2552] [2/1] [__output_code] ",
        "2025-11-21 08:31:33,739 [2/1] [__output_code] ",
        "[__output_code] ",
    ):
        outputs = parse_log("\n".join(lead + line for line in lines) + "\nsomething else logged")
        assert len(outputs) == 1
        assert outputs[0].module == module
        assert outputs[0].graph == ("" if lead == "[__output_code] " else "[2/1]")
        assert outputs[0].kernels == only("reduction").kernels


def test_a_log_formatted_without_artifact_tags():
    module = bare_module(log_text("softmax"))
    # Python's logging prefixes the first line of a message only.
    text = (
        "INFO:torch._dynamo:compiling\nDEBUG:torch._inductor.graph:Output code: \n"
        + module
        + "\nDEBUG:torch._inductor.graph:Output code written to: /tmp/x.py\nINFO:done"
    )
    (out,) = parse_log(text)
    assert out.module == module and out.kernels == only("softmax").kernels


# ---------------------------------------------------------------- a module printed more than once


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_log_printed_twice_yields_each_module_and_kernel_once(name):
    log = log_text(name)
    outputs = parse_log(log + "\n" + log)
    assert [(o.graph, o.module, o.kernels) for o in outputs] == [(o.graph, o.module, o.kernels) for o in parse_log(log)]


def test_a_cache_hit_reprinting_the_module_under_another_prefix_and_graph_is_dropped():
    # An FX-graph cache hit logs the module again from codecache.py; a second
    # torch.compile of the same function does so under the next compile id.
    log = log_text("reduction")
    again = "\n".join(
        re.sub(
            r"^V\S+ \S+ \d+ torch/_inductor/graph\.py:\d+\] \[0/0\]",
            "V1121 08:32:01.000000 1032 torch/_inductor/codecache.py:1993] [1/0]",
            line,
        )
        for line in log.split("\n")
    ).replace("\r", "")
    again = "\n".join(line.rstrip() + ("  " if i % 5 == 0 else "") for i, line in enumerate(again.split("\n")))
    assert "codecache.py:1993] [1/0]" in again
    outputs = parse_log(log + "\n" + again)
    assert [(o.graph, [k.name for k in o.kernels]) for o in outputs] == [
        ("[0/0]", [n for n, _ in EXPECTED["reduction"]])
    ]


def test_distinct_graphs_are_kept_and_a_kernel_they_share_is_listed_once():
    square, gelu = _relabel(log_text("square"), "0/0", "672"), _relabel(log_text("gelu_tanh"), "1/0", "672")
    # Graph 2/0 is another module (its wrapper differs) that reuses square's kernel.
    reuse = [
        line.replace("def call(self, args):", "def call(self, args):  # graph 2")
        for line in _relabel(log_text("square"), "2/0", "673")
    ]
    assert reuse != _relabel(log_text("square"), "2/0", "673")
    outputs = parse_log("\n".join(square + gelu + reuse))
    assert [(o.graph, [k.name for k in o.kernels]) for o in outputs] == [
        ("[0/0]", ["triton_poi_fused_pow_0"]),
        ("[1/0]", ["triton_poi_fused_gelu_0"]),
        ("[2/0]", []),
    ]
    assert "# graph 2" in outputs[2].module


# ---------------------------------------------------------------- bad input

CPU_LOG_LINES = """Output code:\x20
# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long, c_int
import torch
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels

aten = torch.ops.aten
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
async_compile = AsyncCompile()


cpp_fused_mul_0 = async_compile.cpp_pybinding(['const float*', 'float*'], \'\'\'
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    #pragma omp parallel num_threads(8)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(1024L); x0+=static_cast<int64_t>(16L))
            {
                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                auto tmp1 = static_cast<float>(2.0);
                auto tmp2 = at::vec::Vectorized<float>(tmp1);
                auto tmp3 = tmp0 * tmp2;
                tmp3.store(out_ptr0 + static_cast<int64_t>(x0));
            }
        }
    }
}
\'\'\')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, = args
    args.clear()
    assert_size_stride(arg0_1, (1024, ), (1, ))
    buf0 = empty_strided_cpu((1024, ), (1, ), torch.float32)
    cpp_fused_mul_0(arg0_1, buf0)
    del arg0_1
    return (buf0, )
""".split("\n")


def test_a_cpu_compile_is_refused_with_the_reason():
    prefix = "V1121 09:00:00.000000 99 torch/_inductor/graph.py:2552] [0/0] [__output_code] "
    log = "\n".join(prefix + line for line in CPU_LOG_LINES)
    message = (
        "the compile targeted the CPU: Inductor wrote C++ kernels, not Triton "
        "(compile on a CUDA device to get Triton kernels)"
    )
    with pytest.raises(NoTritonKernels) as err:
        parse_log(log)
    assert str(err.value) == message
    with pytest.raises(NoTritonKernels, match="targeted the CPU"):
        parse_output_code("\n".join(CPU_LOG_LINES[1:]))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "Collecting torch\n  Downloading torch-2.11.0-cp312-cp312-manylinux.whl (900 MB)\nSuccessfully installed torch\n",
        "I1121 08:30:38.000000 672 torch/_dynamo/convert_frame.py:1000] [0/0] Step 1: torchdynamo start tracing f\n"
        "I1121 08:30:38.500000 672 torch/_dynamo/convert_frame.py:1100] [0/0] Step 1: torchdynamo done tracing f\n",
    ],
)
def test_a_log_without_output_code_says_how_to_get_one(text):
    with pytest.raises(NoTritonKernels) as err:
        parse_log(text)
    message = str(err.value)
    assert "no Triton kernels were found" in message and "TORCH_LOGS=output_code" in message
    assert "\n" not in message


def test_output_code_with_only_extern_kernels_says_so():
    module = bare_module(log_text("mlp_layernorm"))
    # Keep the wrapper only: drop every kernel definition (and the launches of them).
    start = module.index("# kernel path:")
    end = module.index("async_compile.wait(globals())")
    wrapper = "\n".join(line for line in (module[:start] + module[end:]).split("\n") if ".run(" not in line)
    with pytest.raises(NoTritonKernels, match=r"only calls extern kernels \(extern_kernels.addmm, extern_kernels.mm\)"):
        parse_output_code(wrapper)


def _cut_after(log: str, needle: str, chars: int = 0) -> str:
    at = log.index(needle) + len(needle) + chars
    return log[:at]


@pytest.mark.parametrize(
    "name, needle, chars, kernel_name",
    [
        ("square", "tmp1 = tmp0 * tmp0\n", 0, "triton_poi_fused_pow_0"),  # at a line end
        ("square", "tl.store(out_ptr0", 0, "triton_poi_fused_pow_0"),  # mid-line
        ("square", "@triton_heuristics.pointwise(\n", 0, "triton_poi_fused_pow_0"),  # inside the decorator
        (
            "reduction",
            "def triton_per_fused_add_mean_mul_pow_rsqrt_sum_2(",
            0,
            "triton_per_fused_add_mean_mul_pow_rsqrt_sum_2",
        ),  # the third of five kernels
        ("matmul_autotune", "acc += tl.dot(", 0, "triton_tem_fused_mm_0"),
    ],
)
def test_a_log_cut_inside_a_kernel_names_the_kernel(name, needle, chars, kernel_name):
    cut = _cut_after(log_text(name), needle, chars)
    with pytest.raises(TruncatedLog) as err:
        parse_log(cut)
    assert str(err.value) == f"the log is cut off inside kernel {kernel_name} (its source never ends)"
    # The same holds for a cut .py.
    with pytest.raises(TruncatedLog, match=kernel_name):
        parse_output_code(_cut_after(bare_module(log_text(name)), needle, chars))


def test_a_log_cut_inside_the_wrapper_is_reported():
    cut = _cut_after(log_text("square"), "with torch.cuda._DeviceGuard(0):\n")
    with pytest.raises(TruncatedLog, match=r"cut off inside the output code of graph \[0/0\]") as err:
        parse_log(cut)
    assert "\n" not in str(err.value)


def test_errors_are_user_errors_and_value_errors():
    assert issubclass(NoTritonKernels, InductorLogError) and issubclass(TruncatedLog, InductorLogError)
    assert issubclass(InductorLogError, ValueError) and issubclass(InductorLogError, UsageError)


# ---------------------------------------------------------------- never runs the text


def crafted_module(marker: Path) -> str:
    """An output-code module whose decorator holds code, in torch 2.1-era spellings."""
    return f"""
import triton
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


# kernel path: /tmp/torchinductor_me/ab/cabc.py
# Source Nodes: [add, mul], Original ATen: [aten.add, aten.mul]
# add => add
# mul => mul
# File: /work/model.py:12 in forward, code: y = x * 2
triton_poi_fused_add_mul_0 = async_compile.triton('triton_', \'\'\'
import triton
import triton.language as tl
from torch._inductor.triton_heuristics import AutotuneHint, pointwise
from torch._inductor import triton_helpers, triton_heuristics

@triton_heuristics.pointwise(
    size_hints=[1024],
    tile_hint=TileHint.SQUARE,
    filename=__file__,
    triton_meta={{'signature': {{0: '*fp32', 1: '*fp32', 2: 'i32'}}, 'device': 0, 'device_type': 'cuda',
                 'constants': {{}}, 'configs': [instance_descriptor(divisible_by_16=(0, 1), equal_to_1=())]}},
    inductor_meta={{'autotune_hints': set(), 'offset': -3, 'scale': -0.5, 'names': {{'a', 'b'}},
                   'evil': __import__('os').system('touch {marker}'),
                   'also': open('{marker}', 'w').write('x'),
                   'bound': exec("open('{marker}', 'w')"),
                   'sum': 1 + 2}},
    min_elem_per_thread=0
)
@triton.jit
def triton_(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1024
    x0 = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    msg = "line\\\\nbreak, it\\'s"
    tl.store(out_ptr0 + x0, tl.load(in_ptr0 + x0) * 2 + 1, x0 < xnumel)
\'\'\')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, = args
    args.clear()
    with torch.cuda._DeviceGuard(0):
        buf0 = empty_strided((1024, ), (1, ), device='cuda', dtype=torch.float32)
        stream0 = get_cuda_stream(0)
        triton_poi_fused_add_mul_0.run(arg0_1, buf0, 1024,
                                       grid=grid(1024), stream=stream0)
        return (buf0, )
"""


def test_parsing_never_runs_the_text(tmp_path):
    marker = tmp_path / "pwned"
    out = parse_output_code(crafted_module(marker))
    assert not marker.exists()
    (k,) = out.kernels
    meta = k.inductor_meta
    # Code comes back as its source text; calls of literals come back as data, never called.
    assert meta["evil"] == f"__import__('os').system('touch {marker}')"
    assert meta["also"] == f"open('{marker}', 'w').write('x')"
    assert meta["bound"] == {"_args": (f"open('{marker}', 'w')",), "_type": "exec"}
    assert meta["sum"] == "1 + 2"
    assert meta["offset"] == -3 and meta["scale"] == -0.5 and meta["names"] == {"a", "b"}
    assert meta["autotune_hints"] == set()
    assert k.heuristic_args["tile_hint"] == "SQUARE"
    assert k.heuristic_args["size_hints"] == [1024]


def test_older_torch_spellings(tmp_path):
    (k,) = parse_output_code(crafted_module(tmp_path / "unused")).kernels
    assert k.name == "triton_poi_fused_add_mul_0" and k.kind == "pointwise"
    # The signature and divisibility were keyed by argument index; the device by number.
    assert k.signature == {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32"}
    assert k.divisible_by_16 == ("in_ptr0", "out_ptr0")
    assert k.device == {"type": "cuda", "index": 0} and k.arch is None
    assert k.source_nodes == ("add", "mul") and k.aten_ops == ("aten.add", "aten.mul")
    assert k.node_map == ("add => add", "mul => mul")
    assert k.user_source == ("File: /work/model.py:12 in forward, code: y = x * 2",)
    # A launch written over two lines is one statement, and its keywords are not positional args.
    assert k.launches == ("triton_poi_fused_add_mul_0.run(arg0_1, buf0, 1024, grid=grid(1024), stream=stream0)",)
    assert k.launch_args == ("arg0_1", "buf0", "1024")
    # Escapes inside the triple quotes are decoded as Python would.
    # (the module's text reads "line\\nbreak, it\'s"; the kernel file gets "line\nbreak, it's")
    assert 'msg = "line\\nbreak, it\'s"' in k.source
    assert ast.parse(k.jit_source)
