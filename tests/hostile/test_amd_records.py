"""Records that say they were made on an AMD GPU are data: a bad arch, wave size or vendor is one line.

Each case damages a record where it names the GPU (or, last, an AMDGCN listing's metadata, which a
trace's registers are read from): an Inductor log's DeviceProperties (tests/fixtures/
rocm, `irscope inductor --log`: exit 2, as any log that gives no usable kernels), an `irscope run`
compile record (skipped with its reason, the others kept: the run's exit status is the program's),
and a tritonparse trace's compile target (samples/tritonparse; `irscope dump`: exit 5, damaged data).
An arch that is shell text, 500 characters, a number or a list; a wave of 48 lanes, or of 32 on
gfx942; a 'hip' backend naming an sm_ arch; NVIDIA and AMD compiles in one log. Nothing in them runs.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode

from .battery.runs import KERNEL_SOURCE, RECORD

REPO = Path(__file__).resolve().parents[2]
ROCM_LOG = REPO / "tests" / "fixtures" / "rocm" / "mlp_layernorm_rocm.log"
NVIDIA_LOG = REPO / "samples" / "inductor" / "square.log"
TRACE = REPO / "samples" / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz"
ROCM_CC = "cc='gfx942'"
ROCM_WAVE = "warp_size=64"

BAD_DEVICES = {
    "shell text": (ROCM_CC, "cc='gfx942; rm -rf ~'", "names arch 'gfx942; rm -rf ~'"),
    "500 characters": (ROCM_CC, f"cc='gfx{'9' * 500}'", "names arch 'gfx999"),
    "a number": (ROCM_CC, "cc=9.4", "names arch 9.4"),
    "a list": (ROCM_CC, "cc=['gfx942']", "names arch ['gfx942']"),
    "an sm_ arch under hip": (ROCM_CC, "cc=90", "says backend 'hip' but names sm_90"),
    "a wave of 48 lanes": (ROCM_WAVE, "warp_size=48", "says a wave has 48 lanes"),
    "a wave of 32 on gfx942": (ROCM_WAVE, "warp_size=32", "says a wave of gfx942 has 32 lanes; it has 64"),
    "no processor": (ROCM_CC, "cc=None", "names an AMD GPU (backend 'hip') but not its processor"),
    "an unknown backend": ("type='hip'", "type='rocm'", "names backend 'rocm'"),
}


@pytest.mark.parametrize("case", sorted(BAD_DEVICES))
def test_an_inductor_log_with_a_bad_amd_device_is_one_line_and_exit_2(cli, tmp_path, case):
    old, new, said = BAD_DEVICES[case]
    text = ROCM_LOG.read_text()
    assert old in text
    log = tmp_path / "rocm.log"
    log.write_text(text.replace(old, new))
    result = cli("inductor", "--log", str(log))
    one_line_error(result, ExitCode.USAGE, "kernel triton_per_fused_native_layer_norm_0: its DeviceProperties", said)


def test_a_device_that_is_code_is_one_line_and_never_runs(cli, tmp_path):
    witness = tmp_path / "ran"
    log = tmp_path / "rocm.log"
    log.write_text(ROCM_LOG.read_text().replace(ROCM_CC, f"cc=__import__('os').system('touch {witness}')"))
    result = cli("inductor", "--log", str(log))
    one_line_error(result, ExitCode.USAGE, "its triton_meta's device is not a literal DeviceProperties")
    assert not witness.exists()


def test_a_log_of_nvidia_and_amd_compiles_run_together_is_one_line(cli, tmp_path):
    log = tmp_path / "both.log"
    log.write_text(NVIDIA_LOG.read_text() + ROCM_LOG.read_text())
    result = cli("inductor", "--log", str(log))
    one_line_error(
        result,
        ExitCode.USAGE,
        "mixes NVIDIA and AMD compiles",
        "triton_poi_fused_pow_0 for sm_90",
        "triton_per_fused_native_layer_norm_0 for gfx942",
    )


# ---------------------------------------------------------------- irscope run's compile records


@pytest.mark.parametrize(
    "arch, said",
    [
        ("gfx942; rm -rf ~", "names arch 'gfx942; rm -rf ~'"),
        ("gfx" + "9" * 500, "names arch 'gfx999"),
        (["gfx942"], "names arch ['gfx942']"),
        (True, "names arch True"),
        (9.4, "names arch 9.4"),
    ],
)
def test_a_run_record_with_a_bad_arch_is_skipped_with_its_reason(tmp_path, arch, said):
    from irscope.interop.run.collect import collect

    raw = tmp_path / "raw"
    (raw / "sources").mkdir(parents=True)
    (raw / "sources" / "k.py").write_text(KERNEL_SOURCE)
    for n, record_arch in enumerate((arch, "gfx942")):
        folder = raw / "compiles" / f"0000{n}"
        folder.mkdir(parents=True)
        record = {**RECORD, "hash": f"h{n}", "arch": record_arch, "stages": {}}
        (folder / "compile.json").write_text(json.dumps(record))
    (raw / "profile.json").write_text(json.dumps({"device": "AMD Instinct MI300X", "arch": ["gfx942"]}))
    notes: list[str] = []
    index = collect(tmp_path, command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    (skipped,) = index["skipped"]
    assert skipped.startswith("00000: the compile ") and said in skipped and "\n" not in skipped
    assert index["arch"] == "gfx942"  # the other record's; the profile's list is no arch either
    assert notes[0].startswith("the profile names arch ['gfx942']")


def test_a_run_record_whose_pointer_ranges_are_not_names_is_skipped(tmp_path):
    from irscope.frontends.triton.recorded import read_compiles

    folder = tmp_path / "raw" / "compiles" / "00000"
    folder.mkdir(parents=True)
    record = {"format": "irscope.triton-compile/1", "kernel": "k", "arch": "gfx942", "pointer_range": "x_ptr"}
    (folder / "compile.json").write_text(json.dumps(record))
    records, skipped = read_compiles(tmp_path / "raw")
    assert records == [] and skipped == ["00000: 'pointer_range' must be a list of names"]


@pytest.mark.parametrize("entry", [{"type": "i32", "pointer_range": 32}, {"type": "*fp32", "pointer_range": 64}])
def test_a_stored_pointer_range_other_than_32_on_a_pointer_is_refused(entry):
    from irscope.errors import ParameterError
    from irscope.frontends.triton.signature import signature_from_json

    with pytest.raises(ParameterError, match="is not 32 on a pointer"):
        signature_from_json([entry])


# ---------------------------------------------------------------- tritonparse traces


def _trace_with_target(tmp_path: Path, target: dict) -> Path:
    out = []
    for line in gzip.open(TRACE, "rt").read().splitlines():
        event = json.loads(line)
        if event["event_type"] == "compilation":
            event["payload"]["metadata"]["target"] = target
        out.append(json.dumps(event) + "\n")
    path = tmp_path / "crafted.ndjson"
    path.write_text("".join(out))
    return path


@pytest.mark.parametrize(
    "target, said",
    [
        ({"backend": "hip", "arch": "gfx942; rm -rf ~", "warp_size": 64}, "its target names arch 'gfx942; rm -rf ~'"),
        ({"backend": "hip", "arch": "gfx" + "9" * 500, "warp_size": 64}, "its target names arch 'gfx999"),
        ({"backend": "hip", "arch": 942, "warp_size": 64}, "says backend 'hip' but names sm_942"),
        ({"backend": "hip", "arch": {"gfx": 942}, "warp_size": 64}, "names arch {'gfx': 942}"),
        ({"backend": "hip", "arch": "gfx942", "warp_size": 48}, "says a wave has 48 lanes"),
        ({"backend": "hip", "arch": "gfx942", "warp_size": 32}, "says a wave of gfx942 has 32 lanes"),
        ({"backend": "cuda", "arch": "gfx942", "warp_size": 64}, "says backend 'cuda' but names gfx942"),
        ({"backend": "rocm", "arch": "gfx942", "warp_size": 64}, "names backend 'rocm'"),
    ],
)
def test_a_trace_whose_target_is_no_gpu_is_one_line_and_exit_5(cli, tmp_path, target, said):
    result = cli("dump", str(_trace_with_target(tmp_path, target)))
    one_line_error(result, ExitCode.SESSION_ERROR, "no compilation of fused_op_kernel irscope can read", said)


def test_a_compile_said_to_be_for_gfx942_that_holds_ptx_is_left_out_with_a_note(tmp_path):
    from irscope.interop.tritonparse.session import trace_session

    out, n = [], 0
    for line in gzip.open(TRACE, "rt").read().splitlines():
        event = json.loads(line)
        if event["event_type"] == "compilation":
            if n == 1:  # the second compile says it was for gfx942, but its stages are NVIDIA's
                event["payload"]["metadata"]["target"] = {"backend": "hip", "arch": "gfx942", "warp_size": 64}
            n += 1
        out.append(json.dumps(event) + "\n")
    path = tmp_path / "mixed.ndjson"
    path.write_text("".join(out))
    notes: list[str] = []
    session = trace_session(path, None, note=notes.append)
    assert [e.arch for e in session.entries] == ["sm_75"]
    assert any("its target is gfx942 but it holds PTX, a stage of NVIDIA GPUs" in line for line in notes), notes


@pytest.mark.parametrize(
    "listing",
    [
        "",
        "\t.amdgpu_metadata\n---\namdhsa.kernels:\n...\n\t.end_amdgpu_metadata\n",
        "\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .name: k\n    .vgpr_count: -3\n\t.end_amdgpu_metadata\n",
        "\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .name: k\n    .vgpr_count: "
        + "9" * 400
        + "\n\t.end_amdgpu_metadata\n",
        "\t.end_amdgpu_metadata\n\t.amdgpu_metadata\n",
    ],
)
def test_a_listing_whose_metadata_is_no_kernels_counts_is_a_value_error(listing):
    from irscope.ir.hsaco import listed_resources

    with pytest.raises(ValueError):
        listed_resources(listing)
