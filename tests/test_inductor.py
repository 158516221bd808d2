"""Inductor kernels from recorded logs: compiled for sm_90, stored as sessions, swept, diffed, opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.interop.inductor.capture import compile_all, plan
from irscope.interop.inductor.parse import parse_log
from irscope.types import Stage

LOGS = Path(__file__).resolve().parent.parent / "samples" / "inductor"
EXPECTED = {
    "square": ["triton_poi_fused_pow_0"],
    "gelu_tanh": ["triton_poi_fused_gelu_0"],
    "softmax": ["triton_per_fused__softmax_exp_prepare_softmax_online_sub_0"],
    "mlp_layernorm": [
        "triton_per_fused_native_layer_norm_0",
        "triton_poi_fused_gelu_view_1",
        "triton_poi_fused_add_addmm_view_2",
    ],
    "reduction": [
        "triton_red_fused_mean_pow_0",
        "triton_red_fused_add_mean_mul_pow_rsqrt_sum_1",
        "triton_per_fused_add_mean_mul_pow_rsqrt_sum_2",
        "triton_red_fused_abs_amax_3",
        "triton_per_fused_abs_amax_4",
    ],
    "matmul_autotune": ["triton_tem_fused_mm_0", "triton_poi_fused_relu_1"],
}


@pytest.mark.parametrize("log", sorted(EXPECTED))
def test_every_kernel_of_every_recorded_log_compiles_for_sm90(log, tmp_path):
    outputs = parse_log((LOGS / f"{log}.log").read_text())
    kernels = list(compile_all(plan(outputs, tmp_path), None))
    assert [ck.kernel.name for ck in kernels] == EXPECTED[log]
    for ck in kernels:
        v = ck.variant
        assert v.ok, (ck.kernel.name, v.error)
        assert v.arch == "sm_90" and all(v.listings[s].strip() for s in Stage.all() if v.made_for_vendor(s))
        # the launch config is one Inductor would use, and the compile honours it
        assert f".reqntid {32 * ck.chosen.num_warps}" in v.listings[Stage.PTX]
        for name, value in ck.chosen.constexprs.items():
            assert v.config.constexprs[name] == value
        # the source map points into the kernel's own source, at its real lines
        kernel_lines = v.listings[Stage.SOURCE].splitlines()
        load = next(i for i, line in enumerate(kernel_lines) if "tl.load(" in line or "tl.dot(" in line) + 1
        from irscope.ir.sourcemap import SourceMap

        assert SourceMap(v).lines_for(Stage.PTX, load)


def test_inductor_choices_come_from_its_heuristics(tmp_path):
    (ck,) = plan(parse_log((LOGS / "square.log").read_text()), tmp_path)
    assert ck.chosen.constexprs == {"XBLOCK": 1024} and ck.chosen.num_warps == 4
    assert len(ck.candidates) >= 2 and "autotuner" in ck.chosen_by
    red = plan(parse_log((LOGS / "reduction.log").read_text()), tmp_path)[0]
    assert set(red.chosen.constexprs) == {"XBLOCK", "R0_BLOCK"} and "one config" in red.chosen_by
    tem = plan(parse_log((LOGS / "matmul_autotune.log").read_text()), tmp_path)[0]
    assert tem.kernel.kind == "template" and (tem.chosen.num_warps, tem.chosen.num_stages) == (4, 4)


def test_cli_writes_sessions_that_sweep_diff_and_open(cli, tmp_path):
    out = tmp_path / "ind"
    result = cli("inductor", "--log", str(LOGS / "mlp_layernorm.log"), "-o", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    kinds = {k["name"]: k["kind"] for k in data["kernels"]}
    assert kinds["triton_per_fused_native_layer_norm_0"] == "persistent_reduction"
    gelu = next(k for k in data["kernels"] if k["name"] == "triton_poi_fused_gelu_view_1")
    assert "aten.gelu" in gelu["aten_ops"] and gelu["graph_fragment"] and gelu["signature"]["in_ptr0"] == "*fp32"
    assert gelu["chosen"]["constexprs"]["XBLOCK"] and gelu["registers"] > 0
    assert any("addmm" in call or "mm" in call for g in data["graphs"] for call in g["extern_calls"])
    assert json.loads((out / "inductor.json").read_text())["kernels"][0]["session"]

    swept = cli(
        "sweep", str(out / "triton_poi_fused_gelu_view_1"), "-s", "XBLOCK=256,1024", "-s", "num_warps=4,8", "--json"
    )
    assert swept.exit_code == 0, swept.stderr
    rows = [json.loads(line) for line in swept.stdout.splitlines()]
    assert {(r["XBLOCK"], r["num_warps"]) for r in rows} == {(256, 4), (256, 8), (1024, 4), (1024, 8)}

    diffed = cli(
        "diff", "square_kernel", "-a", f"kernel={out / 'triton_poi_fused_gelu_view_1'}", "-b", "BLOCK_SIZE=1024"
    )
    assert diffed.exit_code == 0, diffed.stderr
    assert diffed.stdout.startswith("A  triton_poi_fused_gelu_view_1") and "B  square_kernel" in diffed.stdout


async def test_the_tui_opens_every_kernel_of_an_inductor_capture(cli, tmp_path):
    from irscope.tui.factory import make_app

    out = tmp_path / "red"
    assert cli("inductor", "--log", str(LOGS / "reduction.log"), "-o", str(out)).exit_code == 0
    app = make_app(str(out))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause(0.5)
        assert app.model.multi_kernel and len(app.model.rows) == 5
        await pilot.press("down")
        await pilot.pause(0.3)
        listing = app.query_one("#listing")
        assert any("triton_red_fused_add_mean_mul_pow_rsqrt_sum_1" in line for line in listing.lines)


# ---------------------------------------------------------------- bad input


CPU_LOG = """V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] Output code:\x20
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] # AOT ID: ['0_inference']
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] from torch._inductor.async_compile import AsyncCompile
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] async_compile = AsyncCompile()
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] cpp_fused_pow_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r\'\'\'
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] #include <torch/csrc/inductor/cpp_prefix.h>
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] extern "C"  void kernel(const float* in_ptr0, float* out_ptr0)
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] {
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] }
V1121 09:00:00.000000 1 torch/_inductor/graph.py:2552] [0/0] [__output_code] \'\'\')
"""


def test_a_cpu_compile_log_says_the_compile_targeted_the_cpu(cli, tmp_path):
    path = tmp_path / "cpu.log"
    path.write_text(CPU_LOG)
    one_line_error(cli("inductor", "--log", str(path)), 2, "the compile targeted the CPU")


def test_a_truncated_log_names_the_kernel_it_stops_in(cli, tmp_path):
    text = (LOGS / "square.log").read_text()
    path = tmp_path / "cut.log"
    path.write_text(text[: text.index("tl.store")])
    one_line_error(cli("inductor", "--log", str(path)), 2, "cut off", "triton_poi_fused_pow_0")


def test_a_log_without_output_code(cli, tmp_path):
    path = tmp_path / "empty.log"
    path.write_text("I1121 hello from somewhere else\n")
    one_line_error(cli("inductor", "--log", str(path)), 2, "no Triton kernels", "TORCH_LOGS=output_code")


@pytest.mark.parametrize("spec", ["f33[4]", "f32[4,", "float[4]", "f32(4)"])
def test_an_input_spec_that_does_not_parse(cli, tmp_path, spec):
    path = tmp_path / "fn.py"
    path.write_text("def fn(x):\n    return x * 2\n")
    one_line_error(cli("inductor", f"{path}:fn", "--input", spec), 2, "cannot read --input", "f32[4096,4096]")


def test_neither_or_both_of_target_and_log(cli):
    one_line_error(cli("inductor"), 2, "give one of TARGET")


def test_a_live_capture_without_a_gpu_says_to_use_a_log(cli, tmp_path, monkeypatch):
    from irscope.nvidia.device import gpu_capability

    monkeypatch.setenv("IRSCOPE_NO_GPU", "1")
    gpu_capability.cache_clear()
    path = tmp_path / "fn.py"
    path.write_text("def fn(x):\n    return x * 2\n")
    try:
        one_line_error(cli("inductor", f"{path}:fn", "--input", "f32[64]"), 4, "needs a CUDA GPU", "--log")
    finally:
        gpu_capability.cache_clear()
