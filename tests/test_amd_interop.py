"""Other tools' records made on AMD GPUs (ROCm): Inductor's output code, `irscope run` records, tritonparse traces.

No AMD GPU is at hand, so each record is made here by the code that makes it on ROCm, with only the GPU
stood in for:

- Inductor: tests/fixtures/rocm/ holds the H200 recordings of samples/inductor with exactly the changes
  torch's code makes under ``torch.version.hip`` (rocm_from_nvidia.py names each: DeviceProperties.create,
  config_of's ``tt.pointer_range``, inductor_meta's ``is_hip``, ``tl.rsqrt``, a two-stage reduction loop).
- ``irscope run``: the program runs Triton's own JIT with a stand-in for ROCm's driver (its target
  ``hip``/``gfx942``, a launch that only calls the launch hooks, as HIP's launcher does); the JIT
  specializes with Triton's HIP backend and compiles with it, and irscope's listener records that.
- tritonparse: tritonparse's own listener and parser trace Triton's HIP compiles.

Every kernel is compiled again here for the recorded gfx arch, and its stages are held to what
``triton.compile`` gives for ``GPUTarget("hip", "gfx942", 64)`` (or to what the ROCm JIT wrote), byte for byte.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from expect import one_line_error
from written_kernels import SCALED_ADD

from irscope.stages import Stage

REPO = Path(__file__).resolve().parent.parent
ROCM = REPO / "tests" / "fixtures" / "rocm"
SAMPLES = REPO / "samples" / "inductor"
IR_STAGES = (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.AMDGCN)
ASM_KEYS = {Stage.TTIR: "ttir", Stage.TTGIR: "ttgir", Stage.LLIR: "llir", Stage.AMDGCN: "amdgcn"}
# triton_meta={..., 'configs': [{(0,): [['tt.divisibility', 16], ['tt.pointer_range', 32]], ...}]},
CONFIGS = re.compile(r"'configs': \[(\{.*?\})\]\}")


def _rocm_fixtures():
    sys.path.insert(0, str(ROCM))
    try:
        import rocm_from_nvidia
    finally:
        sys.path.remove(str(ROCM))
    return rocm_from_nvidia


def _reference(kernel, file: Path, chosen, arch: str = "gfx942") -> dict[Stage, str]:
    """What Inductor's own compile on ROCm gives (CachingAutotuner._precompile_config, HIP options), here.

    The kernel file irscope wrote is imported as a module, the way Inductor loads its kernels; the attrs
    are the log's configs[0], read with ast.literal_eval (not irscope's parser).
    """
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    spec = importlib.util.spec_from_file_location(f"rocm_{kernel.name}", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    configs = CONFIGS.search(kernel.source)
    assert configs is not None
    attrs = ast.literal_eval(configs[1])
    signature = kernel.triton_meta["signature"]
    options = {"num_warps": chosen.num_warps, "num_stages": chosen.num_stages, "debug": False}
    options.update({"sanitize_overflow": False, "enable_fp_fusion": True, **chosen.options})
    src = ASTSource(getattr(module, kernel.name), signature, dict(chosen.constexprs), attrs)
    with knobs.compilation.scope():
        knobs.compilation.always_compile = True  # not irscope's compile, read back from Triton's cache
        compiled = triton.compile(src, target=GPUTarget("hip", arch, 64), options=options)
    return {stage: compiled.asm[ASM_KEYS[stage]] for stage in IR_STAGES}


# ---------------------------------------------------------------- Inductor's output code


def test_the_rocm_fixtures_are_the_nvidia_recordings_with_only_rocms_changes():
    rocm = _rocm_fixtures()
    for name, make in rocm.FIXTURES.items():
        assert (ROCM / name).read_text() == make(), name
    nvidia = (SAMPLES / "mlp_layernorm.log").read_text().split("\n")
    amd = (ROCM / "mlp_layernorm_rocm.log").read_text().split("\n")
    changed = [b for a, b in zip(nvidia, amd) if a != b]
    assert len(nvidia) == len(amd) and len(changed) == 7  # 3 triton_meta, 3 inductor_meta, 1 rsqrt
    for after in changed:
        assert ("DeviceProperties(type='hip'" in after and "'tt.pointer_range', 32" in after) or (
            "'is_hip': True" in after or "tl.rsqrt(" in after
        ), after


def test_a_rocm_log_names_its_gfx_processor_and_the_pointers_rocm_keeps_within_2gb():
    from irscope.arch import Vendor
    from irscope.interop.inductor.parse import parse_log

    (out,) = parse_log((ROCM / "mlp_layernorm_rocm.log").read_text())
    (nvidia,) = parse_log((SAMPLES / "mlp_layernorm.log").read_text())
    assert [k.name for k in out.kernels] == [k.name for k in nvidia.kernels]
    for k, twin in zip(out.kernels, nvidia.kernels):
        assert k.arch == "gfx942" and k.vendor is Vendor.AMD and twin.arch == "sm_90"
        assert k.device["type"] == "hip" and k.device["warp_size"] == 64 and k.device["multi_processor_count"] == 304
        assert k.inductor_meta["is_hip"] is True
        pointers = tuple(n for n, ty in k.signature.items() if ty.startswith("*"))
        assert k.pointer_range_32 == pointers and twin.pointer_range_32 == ()
        assert k.divisible_by_16 == twin.divisible_by_16


def test_rocm_kernels_get_the_launch_configs_rocms_inductor_gives_them():
    import torch

    from irscope.interop.inductor.kernels import launch_configs
    from irscope.interop.inductor.parse import parse_log

    amd = {k.name: k for k in parse_log((ROCM / "mlp_layernorm_rocm.log").read_text())[0].kernels}
    nvidia = {k.name: k for k in parse_log((SAMPLES / "mlp_layernorm.log").read_text())[0].kernels}
    gelu = "triton_poi_fused_gelu_view_1"
    rocm, cuda = launch_configs(amd[gelu]), launch_configs(nvidia[gelu])
    # triton_heuristics.pointwise on ROCm adds its three configs, two with waves_per_eu as a launch option
    assert [c.constexprs for c in rocm[:2]] == [c.constexprs for c in cuda] and len(rocm) == len(cuda) + 3
    assert [c.label() for c in rocm[2:]] == [
        "XBLOCK=8192 num_warps=4 num_stages=1 waves_per_eu=2",
        "XBLOCK=4096 num_warps=4 num_stages=1",
        "XBLOCK=2048 num_warps=8 num_stages=2 waves_per_eu=1",
    ]
    # 512 elements are 4 waves of 64 lanes on ROCm, 8 warps of 32 on CUDA (triton_config's warp_size)
    assert (rocm[1].num_warps, cuda[1].num_warps) == (4, 8)
    assert not any(c.options for c in cuda)
    assert torch.version.hip is None  # this machine's torch is itself again


def test_a_rocm_log_compiles_for_gfx942_as_triton_compiles_it_byte_for_byte(tmp_path):
    from irscope.interop.inductor.capture import compile_all, plan
    from irscope.interop.inductor.parse import parse_log

    outputs = parse_log((ROCM / "mlp_layernorm_rocm.log").read_text())
    for ck in compile_all(plan(outputs, tmp_path), None, in_process=True):
        v = ck.variant
        assert v.ok and v.arch == "gfx942", (ck.kernel.name, v.error)
        assert "PTX is a stage of NVIDIA GPUs only" in v.stage_errors[Stage.PTX] and Stage.SASS not in v.listings
        reference = _reference(ck.kernel, ck.file, ck.chosen)
        for stage in IR_STAGES:
            assert v.listings[stage] == reference[stage], (ck.kernel.name, stage)
        # the recorded 'tt.pointer_range' is honoured: AMD's buffer instructions read the tensors
        assert "tt.pointer_range = 32" in v.listings[Stage.TTIR] and "buffer_load_dwordx4" in v.listings[Stage.AMDGCN]
        assert v.resources.registers and v.resources.sgprs  # from the HSACO's metadata note


def test_a_written_rocm_module_compiles_its_reductions_byte_for_byte(tmp_path):
    from irscope.interop.inductor.capture import compile_all, plan
    from irscope.interop.inductor.parse import parse_output_code

    out = parse_output_code((ROCM / "reduction_rocm.py").read_text())
    assert [k.kind for k in out.kernels] == ["reduction", "reduction", "persistent_reduction"] + [
        "reduction",
        "persistent_reduction",
    ]
    (ck,) = plan([out], tmp_path)[:1]
    assert "num_stages = 2):" in ck.kernel.source  # ROCm's two-stage reduction loop
    (done,) = list(compile_all([ck], None, in_process=True))
    assert done.variant.ok and done.variant.arch == "gfx942"
    reference = _reference(ck.kernel, ck.file, ck.chosen)
    for stage in IR_STAGES:
        assert done.variant.listings[stage] == reference[stage], stage


def test_the_cli_captures_a_rocm_log_and_opens_it_and_compiles_it_for_sm90_too(cli, tmp_path):
    from irscope.named import open_named

    out = tmp_path / "ind"
    result = cli("inductor", "--log", str(ROCM / "mlp_layernorm_rocm.log"), "-o", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert {k["arch"] for k in summary["kernels"]} == {"gfx942"} and all(
        k["status"] == "ok" for k in summary["kernels"]
    )
    gelu = next(k for k in summary["kernels"] if k["name"] == "triton_poi_fused_gelu_view_1")
    assert any(c["options"] == {"waves_per_eu": 2} for c in gelu["candidates"])
    named = open_named(str(out), several=True)
    assert [s.kernel.name for s in named.sessions] == [k["name"] for k in summary["kernels"]]
    session = named.sessions[1]
    assert session.parameters["waves_per_eu"]["sweep"] == [0, 1, 2] and session.entries[0].arch == "gfx942"
    assert session.signature[0]["pointer_range"] == 32
    # the same kernels for NVIDIA's sm_90: no AMD launch option goes with them
    nvidia = cli("inductor", "--log", str(ROCM / "mlp_layernorm_rocm.log"), "--arch", "sm_90", "--json")
    assert nvidia.exit_code == 0, nvidia.stderr
    assert {k["arch"] for k in json.loads(nvidia.stdout)["kernels"]} == {"sm_90"}


def test_an_amd_launch_option_is_left_out_where_the_kernel_compiles_for_nvidia():
    from irscope.arch import Vendor
    from irscope.interop.inductor.kernels import LaunchConfig, config_of

    launch = LaunchConfig.of({"XBLOCK": 2048, "waves_per_eu": 1}, 8, 2)
    assert launch.constexprs == {"XBLOCK": 2048} and launch.options == {"waves_per_eu": 1}
    assert config_of(launch, Vendor.AMD).options == {"num_warps": 8, "num_stages": 2, "waves_per_eu": 1}
    assert config_of(launch, Vendor.NVIDIA).options == {"num_warps": 8, "num_stages": 2}


# ---------------------------------------------------------------- irscope run on a ROCm GPU

# Triton's JIT as a ROCm machine runs it: its HIP backend specializes (a 16-byte aligned tensor within
# 2 GB is "DS": divisibility and 'tt.pointer_range') and compiles, and irscope's listener records it.
# Only the driver is a stand-in: ROCm's target, device 0, and a launch that calls the launch hooks as
# HIP's launcher does (triton/backends/amd/driver.py), so the listener counts the launches.
ROCM_PROGRAM = textwrap.dedent("""
    import sys
    from pathlib import Path

    import torch
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase
    from triton.runtime.driver import driver

    from irscope.frontends.triton.listen import Listener


    class RocmStandIn(DriverBase):
        @classmethod
        def is_active(cls):
            return False

        def __init__(self):
            super().__init__()
            self.target = GPUTarget("hip", "gfx942", 64)
            props = {"max_shared_mem": 65536, "multiprocessor_count": 304, "warpSize": 64}  # an MI300X
            self.utils = type("Utils", (), {
                "load_binary": staticmethod(lambda *args: (0, 0, 0, 0, 1024)),
                "get_device_properties": staticmethod(lambda device=0: props),
            })()

            def launcher(src, metadata):
                def launch(gx, gy, gz, stream, function, packed, launch_metadata, enter, exit, *args):
                    if enter is not None:
                        enter(launch_metadata)
                return launch

            self.launcher_cls = launcher

        def map_python_to_cpp_type(self, ty):
            from triton.backends.amd.driver import ty_to_cpp
            return ty_to_cpp(ty)

        def get_current_target(self):
            return self.target

        def get_active_torch_device(self):
            return torch.device("cpu")

        def get_benchmarker(self):
            return lambda *args, **kwargs: 0.0

        def get_current_device(self):
            return 0

        def set_current_device(self, device):
            pass

        def get_current_stream(self, device=None):
            return 0


    driver.set_active(RocmStandIn())
    listener = Listener(Path(sys.argv[1]))
    listener.install()


    @triton.jit
    def leaky_relu(x_ptr, y_ptr, n, stride, slope, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs * stride, mask=offs < n, other=0.0)
        y = tl.where(x > 0, x, x * slope)
        tl.store(y_ptr + offs, y, mask=offs < n)


    x = torch.empty(4096)
    y = torch.empty(4096)
    for _ in range(3):
        leaky_relu[(16,)](x, y, 4096, 1, 0.01, BLOCK=256)
    leaky_relu[(4,)](x, y, 4096, 1, 0.01, BLOCK=1024, num_warps=8, waves_per_eu=2)
    listener.finish()
