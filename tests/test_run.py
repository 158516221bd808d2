"""``irscope run`` without a GPU: a program's kernels recorded as it runs, through Triton's own hooks.

Real programs, run as they are in a subprocess; real Triton compiles. The GPU half
(GPU times, launch hooks on real launches, Inductor) is tests/gpu/test_run_gpu.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

# A program written for this test, in the style of Triton's tutorials: a device from the driver,
# an autotuned kernel whose configs come from a helper, a plain kernel, launches at module level.
PROGRAM = textwrap.dedent("""
    import sys

    import torch
    import triton
    import triton.language as tl

    DEVICE = triton.runtime.driver.active.get_active_torch_device()


    @triton.jit
    def shift_kernel(src, dst, n, stride, offset, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(dst + offs * stride, tl.load(src + offs * stride, mask=mask) + offset, mask=mask)


    def tuning_configs():
        return [triton.Config({"TILE": t}, num_warps=w, num_stages=s) for t, w, s in ((128, 2, 2), (512, 4, 3), (2048, 8, 3))]


    @triton.autotune(configs=tuning_configs(), key=["n"])
    @triton.jit
    def clamp_kernel(x_ptr, out_ptr, n, lo, hi, TILE: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * TILE + tl.arange(0, TILE)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, tl.minimum(tl.maximum(x, lo), hi), mask=mask)


    n = 12345
    a = torch.rand(n, device=DEVICE, dtype=torch.float16)
    b = torch.empty_like(a)
    for _ in range(4):
        shift_kernel[(triton.cdiv(n, 256),)](a, b, n, 1, 0.5, BLOCK=256)
    clamp_kernel[lambda meta: (triton.cdiv(n, meta["TILE"]),)](a, b, n, 0.25, 0.75)
    print("program finished")
    if len(sys.argv) > 1:
        raise SystemExit(int(sys.argv[1]))
""")


def irscope(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "IRSCOPE_NO_GPU": "1"}
    return subprocess.run(
        [sys.executable, "-m", "irscope", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    (folder / "prog.py").write_text(PROGRAM)
    result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", cwd=folder)
    return folder, result


def test_the_program_runs_as_it_is_and_every_kernel_is_kept(recorded):
    folder, result = recorded
    assert result.returncode == 0, result.stderr
    assert "program finished" in result.stdout  # its own output, untouched
    index = json.loads((folder / "out" / "run.json").read_text())
    assert index["mode"] == "stand-in (no GPU)" and index["exit_code"] == 0
    kernels = {k["name"]: k for k in index["kernels"]}
    assert set(kernels) == {"shift_kernel", "clamp_kernel"}
    shift = kernels["shift_kernel"]
    assert shift["session"] == "kernels/shift_kernel" and shift["why"] is None
    (variant,) = shift["variants"]
    (launch,) = variant["launches"]
    # The launch as the program made it: grid, calls, and each argument's dtype, shape and stride.
    assert launch["grid"] == [49, 1, 1] and launch["calls"] == 4
    assert launch["arguments"]["src"] == {"tensor": "torch.float16", "shape": [12345], "stride": [1], "aligned": True}
    assert launch["arguments"]["n"] == 12345 and launch["arguments"]["offset"] == 0.5


def test_the_recorded_specialization_is_the_jits(recorded):
    from irscope.session import Session

    folder, _ = recorded
    session = Session.open(folder / "out" / "kernels" / "shift_kernel")
    signature = {i: a for i, a in enumerate(session.signature)}
    # src, dst: 16-byte aligned fp16 pointers; n = 12345 is not a multiple of 16; stride = 1 became a constant.
    assert signature[0] == {"type": "*fp16", "hint": 16, "value": None}
    assert signature[2] == {"type": "i32", "hint": None, "value": None}
    assert signature[3] == {"type": None, "hint": None, "value": 1}
    assert signature[4]["type"] == "fp32"
    variant = session.variant(session.entries[0])
    assert variant.ok and variant.config.constexprs == {"BLOCK": 256}
    ttir = variant.listings["ttir"]
    assert "tt.func public @shift_kernel" in ttir and "%stride" not in ttir  # the unit stride is folded


def test_an_autotuned_kernel_keeps_every_config_of_its_list(recorded):
    from irscope.session import Session

    folder, _ = recorded
    session = Session.open(folder / "out" / "kernels" / "clamp_kernel")
    configs = sorted(
        (e.config.values()["TILE"], e.config.values()["num_warps"], e.config.values()["num_stages"])
        for e in session.entries
    )
    assert configs == [(128, 2, 2), (512, 4, 3), (2048, 8, 3)]
    assert all(session.variant(e).ok for e in session.entries)
    index = json.loads((folder / "out" / "run.json").read_text())
    clamp = next(k for k in index["kernels"] if k["name"] == "clamp_kernel")
    # Without a GPU the autotuner timed nothing: no variant is called its pick.
    assert not any(v["picked_by_autotuner"] for v in clamp["variants"])


def test_bench_can_rerun_what_the_program_launched_and_says_why_not_otherwise(recorded):
    from irscope.frontends.triton.replay import launch_key, why_not
    from irscope.session import Session

    folder, _ = recorded
    session = Session.open(folder / "out" / "kernels" / "shift_kernel")
    ((key, launch),) = session.recorded_launches.items()
    config = session.entries[0].config
    assert key == launch_key(config) and launch["grid"] == [49, 1, 1] and why_not(launch, config) is None
    other = type(config)({"BLOCK": 64}, config.options, {})
    assert "never launched BLOCK=64" in why_not(session.recorded_launches.get(launch_key(other)), other)
    odd = {**launch, "arguments": {**launch["arguments"], "src": {"repr": "<a custom object>"}}}
    assert "custom object" in why_not(odd, config)


def test_a_recorded_kernel_sweeps_on_a_machine_without_a_gpu(recorded):
    folder, _ = recorded
    result = irscope("sweep", "out/kernels/shift_kernel", "-s", "BLOCK=64,1024", "--json", cwd=folder)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert sorted(r["BLOCK"] for r in rows) == [64, 1024] and all(r["status"] == "ok" for r in rows)


def test_the_table_in_a_log_keeps_each_kernel_and_its_pick_on_one_line(recorded, capsys, monkeypatch):
    """What a GPU run adds to the recorded index: GPU time, the autotuner's pick, Inductor's and torch's kernels.

    The names are real ones: an Inductor kernel from samples/inductor/softmax.log and the CUDA kernel
    torch launches for ``torch.zeros`` (what ``irscope run`` shows, cut at 48 characters).
    """
    from irscope.cli.run import _print

    folder, _ = recorded
    index = json.loads((folder / "out" / "run.json").read_text())
    clamp = next(k for k in index["kernels"] if k["name"] == "clamp_kernel")
    clamp["variants"][-1]["picked_by_autotuner"] = True
    inductor = "triton_per_fused__softmax_exp_prepare_softmax_online_sub_0"
    index["kernels"].append({**clamp, "name": inductor, "inductor": True, "session": f"kernels/{inductor}"})
    torch_kernel = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, ...>"
    index["other_gpu_work"] = [{"name": torch_kernel, "calls": 3, "total_us": 7.5, "gpu_share_pct": 1.0}]
    monkeypatch.setenv("COLUMNS", "200")
    _print(index, folder / "out")
    lines = capsys.readouterr().out.splitlines()
    pick = clamp["variants"][-1]["label"]
    for name, session in [("clamp_kernel", "kernels/clamp_kernel"), (inductor, f"kernels/{inductor}")]:
        (row,) = [line for line in lines if line.startswith(name)]
        assert pick in row and row.rstrip().endswith(session), row
    (row,) = [line for line in lines if line.startswith(torch_kernel[:47])]
    assert row.rstrip().endswith("(not Triton)")
    assert len(lines) == 1 + 3 + 1 + 1  # header, three kernels, torch's, the summary


async def test_the_tui_opens_the_run(recorded):
    from irscope.tui.factory import make_app

    folder, _ = recorded
    app = make_app(str(folder / "out"))
    async with app.run_test() as pilot:
        await pilot.pause()
        kernels = {row.kernel for row in app.model.rows}
        assert kernels == {"shift_kernel", "clamp_kernel"}


def test_a_kernel_filter_and_a_launch_window_keep_what_ncu_would_profile(tmp_path):
    """-k NAME and --launch-skip/--launch-count as Nsight Compute's -k/-s/-c: shift_kernel is launched 4 times."""
    (tmp_path / "prog.py").write_text(PROGRAM)

    def kernels(folder: str, *options: str) -> list[dict]:
        ran = irscope("run", "-o", folder, *options, "--", sys.executable, "prog.py", cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        return json.loads((tmp_path / folder / "run.json").read_text())["kernels"]

    assert [k["name"] for k in kernels("only", "-k", "shift_kernel")] == ["shift_kernel"]
    (kernel,) = kernels("window", "-k", "regex:^shift", "--launch-skip", "2", "--launch-count", "1")
    assert kernel["name"] == "shift_kernel" and [v["calls"] for v in kernel["variants"]] == [1]
    assert kernels("past", "--launch-skip", "1000") == []  # nothing in the window: nothing kept
    bad = irscope("run", "-o", "bad", "-k", "regex:(", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and not (tmp_path / "bad").exists()


def test_a_failing_program_keeps_what_it_launched(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", "3", cwd=tmp_path)
    assert result.returncode == 1
    assert "exited with status 3" in result.stderr and "Traceback" not in result.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    assert index["exit_code"] == 3 and {k["name"] for k in index["kernels"]} == {"shift_kernel", "clamp_kernel"}


# A program that launches a kernel its JIT cannot compile (a block of 100 elements: tl.arange wants a power of
# two) and goes on, as a library's fallback would: the program exits 0, irscope run does not.
UNCOMPILABLE = textwrap.dedent("""
    import torch
    import triton
    import triton.language as tl

    DEVICE = triton.runtime.driver.active.get_active_torch_device()


    @triton.jit
    def copy_kernel(src, dst, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs))


    a = torch.rand(128, device=DEVICE)
    b = torch.empty_like(a)
    copy_kernel[(1,)](a, b, BLOCK=128)
    try:
        copy_kernel[(1,)](a, b, BLOCK=100)
    except Exception as exc:
        print("fell back:", type(exc).__name__)
""")


def test_a_launched_kernel_that_cannot_be_recorded_is_listed_with_why_and_the_exit_says_so(tmp_path):
    (tmp_path / "prog.py").write_text(UNCOMPILABLE)
    result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert "fell back: CompilationError" in result.stdout
    assert result.returncode == 1 and "Traceback" not in result.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    assert index["exit_code"] == 0
    (lost,) = index["not_recorded"]
    assert lost["kernel"] == "copy_kernel" and "power of 2" in lost["why"]
    assert f"copy_kernel ({lost['file']}) was launched but not recorded: " in result.stderr
    assert "1 launched kernel(s) not recorded" in result.stderr
    # The launch that compiled is still a session, its one variant BLOCK=128.
    (row,) = index["kernels"]
    assert row["name"] == "copy_kernel" and row["session"] and len(row["variants"]) == 1


# The kernel in a file of its own, which the reference imports without running the program's launches.
COPY_KERNEL = textwrap.dedent("""
    import triton
    import triton.language as tl


    @triton.jit
    def copy_kernel(src, dst, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs))
""")
ON_AMD = textwrap.dedent("""
    import torch
    import triton
    from kern import copy_kernel

    a = torch.rand(128, device=triton.runtime.driver.active.get_active_torch_device())
    copy_kernel[(1,)](a, torch.empty_like(a), BLOCK=128)
    print(torch.cuda.get_device_properties(0).gcnArchName)
""")


def test_on_a_stand_in_amd_card_each_launch_compiles_as_tritons_hip_backend_does(tmp_path, monkeypatch):
    """``--gpu MI300X``: torch answers the card's gfx arch, and the launch's session holds the AMDGCN
    ``triton.compile`` makes for gfx942 with the same specialization and options (its own process and cache)."""
    from amd_reference import triton_compiles

    from irscope.session import Session

    (tmp_path / "kern.py").write_text(COPY_KERNEL)
    (tmp_path / "prog.py").write_text(ON_AMD)
    # A Triton cache of its own: Triton keys its cache on the source, not the path the listing names.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    result = irscope("run", "--gpu", "MI300X", "-o", "out", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "gfx942:sramecc+:xnack-" in result.stdout
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    assert index["stand_in"]["name"] == "AMD Instinct MI300X" and index["arch"] == "gfx942"
    (row,) = index["kernels"]
    session = Session.open(tmp_path / "out" / row["session"])
    (variant,) = [session.variant(e) for e in session.entries]
    options = {k: variant.config.options[k] for k in ("num_warps", "num_stages")}
    types = {"src": "*fp32", "dst": "*fp32", "BLOCK": "constexpr"}
    job = ("copy_kernel", str(tmp_path / "kern.py"), types, {"BLOCK": 128}, [0, 1], options, "gfx942", 64)
    reference = triton_compiles([job], tmp_path)["copy_kernel@gfx942"]
    assert variant.listings["amdgcn"] == reference["amdgcn"]


def test_bad_input_is_one_line(tmp_path):
    missing = irscope("run", "-o", "out", "--", "no-such-program-anywhere", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "cannot start" in missing.stderr
    # A Python's script that is not there: refused before the recorder starts (torch and Triton are not
    # imported: 0.3 s of CPU against 10-12 s before), with no folder left to refuse the rerun.
    for command in (["python", "nothere.py"], [sys.executable, "-u", "-W", "error", "nothere.py", "--x"]):
        script = irscope("run", "-o", "out", "--", *command, cwd=tmp_path)
        assert script.returncode == 2 and script.stderr.count("\n") == 1, script.stderr
        assert "nothere.py: no such file" in script.stderr
        assert not (tmp_path / "out").exists()
    default = irscope("run", "--", sys.executable, "nothere.py", cwd=tmp_path)
    assert default.returncode == 2 and not list(tmp_path.glob("irscope-run-*"))
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x")
    busy = irscope("run", "-o", "busy", "--", sys.executable, "-c", "pass", cwd=tmp_path)
    assert busy.returncode == 2 and "not an empty folder" in busy.stderr


def test_the_jits_own_compiles_are_kept_byte_for_byte(tmp_path):
    """Triton's compilation listener copies what the JIT wrote; irscope compiles the same from the record."""
    from irscope.capturing import capture_many
    from irscope.interop.run.collect import collect
    from irscope.named import open_named

    (tmp_path / "raw").mkdir()
    script = tmp_path / "jit.py"
    script.write_text(
        textwrap.dedent("""
        import sys
        from pathlib import Path

        import torch
        import triton
        import triton.language as tl
        from triton.runtime.driver import driver

        from irscope.frontends.triton.gpu_free import stand_in_driver
        from irscope.frontends.triton.listen import Listener

        driver.set_active(stand_in_driver(90))
        listener = Listener(Path(sys.argv[1]))
        listener.install()


        @triton.jit
        def axpy(x_ptr, y_ptr, n, stride, alpha, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(x_ptr + offs * stride, mask=mask)
            tl.store(y_ptr + offs * stride, alpha * x + tl.load(y_ptr + offs * stride, mask=mask), mask=mask)


        x = torch.empty(4096, device="meta")
        y = torch.empty(4096, device="meta")
        axpy.warmup(x, y, 4096, 1, 2.0, BLOCK=256, grid=(16,))
        axpy.warmup(x, y, 4096, 1, 2.0, BLOCK=1024, grid=(4,), num_warps=8)
        listener.finish()
    """)
    )
    # A Triton cache of its own: Triton keys its cache on the source, not the path, so a cache hit from
    # another copy of this file (an earlier test run) would name that copy's path in the IR.
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "raw")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "triton")},
    )
    assert done.returncode == 0, done.stderr
    index = collect(tmp_path, command=["jit.py"], exit_code=0, wall_s=1.0)
    (kernel,) = index["kernels"]
    assert kernel["name"] == "axpy" and len(kernel["variants"]) == 2
    target = open_named(str(tmp_path / kernel["session"]), need_kernel=True)
    for v in kernel["variants"]:
        stored = target.session.variant(target.session.entry(v["entry"]))
        compile_dir = next(
            p
            for p in (tmp_path / "raw" / "compiles").iterdir()
            if json.loads((p / "compile.json").read_text())["hash"] == v["hash"]
        )
        assert stored.listings["ptx"] == (compile_dir / "stage.ptx").read_text()
        # The JIT's own hash of the function is the identity of the kernel rebuilt from the record.
        assert (
            json.loads((compile_dir / "compile.json").read_text())["cache_key"] == target.kernel.identity().source_hash
        )
        assert stored.listings["ttgir"] == (compile_dir / "stage.ttgir").read_text()
        assert stored.compile_info.mode.value == "jit" and "sass" in stored.listings
        # The recorded specialization, compiled again ahead of time from the session: the same PTX.
        again = next(iter(capture_many(target.kernel, [stored.config], "sm_90", use_cache=False))).variant
        assert again.listings["ptx"] == stored.listings["ptx"]


def test_inductor_kernels_loaded_from_its_cache_come_from_the_output_code(tmp_path):
    """A warm run: Inductor loads its kernels from its cache and Triton compiles nothing; the output code
    Inductor logged (here one recorded on an H200) gives the kernel, the profile its GPU time."""
    from irscope.interop.inductor.parse import parse_log
    from irscope.interop.run.collect import collect, read_index
    from irscope.paths import samples_dir
    from irscope.session import Session

    (output,) = parse_log((samples_dir() / "inductor" / "gelu_tanh.log").read_text())
    (kernel,) = output.kernels
    raw = tmp_path / "raw"
    (raw / "inductor").mkdir(parents=True)
    (raw / "inductor" / "0000.py").write_text(output.module)
    (raw / "profile.json").write_text(
        json.dumps(
            {
                "device": "NVIDIA H200",
                "capability": "90",
                "kernels": [
                    {
                        "name": kernel.name,
                        "grid": [65536, 1, 1],
                        "block": [128, 1, 1],
                        "calls": 20,
                        "total_us": 2620.0,
                        "median_us": 131.0,
                        "min_us": 130.0,
                        "max_us": 133.0,
                    },
                    {
                        "name": "void at::native::vectorized_elementwise_kernel<4>",
                        "grid": [1, 1, 1],
                        "block": [128, 1, 1],
                        "calls": 1,
                        "total_us": 3.0,
                        "median_us": 3.0,
                        "min_us": 3.0,
                        "max_us": 3.0,
                    },
                ],
            }
        )
    )
    index = collect(tmp_path, command=["python", "prog.py"], exit_code=0, wall_s=2.0)
    (row,) = index["kernels"]
    assert row["name"] == kernel.name and row["inductor"] and row["session"] == f"inductor/{kernel.name}"
    assert row["gpu_calls"] == 20 and row["gpu_total_us"] == 2620.0 and row["gpu_share_pct"] > 99
    assert [o["name"] for o in index["other_gpu_work"]] == ["void at::native::vectorized_elementwise_kernel<4>"]
    session = Session.open(tmp_path / row["session"])
    variant = session.variant(session.entries[0])
    assert variant.ok and variant.arch == "sm_90" and session.entries[0].measurement.median_us == 131.0
    assert read_index(tmp_path).kernels[0].session == row["session"]


@pytest.mark.parametrize("session", ["../outside", "kernels/../../x", "/etc", "raw/compiles"])
def test_a_run_index_never_names_a_folder_outside_its_kernels(tmp_path, session):
    from irscope.errors import SessionError
    from irscope.interop.run.collect import read_index

    (tmp_path / "run.json").write_text(json.dumps({"format": "irscope.run/1", "kernels": [{"session": session}]}))
    with pytest.raises(SessionError):
        read_index(tmp_path)


def test_a_raw_record_that_names_a_file_outside_the_run_is_refused(tmp_path):
    """What the program's process wrote is data: a record pointing outside its folder reads nothing there."""
    from irscope.interop.run.collect import collect

    secret = tmp_path / "secret.txt"
    secret.write_text("not for irscope")
    raw = tmp_path / "run" / "raw"
    folder = raw / "compiles" / "00000"
    folder.mkdir(parents=True)
    (raw / "sources").mkdir()
    record = {
        "format": "irscope.triton-compile/1",
        "kernel": "k",
        "file": "/x/k.py",
        "source": "../../secret.txt",
        "params": ["x"],
        "constexprs": [],
        "signature": {"x": "*fp32"},
        "constants": {},
        "divisible": [],
        "options": {"num_warps": 4},
        "hash": "h",
        "name": "k",
        "arch": 90,
        "stages": {"ptx": "../../../secret.txt"},
    }
    (folder / "compile.json").write_text(json.dumps(record))
    index = collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1)
    assert index["kernels"] == [] and "secret.txt" in index["skipped"][0] and "outside" in index["skipped"][0]
    (raw / "sources" / "k.py").write_text("import triton\n\n\n@triton.jit\ndef k(x):\n    pass\n")
    record["source"] = "sources/k.py"  # a real kernel now; its stage file still points outside
    (folder / "compile.json").write_text(json.dumps(record))
    index = collect(tmp_path / "run", command=["x"], exit_code=0, wall_s=0.1)
    (kernel,) = index["kernels"]
    assert kernel["session"] is None and "outside" in kernel["why"]
    assert not any(
        "not for irscope" in p.read_text(errors="ignore") for p in (tmp_path / "run").rglob("*") if p.is_file()
    )


