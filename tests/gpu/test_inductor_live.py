"""On a GPU: capture torch.compile's kernels live, with their runtimes, and compare one with a built-in."""

from __future__ import annotations

import json
from pathlib import Path

FNS = str(Path(__file__).with_name("inductor_fns.py"))


def test_live_capture_of_square_finds_its_kernel_config_and_runtime(cli, tmp_path):
    out = tmp_path / "sq"
    result = cli("inductor", f"{FNS}:square", "--input", "f32[4096,4096]", "-o", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    (kernel,) = data["kernels"]
    assert kernel["name"].startswith("triton_poi_fused_pow") and kernel["kind"] == "pointwise"
    assert "autotuner" in kernel["chosen_by"] or "one config" in kernel["chosen_by"]
    assert kernel["runtime_us"] > 1 and kernel["calls"] == 1 and kernel["status"] == "ok"
    timing = data["timing"]
    assert timing["eager_us"] > 0 and timing["compiled_us"] > 0
    # the kernel's time inside the function is most of the compiled function's time
    assert kernel["runtime_us"] <= timing["compiled_us"] * 1.2
    diffed = cli(
        "diff",
        "square_kernel",
        "-a",
        f"kernel={out / kernel['session']}",
        "-b",
        "BLOCK_SIZE=1024",
        "-b",
        "n_rows=4096",
        "-b",
        "n_cols=4096",
    )
    assert diffed.exit_code == 0, diffed.stderr
    assert "B  square_kernel" in diffed.stdout and "runtime (median)" in diffed.stdout


def test_live_capture_of_a_reduction_has_several_kernels_with_runtimes(cli):
    result = cli("inductor", f"{FNS}:rms", "--input", "f32[8192,2048]", "--input", "f32[2048]", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kernels"] and all(k["status"] == "ok" for k in data["kernels"])
    assert any(k["kind"] in ("reduction", "persistent_reduction") for k in data["kernels"])
    assert all(k["runtime_us"] and k["runtime_us"] > 0 for k in data["kernels"])


def test_a_function_that_fails_to_compile_is_one_line(cli):
    result = cli("inductor", f"{FNS}:broken", "--input", "f32[64,64]")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("irscope: error:")]
    assert len(errors) == 1 and "torch.compile failed" in errors[0] and "Traceback" not in result.stderr