""")
# What hook.Profiler.finish writes on ROCm: torch.cuda's device name, no compute capability but the
# gcnArchName, and per kernel Kineto's events grouped by name, grid and block (64 lanes x num_warps).
ROCM_PROFILE = {
    "device": "AMD Instinct MI300X",
    "torch": "2.13.0+rocm7.0",
    "arch": "gfx942",
    "kernels": [
        {"name": "leaky_relu", "grid": [16, 1, 1], "block": [256, 1, 1], "calls": 3, "total_us": 7.5, "median_us": 2.5}
        | {"min_us": 2.4, "max_us": 2.7},
        {"name": "leaky_relu", "grid": [4, 1, 1], "block": [512, 1, 1], "calls": 1, "total_us": 3.1, "median_us": 3.1}
        | {"min_us": 3.1, "max_us": 3.1},
        {"name": "elementwise_kernel", "grid": [8, 1, 1], "block": [256, 1, 1], "calls": 1, "total_us": 1.0}
        | {"median_us": 1.0, "min_us": 1.0, "max_us": 1.0},
    ],
}


@pytest.fixture(scope="module")
def rocm_run(tmp_path_factory):
    """A run folder as `irscope run` leaves it on ROCm, collected here."""
    from irscope.interop.run.collect import collect

    root = tmp_path_factory.mktemp("rocm-run")
    (root / "prog.py").write_text(ROCM_PROGRAM)
    raw = root / "run" / "raw"
    raw.mkdir(parents=True)
    env = {**os.environ, "TRITON_CACHE_DIR": str(root / "triton"), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(root / "prog.py"), str(raw)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (raw / "profile.json").write_text(json.dumps(ROCM_PROFILE))
    notes: list[str] = []
    index = collect(root / "run", command=["python", "prog.py"], exit_code=0, wall_s=1.0, on_note=notes.append)
    return root / "run", index, notes


def test_a_rocm_run_keeps_what_the_jit_wrote_and_compiles_it_again_to_the_same_amdgcn(rocm_run):
    from irscope.capturing import capture_many
    from irscope.ir.hsaco import kernel_resources, listed_resources
    from irscope.named import open_named

    folder, index, notes = rocm_run
    assert notes == [] and index["arch"] == "gfx942" and index["device"] == "AMD Instinct MI300X"
    (kernel,) = index["kernels"]
    target = open_named(str(folder / kernel["session"]), need_kernel=True)
    assert [a.get("pointer_range") for a in target.session.signature][:3] == [32, 32, None]
    for v in kernel["variants"]:
        stored = target.session.variant(target.session.entry(v["entry"]))
        record = next(
            p
            for p in (folder / "raw" / "compiles").iterdir()
            if json.loads((p / "compile.json").read_text())["hash"] == v["hash"]
        )
        assert stored.arch == "gfx942" and stored.compile_info.mode.value == "jit"
        assert stored.listings[Stage.AMDGCN] == (record / "stage.amdgcn").read_text()
        assert Stage.PTX not in stored.listings and Stage.SASS not in stored.listings
        # registers from the recorded HSACO's metadata note, as LLVM counted them in the listing it printed
        amdgcn = stored.listings[Stage.AMDGCN]
        assert f"; TotalNumVgprs: {stored.resources.registers}\n" in amdgcn
        assert f"; TotalNumSgprs: {stored.resources.sgprs}\n" in amdgcn
        # the listing's own .amdgpu_metadata block (what a trace without the HSACO is read from) says the same
        assert listed_resources(amdgcn) == kernel_resources((record / "stage.hsaco").read_bytes())
        again = next(iter(capture_many(target.kernel, [stored.config], "gfx942", use_cache=False))).variant
        for stage in IR_STAGES:
            assert again.listings[stage] == stored.listings[stage], (v["label"], stage)
    labels = [v["label"] for v in kernel["variants"]]
    assert labels == ["BLOCK=256 num_warps=4 num_stages=2", "BLOCK=1024 num_warps=8 num_stages=2 waves_per_eu=2"]


def test_a_rocm_runs_gpu_times_are_the_amd_gpus_each_on_its_variant(rocm_run):
    from irscope.named import open_named

    folder, index, _ = rocm_run
    (kernel,) = index["kernels"]
    # linked by block: 64-lane waves, 4 of them (256 threads) and 8 (512)
    assert [(v["gpu_calls"], v["gpu_total_us"]) for v in kernel["variants"]] == [(3, 7.5), (1, 3.1)]
    assert [o["name"] for o in index["other_gpu_work"]] == ["elementwise_kernel"]
    named = open_named(str(folder), several=True)
    assert "AMD Instinct MI300X" in named.about
    session = named.sessions[0]
    m = session.entries[0].measurement
    assert (m.median_us, m.device, m.timing) == (2.5, "AMD Instinct MI300X", "rocm") and "ROCm" in m.method
    run_json = (folder / "run.json").read_text()
    assert "sm_" not in run_json and "cupti" not in run_json.lower()


def test_the_amd_gpu_of_a_rocm_machine_is_read_from_the_drivers_topology(tmp_path):
    from irscope.nvidia.device import amd_gpu_arch

    for node, version in (("0", 0), ("1", 90402), ("2", 110000)):  # a CPU node, an MI300X, an RX 7900
        (tmp_path / node).mkdir()
        (tmp_path / node / "properties").write_text(f"cpu_cores_count 0\ngfx_target_version {version}\nsimd_count 4\n")
    assert amd_gpu_arch.__wrapped__(tmp_path) == "gfx942"
    (tmp_path / "1" / "properties").write_text("gfx_target_version 90010\n")
    assert amd_gpu_arch.__wrapped__(tmp_path) == "gfx90a"
    assert amd_gpu_arch.__wrapped__(tmp_path / "none") is None


def test_run_takes_an_amd_gpu_for_a_gpu_and_refuses_arch_there(cli, monkeypatch, tmp_path):
    import irscope.nvidia.device

    monkeypatch.setattr(irscope.nvidia.device, "gpu_capability", lambda: None)
    monkeypatch.setattr(irscope.nvidia.device, "amd_gpu_arch", lambda: "gfx942")
    result = cli("run", "-o", str(tmp_path / "out"), "--arch", "sm_80", "--", sys.executable, "-c", "pass")
    one_line_error(result, 2, "--arch is for a machine without a GPU")


def test_load_inline_on_rocm_is_kept_and_said_to_be_hipified_not_compiled(tmp_path):
    from torch.utils.cpp_extension import load_inline

    from irscope.frontends.cuda.listen import LoadInlineRecorder
    from irscope.interop.run.collect import collect

    raw = tmp_path / "raw"
    raw.mkdir()
    source = "__global__ void twice(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }\n"
    LoadInlineRecorder(raw).record(
        load_inline, ("twice_ext", ""), {"cuda_sources": source, "functions": []}, sys._getframe(0)
    )
    (raw / "profile.json").write_text(json.dumps({"device": "AMD Instinct MI300X", "arch": "gfx942", "kernels": []}))
    index = collect(tmp_path, command=["python", "ext.py"], exit_code=0, wall_s=1.0)
    (row,) = index["kernels"]
    assert row["name"] == "twice" and row["session"] is None and index["arch"] == "gfx942"
    assert row["why"].startswith("torch hipified these CUDA sources and hipcc compiled them for gfx942")
    assert (tmp_path / "load_inline" / "twice_ext.cu").is_file()


# ---------------------------------------------------------------- tritonparse on a ROCm GPU

TRACE_HIP = """\
import sys
sys.path.insert(0, sys.argv[1])
import tritonparse.structured_logging as tp
tp.init(sys.argv[1] + "/logs")
import triton
from triton.backends.amd.compiler import HIPBackend
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from scaled_add import scaled_add
signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32", "BLOCK": "constexpr"}
# as ROCm's JIT specializes 16-byte aligned tensors within 2 GB ("DS") and an int divisible by 16 ("D")
attrs = {(i,): HIPBackend.parse_attr("DS") for i in (0, 1, 2)} | {(3,): HIPBackend.parse_attr("D")}
for block, warps, waves in ((256, 4, 0), (1024, 8, 2)):
    src = ASTSource(scaled_add, signature, {(5,): block}, attrs)
    triton.compile(src, target=GPUTarget("hip", "gfx942", 64), options={"num_warps": warps, "waves_per_eu": waves})
