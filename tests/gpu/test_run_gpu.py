"""On a GPU: `irscope run -- python SCRIPT` keeps every kernel a real program launches, with its GPU time.

The program (run_program.py, written for these tests) launches a plain Triton kernel,
an autotuned one and a torch.compile'd function. Its kernels are compared with what
the program itself knows (the PTX its JIT compiled, its autotuner's pick) and with
torch.profiler in a separate run of the same program; then the run is opened as a
machine without a GPU would (sweep, diff, tui).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = str(Path(__file__).with_name("run_program.py"))


def _irscope(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irscope", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=900,
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpu-run")
    env = {
        "TRITON_CACHE_DIR": str(folder / "triton"),
        "TORCHINDUCTOR_CACHE_DIR": str(folder / "inductor"),
        "RUN_PROGRAM_REPORT": str(folder / "report.json"),
    }
    # Once as it is, to fill Triton's and Inductor's caches: Inductor autotunes its kernels on a cold start,
    # with launches of its own that a warm run does not make (and the comparison below needs two alike runs).
    warm = subprocess.run(
        [sys.executable, PROGRAM], capture_output=True, text=True, timeout=900, env={**os.environ, **env}
    )
    assert warm.returncode == 0, warm.stderr[-3000:]
    result = _irscope("run", "-o", "out", "--", sys.executable, PROGRAM, cwd=folder, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "run_program done" in result.stdout
    (folder / "table.txt").write_text(result.stdout)  # the table as a log keeps it (stdout is a pipe here)
    # The same program again, profiling itself (irscope's profiler and its own cannot run at once).
    mine = subprocess.run(
        [sys.executable, PROGRAM],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **env, "RUN_PROGRAM_PROFILE": "1", "RUN_PROGRAM_REPORT": str(folder / "again.json")},
    )
    assert mine.returncode == 0, mine.stderr[-3000:]
    return folder


def _index(folder: Path) -> dict:
    return json.loads((folder / "out" / "run.json").read_text())


def test_every_kernel_is_captured_with_its_launches(run_dir):
    index = _index(run_dir)
    print(
        json.dumps(
            {k["name"]: [k["gpu_calls"], k["gpu_total_us"], k["session"], k["why"]] for k in index["kernels"]}, indent=1
        )
    )
    kernels = {k["name"]: k for k in index["kernels"]}
    assert {"scale_shift_kernel", "relu_sq_kernel"} <= set(kernels)
    inductor = [k for k in index["kernels"] if k["inductor"]]
    assert inductor and inductor[0]["name"].startswith("triton_poi_fused"), sorted(kernels)
    plain = kernels["scale_shift_kernel"]
    (variant,) = plain["variants"]
    (launch,) = variant["launches"]
    assert launch["grid"] == [(1 << 24) // 1024, 1, 1] and launch["calls"] == 50
    assert launch["arguments"]["x_ptr"]["shape"] == [1 << 24] and launch["arguments"]["n"] == 1 << 24
    assert variant["gpu_calls"] == 50 and plain["session"]
    assert all(k["gpu_total_us"] > 0 for k in (plain, kernels["relu_sq_kernel"], inductor[0]))
    assert index["kernels"][0]["gpu_total_us"] >= index["kernels"][-1]["gpu_total_us"]  # ranked


def test_the_runs_chrome_trace_sits_beside_run_json_with_each_kernel_linked_to_its_session(run_dir):
    index = _index(run_dir)
    assert index["trace"]["file"] == "trace.json" and index["trace"]["kernel_events_linked"] > 0
    trace = json.loads((run_dir / "out" / "trace.json").read_text())
    kernels = [e for e in trace["traceEvents"] if isinstance(e, dict) and e.get("cat") == "kernel"]
    by_name = {k["name"]: k for k in index["kernels"]}
    plain = [e for e in kernels if e["name"] == "scale_shift_kernel"]
    assert len(plain) == 50, len(plain)  # every launch on the timeline, each with its session and variant
    session = by_name["scale_shift_kernel"]["session"]
    assert all(e["args"]["irscope session"] == session for e in plain)
    assert all(e["args"]["irscope variant"] == by_name["scale_shift_kernel"]["variants"][0]["entry"] for e in plain)
    assert (run_dir / "out" / session / "session.json").is_file()
    inductor = next(k for k in index["kernels"] if k["inductor"])
    assert any(
        e["args"].get("irscope session") == inductor["session"] for e in kernels if e["name"] == inductor["name"]
    )
    # torch's own kernels stay on the timeline, unlinked
    assert any("irscope session" not in e["args"] for e in kernels)


def test_the_table_in_a_log_keeps_each_kernel_and_its_pick_on_one_line(run_dir):
    index = _index(run_dir)
    lines = (run_dir / "table.txt").read_text().splitlines()
    for k in index["kernels"]:
        (row,) = [line for line in lines if line.startswith(k["name"])]
        picked = [v["label"] for v in k["variants"] if v["picked_by_autotuner"]]
        assert all(label in row for label in picked) and (k["session"] or "(none") in row, row
    for o in index["other_gpu_work"][:8]:
        assert any(line.startswith(o["name"][:47]) and "(not Triton)" in line for line in lines), o["name"]


def test_the_captured_ir_is_what_the_jit_compiled(run_dir):
    from irscope.session import Session

    report = json.loads((run_dir / "report.json").read_text())
    index = _index(run_dir)
    kernels = {k["name"]: k for k in index["kernels"]}
    session = Session.open(run_dir / "out" / kernels["scale_shift_kernel"]["session"])
    assert session.variant(session.entries[0]).listings["ptx"] == report["ptx"]["scale_shift_kernel"]
    tuned = Session.open(run_dir / "out" / kernels["relu_sq_kernel"]["session"])
    assert sorted(tuned.variant(e).listings["ptx"] for e in tuned.entries) == sorted(report["relu_sq_ptx"])
    picked = [v for v in kernels["relu_sq_kernel"]["variants"] if v["picked_by_autotuner"]]
    assert len(picked) == 1 and picked[0]["config"]["TILE"] == report["best"]["TILE"]
    assert all(v["autotuner_ms"] and v["autotuner_ms"] > 0 for v in kernels["relu_sq_kernel"]["variants"])


def test_gpu_times_agree_with_torch_profiler(run_dir):
    profile = json.loads((run_dir / "again.json.profile").read_text())
    index = _index(run_dir)
    for k in index["kernels"]:
        if k["name"] == "relu_sq_kernel":  # its autotuner's benchmark launches vary from run to run
            continue
        theirs = profile.get(k["name"])
        assert theirs is not None, (k["name"], sorted(profile))
        mine_mean = k["gpu_total_us"] / k["gpu_calls"]
        their_mean = theirs["total_us"] / theirs["calls"]
        print(k["name"], k["gpu_calls"], theirs["calls"], round(mine_mean, 2), round(their_mean, 2))
        assert abs(mine_mean / their_mean - 1) <= 0.05
        if not k["inductor"]:
            assert k["gpu_calls"] == theirs["calls"]


def test_the_run_opens_without_a_gpu(run_dir):
    no_gpu = {"IRSCOPE_NO_GPU": "1"}
    kernels = {k["name"]: k for k in _index(run_dir)["kernels"]}
    session = kernels["scale_shift_kernel"]["session"]
    swept = _irscope("sweep", f"out/{session}", "-s", "BLOCK=256,1024", "--json", cwd=run_dir, env=no_gpu)
    assert swept.returncode == 0, swept.stderr
    diffed = _irscope("diff", f"out/{session}", "-a", "BLOCK=256", "-b", "BLOCK=1024", cwd=run_dir, env=no_gpu)
    assert diffed.returncode == 0, diffed.stderr
    inductor = next(k for k in kernels.values() if k["inductor"])
    annotated = _irscope("annotate", f"out/{inductor['session']}", "--stage", "ptx", cwd=run_dir, env=no_gpu)
    assert annotated.returncode == 0, annotated.stderr
    # The Inductor kernel is rebuilt from its recorded source (with Inductor's helpers) to compile new configs.
    xblock = inductor["variants"][0]["config"]["XBLOCK"]
    other = 256 if xblock != 256 else 512
    resumed = _irscope(
        "sweep", f"out/{inductor['session']}", "-s", f"XBLOCK={xblock},{other}", "--json", cwd=run_dir, env=no_gpu
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "1 reused" in resumed.stderr, resumed.stderr  # the recorded config is the JIT's, not compiled again
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import asyncio, sys\n"
                "from irscope.tui.factory import make_app\n"
                "async def main():\n"
                "    app = make_app(sys.argv[1])\n"
                "    async with app.run_test() as pilot:\n"
                "        await pilot.pause()\n"
                "        print(sorted({r.kernel for r in app.model.rows}))\n"
                "asyncio.run(main())\n"
            ),
            str(run_dir / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **no_gpu},
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "scale_shift_kernel" in shown.stdout and "relu_sq_kernel" in shown.stdout


def test_bench_reruns_a_captured_kernel_as_the_program_launched_it(run_dir):
    kernels = {k["name"]: k for k in _index(run_dir)["kernels"]}
    session = kernels["scale_shift_kernel"]["session"]
    benched = _irscope("bench", f"out/{session}", "--json", "--min-time", "20", cwd=run_dir)
    assert benched.returncode == 0, benched.stderr
    (row,) = [json.loads(line) for line in benched.stdout.splitlines() if line.startswith("{")]
    profiled = kernels["scale_shift_kernel"]["gpu_total_us"] / kernels["scale_shift_kernel"]["gpu_calls"]
    print("bench", row["median_us"], "profiled in the run", profiled)
    assert row["status"] == "ok" and row["median_us"] > 0
    # The same launch on new data of the same layout; bench sweeps L2 clean before each launch, the run did not.
    assert abs(row["median_us"] / profiled - 1) < 0.25
    tuned = _irscope("bench", f"out/{kernels['relu_sq_kernel']['session']}", "--json", "--min-time", "10", cwd=run_dir)
    assert tuned.returncode == 0, tuned.stderr
    assert len([line for line in tuned.stdout.splitlines() if line.startswith("{")]) == 3  # each config it launched
    inductor = next(k for k in kernels.values() if k["inductor"])
    refused = _irscope("bench", f"out/{inductor['session']}", cwd=run_dir)
    assert refused.returncode == 2 and "no example inputs" in refused.stderr and refused.stderr.count("\n") == 1


LOAD_INLINE_PROGRAM = '''
# The lecture's load_inline square, its CUDA source formatted at run time (written for irscope's tests).
import torch
from torch.utils.cpp_extension import load_inline

BLOCK = 16
cuda_source = """
__global__ void square_matrix_kernel(const float* matrix, float* result, int width, int height) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < height && col < width) {
        int idx = row * width + col;
        result[idx] = matrix[idx] * matrix[idx];
    }
}