LECTURE_CUDA = """
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
    dim3 threads_per_block(16, 16);
    dim3 number_of_blocks((matrix.size(1) + 15) / 16, (matrix.size(0) + 15) / 16);
    square_matrix_kernel<<<number_of_blocks, threads_per_block>>>(
        matrix.data_ptr<float>(), result.data_ptr<float>(), matrix.size(1), matrix.size(0));
    return result;
}
"""


def test_load_inline_is_wrapped_when_the_program_imports_it_and_not_before(tmp_path):
    """The recorder waits for torch.utils.cpp_extension (a program that never imports it pays nothing)."""
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from irscope.frontends.cuda.listen import LoadInlineRecorder

        LoadInlineRecorder(Path({str(tmp_path)!r})).install()
        assert "torch.utils.cpp_extension" not in sys.modules
        from torch.utils.cpp_extension import load_inline
        print(getattr(load_inline, "__irscope_recorded__", False), load_inline.__name__)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "load_inline"]


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="needs nvcc")
def test_a_recorded_load_inline_call_becomes_a_cuda_session_with_its_gpu_time(tmp_path):
    """What the recorder writes for a call (torch's real load_inline signature binds the arguments; nothing is
    built) is compiled by irscope's CUDA frontend; the profile's kernel of that name gives its GPU time."""
    from torch.utils.cpp_extension import load_inline

    from irscope.frontends.cuda.listen import LoadInlineRecorder
    from irscope.interop.run.collect import collect, read_index
    from irscope.session import Session
    from irscope.types import Stage

    raw = tmp_path / "raw"
    raw.mkdir()
    recorder = LoadInlineRecorder(raw)
    recorder.record(
        load_inline,
        ("square_ext", "torch::Tensor square_matrix(torch::Tensor matrix);"),
        {"cuda_sources": LECTURE_CUDA, "functions": ["square_matrix"], "extra_cuda_cflags": ["--use_fast_math"]},
        sys._getframe(0),
    )
    (raw / "profile.json").write_text(
        json.dumps(
            {
                "device": "NVIDIA H100",
                "capability": "90",
                "kernels": [
                    {
                        "name": "square_matrix_kernel(float const*, float*, int, int)",
                        "grid": [49, 256, 1],
                        "block": [16, 16, 1],
                        "calls": 10,
                        "total_us": 120.0,
                        "median_us": 12.0,
                        "min_us": 11.9,
                        "max_us": 12.4,
                    }
                ],
            }
        )
    )
    index = collect(tmp_path, command=["python", "lecture.py"], exit_code=0, wall_s=1.0)
    (row,) = index["kernels"]
    assert row["name"] == "square_matrix_kernel" and row["frontend"] == "cuda" and row["why"] is None
    assert row["gpu_calls"] == 10 and row["gpu_total_us"] == 120.0 and index["other_gpu_work"] == []
    assert "load_inline(name='square_ext') called at" in row["from"] and "--use_fast_math" in row["from"]
    assert row["variants"][0]["config"]["fast_math"] is True
    session = Session.open(tmp_path / row["session"])
    variant = session.variant(session.entries[0])
    assert variant.ok and variant.arch == "sm_90" and session.frontend == "cuda"
    cu = (tmp_path / "load_inline" / "square_ext.cu").read_text()
    assert cu.startswith("#include <torch/types.h>")  # as torch compiled it
    from irscope.ir.sourcemap import SourceMap

    smap = SourceMap(variant)
    square = next(i + 1 for i, t in enumerate(cu.splitlines()) if "matrix[idx] * matrix[idx]" in t)
    ptx = variant.listings[Stage.PTX].splitlines()
    mul = next(i for i, t in enumerate(ptx) if t.strip().startswith("mul.") and ".f32" in t)  # mul.ftz.f32: fast math
    assert smap.source_line(Stage.PTX, mul) == square
    assert read_index(tmp_path).kernels[0].session == row["session"]


def test_a_load_inline_record_that_is_not_one_is_skipped(tmp_path):
    from irscope.interop.run.collect import collect

    folder = tmp_path / "raw" / "load_inline"
    folder.mkdir(parents=True)
    (folder / "0001.json").write_text(json.dumps({"name": "../../x", "cuda_sources": "not a list"}))
    notes = []
    index = collect(tmp_path, command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    assert index["kernels"] == [] and notes == ["0001.json: not a load_inline record irscope wrote; skipped"]
    assert not (tmp_path / "load_inline").exists()