from tritonparse.parse.utils import unified_parse
unified_parse(sys.argv[1] + "/logs", out=sys.argv[1] + "/parsed", overwrite=True)
"""
PARSE = """\
import sys
from tritonparse.parse.utils import unified_parse
unified_parse(sys.argv[1], out=sys.argv[2], overwrite=True)
"""


@pytest.fixture(scope="module")
def hip_trace(tmp_path_factory) -> Path:
    pytest.importorskip("tritonparse")
    root = tmp_path_factory.mktemp("tritonparse-hip")
    (root / "scaled_add.py").write_text(SCALED_ADD)
    env = {**os.environ, "TRITON_CACHE_DIR": str(root / "triton-cache")}
    done = subprocess.run(
        [sys.executable, "-c", TRACE_HIP, str(root)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return root


def test_a_hip_trace_reads_as_gfx942_variants_with_the_traced_amdgcn(hip_trace):
    from irscope.interop.tritonparse.events import read_trace
    from irscope.interop.tritonparse.session import trace_session

    for trace in (*(hip_trace / "logs").glob("*.ndjson"), *(hip_trace / "parsed").glob("*_mapped.ndjson.gz")):
        events = {e.metadata["num_warps"]: e for e in read_trace(trace).compiles}
        assert events[4].metadata["target"] == {"backend": "hip", "arch": "gfx942", "warp_size": 64}
        session = trace_session(trace, None)
        assert [a.get("pointer_range") for a in session.signature] == [32, 32, 32, None, None, None]
        for entry in session.entries:
            v = session.variant(entry)
            assert v.ok and v.arch == "gfx942" and Stage.PTX not in v.listings
            assert v.listings[Stage.AMDGCN] == events[v.config.options["num_warps"]].stages["amdgcn"]
            assert "PTX is a stage of NVIDIA GPUs only" in v.stage_errors[Stage.PTX]
            # no HSACO in the trace: registers from its listing's metadata, as LLVM counted them there
            assert f"; TotalNumVgprs: {v.resources.registers}\n" in v.listings[Stage.AMDGCN]
            assert f"; TotalNumSgprs: {v.resources.sgprs}\n" in v.listings[Stage.AMDGCN]
        assert [e.config.label() for e in session.entries] == [
            "BLOCK=256 num_warps=4 num_stages=2",
            "BLOCK=1024 num_warps=8 num_stages=2 waves_per_eu=2",
        ]
    # tritonparse's own AMDGCN source map and irscope's agree wherever both map a line
    mapped = trace_session(next((hip_trace / "parsed").glob("*_mapped.ndjson.gz")), None)
    for check in mapped.data["tritonparse"]["mapping_check"].values():
        assert check["amdgcn"]["agreed"] > 20 and check["amdgcn"]["disagreed"] == 0


def test_sweeping_a_hip_trace_rebuilds_its_source_and_gives_the_traced_amdgcn(hip_trace, run_irscope, tmp_path):
    from irscope.interop.tritonparse.events import read_trace
    from irscope.session import Session

    trace = next((hip_trace / "logs").glob("*.ndjson"))
    traced = next(e for e in read_trace(trace).compiles if e.metadata["num_warps"] == 4).stages["amdgcn"]
    moved = tmp_path / "trace.ndjson"  # the kernel file is neither beside it nor where the trace says
    moved.write_bytes(trace.read_bytes())
    done = run_irscope(
        "sweep", f"{moved}:scaled_add", "-s", "BLOCK=256,512", "-c", "num_warps=4", "-c", "num_stages=2",
        "--arch", "gfx942", "-o", str(tmp_path / "swept"), "-j", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    session = Session.open(tmp_path / "swept")
    by_block = {e.config.constexprs["BLOCK"]: session.variant(e) for e in session.entries}
    assert by_block[256].listing(Stage.AMDGCN) == traced
    assert by_block[512].listing(Stage.AMDGCN) != traced and "buffer_load" in by_block[512].listing(Stage.AMDGCN)


def test_an_exported_hip_trace_is_parsed_by_tritonparse_and_reads_back_the_same(hip_trace, cli, tmp_path):
    from irscope.interop.tritonparse.session import trace_session

    trace = next((hip_trace / "logs").glob("*.ndjson"))
    out = tmp_path / "export" / "dedicated_log_triton_trace_irscope.ndjson"
    result = cli("export", str(trace), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    event = json.loads(out.read_text().splitlines()[1])
    assert event["payload"]["metadata"]["target"] == {"backend": "hip", "arch": "gfx942", "warp_size": 64}
    assert event["payload"]["metadata"]["waves_per_eu"] == 2 and "scaled_add.amdgcn" in event["payload"]["file_content"]
    done = subprocess.run(
        [sys.executable, "-c", PARSE, str(out.parent), str(tmp_path / "parsed")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]  # tritonparse's own parser takes it, AMDGCN map and all
    before = trace_session(trace, None)
    for again in (trace_session(out, None), trace_session(next((tmp_path / "parsed").glob("*_mapped*")), None)):
        assert again.signature == before.signature  # the pointer ranges too, from src_attrs
        old = {e.config.key(): before.variant(e) for e in before.entries}
        new = {e.config.key(): again.variant(e) for e in again.entries}
        assert sorted(old) == sorted(new)
        for key, variant in old.items():
            for stage in (Stage.SOURCE, *IR_STAGES):
                assert new[key].listing(stage) == variant.listing(stage), stage