torch::Tensor square_matrix(torch::Tensor matrix) {
    auto result = torch::empty_like(matrix);
    dim3 threads_per_block(%d, %d);
    dim3 number_of_blocks((matrix.size(1) + %d - 1) / %d, (matrix.size(0) + %d - 1) / %d);
    square_matrix_kernel<<<number_of_blocks, threads_per_block>>>(
        matrix.data_ptr<float>(), result.data_ptr<float>(), matrix.size(1), matrix.size(0));
    return result;
}
""" % ((BLOCK,) * 6)
ext = load_inline(name="square_ext_irscope", cpp_sources="torch::Tensor square_matrix(torch::Tensor matrix);",
                  cuda_sources=cuda_source, functions=["square_matrix"], with_cuda=True, extra_cuda_cflags=["-O2"])
a = torch.randn(1024, 1000, device="cuda")
for _ in range(50):
    out = ext.square_matrix(a)
torch.cuda.synchronize()
assert torch.allclose(out, a * a)
print("load_inline program done")
'''


def test_a_running_load_inline_call_is_captured_with_its_gpu_time(tmp_path):
    (tmp_path / "prog.py").write_text(LOAD_INLINE_PROGRAM)
    result = _irscope(
        "run",
        "-o",
        "out",
        "--",
        sys.executable,
        "prog.py",
        cwd=tmp_path,
        env={"TORCH_EXTENSIONS_DIR": str(tmp_path / "ext")},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "load_inline program done" in result.stdout
    rows = {r["name"]: r for r in json.loads((tmp_path / "out" / "run.json").read_text())["kernels"]}
    row = rows["square_matrix_kernel"]
    assert row["frontend"] == "cuda" and row["session"] and row["gpu_calls"] == 50, row
    assert "prog.py:" in row["from"] and "-O2" in row["from"]
    trace = json.loads((tmp_path / "out" / "trace.json").read_text())
    linked = [e for e in trace["traceEvents"] if isinstance(e, dict) and e.get("args", {}).get("irscope session")]
    assert len(linked) == 50 and {e["args"]["irscope session"] for e in linked} == {row["session"]}
    dump = _irscope("dump", str(tmp_path / "out" / row["session"]), "--stage", "sass", cwd=tmp_path)
    assert dump.returncode == 0 and "FMUL" in dump.stdout, dump.stderr[-2000:]
