"""A runtime recorded elsewhere is shown as a variant's own only where it ran that variant's PTX (issue 47, point 1).

A kernel written here is compiled at two BLOCKs for sm_90; its samples are written the way
tests/gpu/record_samples.py writes them, each row carrying the hash of the PTX that ran. The
BLOCK=128 row that ran BLOCK=128's own PTX is "of this PTX"; a row for the same source and config
whose PTX was other code (here BLOCK=256's PTX, as another Triton's compile would be) is labelled with
the build, timing method and date it came from; a row recorded before rows kept the hash (every file
samples/runtimes ships today) says its code is not verified.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.measure import samples
from irscope.measure.runtimes import shown_measurement
from irscope.measure.samples import SAMPLE_GPU_ENV, write_samples
from irscope.measure.worker import launched_ptx
from irscope.records import Measurement, code_hash
from irscope.session import Session
from irscope.session.store import Entry
from irscope.types import Stage, Status

HALVE = """
import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable, pow2


@triton.jit
def halve_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(in_ptr + offsets, mask=offsets < n) * 0.5, mask=offsets < n)


halve = KernelSpec(
    halve_kernel,
    sizes=dict(n=4096),
    tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.y, k.x, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(128, pow2(128, 256))),
    reference=lambda k: 0.5 * k.x,
)
"""
H100 = {"name": "H100 80GB HBM3", "capability": 90, "triton": "3.6.0"}


def _timed(us: float, ptx: str | None, timing: str = "cupti") -> Measurement:
    return Measurement(
        Status.OK,
        median_us=us,
        timing=timing,
        triton="3.6.0",
        date="2026-12-01",
        ptx_sha256="" if ptx is None else code_hash(ptx),
    )


@pytest.fixture(autouse=True)
def default_sample_gpu(monkeypatch):
    monkeypatch.delenv(SAMPLE_GPU_ENV, raising=False)


@pytest.fixture(scope="module")
def halve(tmp_path_factory):
    """halve_kernel's file and its BLOCK=128 and BLOCK=256 variants for sm_90."""
    folder = tmp_path_factory.mktemp("halve")
    path = folder / "halve.py"
    path.write_text(HALVE)
    ref = resolve_kernel(f"{path}:halve_kernel")
    small, large = (capture(ref, {"BLOCK": block}, arch="sm_90") for block in (128, 256))
    assert small.ok and large.ok, (small.error, large.error)
    assert small.listings[Stage.PTX] != large.listings[Stage.PTX]
    return f"{path}:halve_kernel", small, large


@pytest.fixture
def recorded(halve, tmp_path, monkeypatch):
    """Samples: BLOCK=128 ran its own PTX (10 us, CUPTI); BLOCK=256's row ran other code (20 us, CUDA events)."""
    _, small, large = halve
    folder = tmp_path / "runtimes"
    folder.mkdir()
    write_samples(
        folder / "halve_kernel.h100-80gb-hbm3.json",
        small.kernel,
        tmp_path,
        H100,
        [
            (small.config, "sm_90", _timed(10.0, small.listings[Stage.PTX])),
            (large.config, "sm_90", _timed(20.0, small.listings[Stage.PTX], timing="events")),
        ],
    )
    monkeypatch.setattr(samples, "SAMPLES_DIR", folder)
    return folder / "halve_kernel.h100-80gb-hbm3.json"


def test_a_sample_file_keeps_the_hash_build_and_date_of_what_ran(halve, recorded):
    _, small, _ = halve
    rows = json.loads(recorded.read_text())["variants"]
    assert rows[0]["measurement"]["ptx_sha256"] == code_hash(small.listings[Stage.PTX])
    assert {r["measurement"]["triton"] for r in rows} == {"3.6.0"}
    assert {r["measurement"]["date"] for r in rows} == {"2026-12-01"}


def test_the_variant_whose_ptx_ran_shows_the_sample_as_its_own(halve, recorded):
    _, small, _ = halve
    entry = Entry.of(small)
    assert entry.facts.ptx_sha256 == code_hash(small.listings[Stage.PTX])
    shown = shown_measurement(small.kernel, small.config, "sm_90", entry)
    assert shown.median_us == 10.0
    assert shown.source == "H100 80GB HBM3 sample, this PTX, CUPTI, 2026-12-01"


def test_a_variant_whose_ptx_differs_gets_no_unlabelled_runtime(halve, recorded):
    _, _, large = halve
    shown = shown_measurement(large.kernel, large.config, "sm_90", Entry.of(large))
    assert shown.median_us == 20.0
    assert "this PTX" not in shown.source
    assert shown.source == "H100 80GB HBM3 sample, other code: Triton 3.6.0, CUDA events, 2026-12-01"


def test_a_variant_whose_ptx_is_unknown_is_not_told_the_sample_is_its_own(halve, recorded):
    _, small, _ = halve
    shown = shown_measurement(small.kernel, small.config, "sm_90")  # no entry, no hash
    assert shown.source.startswith("H100 80GB HBM3 sample, code not compared")
    assert shown.source.endswith(": Triton 3.6.0, CUPTI, 2026-12-01")


def test_a_sample_recorded_without_a_hash_is_labelled_unverified_with_the_files_build_and_date(halve, tmp_path):
    _, small, _ = halve
    old = {"status": "ok", "median_us": 9.5, "timing": "cupti"}  # a row as samples/ holds them today
    (tmp_path / "halve_kernel.h100-80gb-hbm3.json").write_text(
        json.dumps(
            {
                "format": "irscope.samples/1",
                "kernel": "halve_kernel",
                "source_hash": small.kernel.source_hash,
                "device": H100,
                "recorded": "2026-11-21",
                "variants": [{"config": small.config.to_json(), "arch": "sm_90", "measurement": old}],
            }
        )
    )
    shown = samples.sample_measurement(
        small.kernel, small.config, "sm_90", directory=tmp_path, ptx_sha256=code_hash(small.listings[Stage.PTX])
    )
    assert shown.median_us == 9.5
    assert shown.source == ("H100 80GB HBM3 sample, code unverified: Triton 3.6.0, CUPTI, 2026-11-21")


def test_the_shipped_samples_are_labelled_with_their_build_method_and_date_not_as_this_code(cli, tmp_path):
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=1024", "-s", "num_warps=4", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    (row,) = map(json.loads, result.stdout.splitlines())
    assert row["median_us"] is not None
    assert row["note"].startswith("H100 80GB HBM3 sample, code unverified")
    shipped = Path(samples.SAMPLES_DIR) / "square_kernel.h100-80gb-hbm3.json"
    assert row["note"].endswith(f": Triton 3.6.0, CUPTI, {json.loads(shipped.read_text())['recorded']}")


def test_sweep_and_diff_say_which_runtime_ran_this_code(cli, halve, recorded):
    kernel, _, _ = halve
    result = cli("sweep", kernel, "-s", "BLOCK=128,256", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    notes = [json.loads(line)["note"] for line in result.stdout.splitlines()]
    assert notes == [
        "H100 80GB HBM3 sample, this PTX, CUPTI, 2026-12-01",
        "H100 80GB HBM3 sample, other code: Triton 3.6.0, CUDA events, 2026-12-01",
    ]
    result = cli("diff", kernel, "-a", "BLOCK=128", "-b", "BLOCK=256", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    runtimes = json.loads(result.stdout)
    assert runtimes["runtimes_us"] == [10.0, 20.0]


def test_a_runtime_measured_into_a_session_names_its_timing_method(cli, tmp_path):
    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    entry = session.add(capture(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}, arch="sm_90"))
    entry.measurement = Measurement(Status.OK, median_us=40.0, timing="events", source="measured")
    session.update(entry)
    result = cli(
        "sweep", "square_kernel", "-o", str(session.path), "-s", "BLOCK_SIZE=1024", "-s", "num_warps=4", "--json"
    )
    assert result.exit_code == 0, result.stderr
    (row,) = map(json.loads, result.stdout.splitlines())
    assert row["median_us"] == 40.0 and row["note"] == "measured, CUDA events"


def test_a_measurement_hashes_the_ptx_its_launch_ran(halve):
    """What the GPU worker reads off a launch: Triton's compiled kernel (compiled here for sm_90, no GPU needed),
    another Triton's binary, or a torch reference, which shows no PTX."""
    import importlib.util

    import triton
    from triton.backends.compiler import GPUTarget

    name, small, _ = halve
    spec = importlib.util.spec_from_file_location("halve_for_test", name.split(":")[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    signature = {"out_ptr": "*fp32", "in_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = triton.compiler.ASTSource(fn=module.halve_kernel, signature=signature, constexprs={"BLOCK": 128})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32))
    assert launched_ptx(compiled, {}) == compiled.asm["ptx"]
    assert launched_ptx(compiled, {"binary": {"ptx": small.listings[Stage.PTX]}}) == small.listings[Stage.PTX]
    assert launched_ptx(compiled, {"reference": "eager"}) is None
    assert launched_ptx(object(), {}) is None
