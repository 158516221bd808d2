"""Which runtime a variant shows: the one measured into its session, else the sample recorded for it.

The variant used here, square_kernel BLOCK_SIZE=1024 num_warps=4 for sm_90 at the
default sizes, has an H100 sample in samples/runtimes; the session says
123.4 us, so whichever face shows the sample shows the wrong number.

Where two GPUs recorded a variant, a kernel written here has samples from an "H100
80GB HBM3" and an "H200" with different runtimes, in a samples folder of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tui import settle

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.measure import samples
from irscope.measure.runtimes import shown_measurement
from irscope.measure.samples import SAMPLE_GPU_ENV, sample_gpus, write_samples
from irscope.records import Measurement
from irscope.session import Session
from irscope.types import KernelId, Status

CONFIG = ("-s", "BLOCK_SIZE=1024", "-s", "num_warps=4")


def _recorded_h100_median() -> float:
    """What samples/ holds for square_kernel BLOCK_SIZE=1024 num_warps=4 at the default size, read as a file."""
    path = Path(__file__).resolve().parent.parent / "samples" / "runtimes" / "square_kernel.h100-80gb-hbm3.json"
    rows = json.loads(path.read_text())["variants"]
    (row,) = [
        r
        for r in rows
        if r["config"]["constexprs"] == {"BLOCK_SIZE": 1024}
        and r["config"]["options"]["num_warps"] == 4
        and r["arch"] == "sm_90"
    ]
    return row["measurement"]["median_us"]


TWICE = """
import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable, pow2


@triton.jit
def twice_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, 2 * tl.load(in_ptr + offsets, mask=offsets < n), mask=offsets < n)


twice = KernelSpec(
    twice_kernel,
    sizes=dict(n=4096),
    tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.y, k.x, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(128, pow2(128, 256))),
    reference=lambda k: 2 * k.x,
)
"""


@pytest.fixture(autouse=True)
def default_sample_gpu(monkeypatch):
    """Each test starts without a chosen GPU, and what --sample-gpu sets in os.environ is undone after it."""
    monkeypatch.setenv(SAMPLE_GPU_ENV, "H100")
    monkeypatch.delenv(SAMPLE_GPU_ENV)


@pytest.fixture
def two_gpus(tmp_path, monkeypatch):
    """twice_kernel's file; samples: BLOCK=128 on an H100 (10 us) and an H200 (8 us), BLOCK=256 on the H200 (7 us)."""
    path = tmp_path / "twice.py"
    path.write_text(TWICE)
    ref = resolve_kernel(f"{path}:twice_kernel")
    small, large = (capture(ref, {"BLOCK": block}, arch="sm_90") for block in (128, 256))
    assert small.ok and large.ok, (small.error, large.error)
    folder = tmp_path / "runtimes"
    folder.mkdir()

    def ok(us):
        return Measurement(Status.OK, median_us=us)

    write_samples(
        folder / "twice_kernel.h100-80gb-hbm3.json",
        small.kernel,
        tmp_path,
        {"name": "H100 80GB HBM3", "capability": 90},
        [(small.config, "sm_90", ok(10.0))],
    )
    write_samples(
        folder / "twice_kernel.h200.json",
        small.kernel,
        tmp_path,
        {"name": "H200", "capability": 90},
        [(small.config, "sm_90", ok(8.0)), (large.config, "sm_90", ok(7.0))],
    )
    monkeypatch.setattr(samples, "SAMPLES_DIR", folder)
    return f"{path}:twice_kernel", small, large


@pytest.fixture
def measured_session(tmp_path):
    """A session holding the variant, measured at a runtime no sample has."""
    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    entry = session.add(capture(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}, arch="sm_90"))
    entry.measurement = Measurement(Status.OK, median_us=123.4, device="NVIDIA H100", source="measured")
    session.update(entry)
    return session.path


async def test_a_session_reopened_as_a_sweep_target_shows_its_own_runtime_in_the_tui(
    cli, measured_session, monkeypatch
):
    from irscope.tui.app import IrscopeApp
    from irscope.tui.widgets.variants import row_values

    apps = []
    monkeypatch.setattr(IrscopeApp, "run", lambda self, *a, **k: apps.append(self))
    result = cli("tui", "square_kernel", "-o", str(measured_session), *CONFIG, "--no-bench")  # a GPU would re-measure
    assert result.exit_code == 0, result.stderr
    (app,) = apps
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        (row,) = app.model.rows
        assert row.ready and row.measurement.median_us == 123.4
        assert row_values(app.model, row)["median_us"] == 123.4 and "sample" not in row.why()
        assert "123.4 us (measured)" in app.status_text


def test_a_session_reopened_as_a_sweep_target_shows_its_own_runtime_in_the_sweep_table(cli, measured_session):
    result = cli("sweep", "square_kernel", "-o", str(measured_session), *CONFIG, "--json")
    assert result.exit_code == 0, result.stderr
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["median_us"] == 123.4 and row["note"] == "measured"


def test_without_a_measurement_the_sample_of_exactly_this_variant_is_shown_and_labelled(cli, tmp_path):
    result = cli("sweep", "square_kernel", "-o", str(tmp_path / "s"), *CONFIG, "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["median_us"] == _recorded_h100_median() and row["note"].startswith("H100 80GB HBM3 sample")


async def test_a_session_opened_as_a_directory_shows_the_sample_where_it_measured_nothing(tmp_path):
    from irscope.tui.factory import make_app

    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    session.add(capture(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}, arch="sm_90"))
    app = make_app(str(session.path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        (row,) = app.model.rows
        assert row.measurement.median_us == _recorded_h100_median() and row.why().startswith("H100 80GB HBM3 sample")


def test_the_rule_prefers_the_entry_and_otherwise_matches_the_sample_exactly(measured_session):
    session = Session.open(measured_session)
    (entry,) = session.entries
    kernel = session.kernel
    assert shown_measurement(kernel, entry.config, entry.arch, entry).median_us == 123.4
    sample = shown_measurement(kernel, entry.config, entry.arch)
    assert sample.median_us == _recorded_h100_median() and sample.source.startswith("H100 80GB HBM3 sample")
    assert shown_measurement(kernel, entry.config, "sm_80") is None
    other = KernelId(kernel.name, kernel.file, "0" * 64)
    assert shown_measurement(other, entry.config, entry.arch) is None


def test_samples_of_one_variant_from_two_gpus_are_both_kept_and_the_chosen_one_is_shown(two_gpus, monkeypatch):
    _, small, _ = two_gpus
    assert sample_gpus() == ["H100 80GB HBM3", "H200"] == sample_gpus(small.kernel)
    h100 = shown_measurement(small.kernel, small.config, "sm_90")
    assert h100.median_us == 10.0 and h100.source.startswith("H100 80GB HBM3 sample")
    assert shown_measurement(small.kernel, small.config, "sm_90", gpu="h200").median_us == 8.0
    monkeypatch.setenv(SAMPLE_GPU_ENV, "H200")
    h200 = shown_measurement(small.kernel, small.config, "sm_90")
    assert h200.median_us == 8.0 and h200.source.startswith("H200 sample")
    assert shown_measurement(small.kernel, small.config, "sm_90", gpu="H100").median_us == 10.0


def test_a_variant_the_chosen_gpu_did_not_record_shows_another_gpus_sample_labelled_with_it(two_gpus):
    _, _, large = two_gpus
    fallback = shown_measurement(large.kernel, large.config, "sm_90", gpu="H100")
    assert fallback.median_us == 7.0 and fallback.source.startswith("H200 sample")
    assert shown_measurement(large.kernel, large.config, "sm_80") is None


def _sweep(cli, kernel, *options):
    result = cli("sweep", kernel, "-s", "BLOCK=128,256", "--arch", "sm_90", "--json", *options)
    assert result.exit_code == 0, result.stderr
    return [(row["median_us"], row["note"].split(" sample")[0]) for row in map(json.loads, result.stdout.splitlines())]


def test_sweep_shows_the_samples_of_the_gpu_sample_gpu_or_the_environment_names(cli, two_gpus, monkeypatch):
    kernel, _, _ = two_gpus
    assert _sweep(cli, kernel) == [(10.0, "H100 80GB HBM3"), (7.0, "H200")]
    assert _sweep(cli, kernel, "--sample-gpu", "H200") == [(8.0, "H200"), (7.0, "H200")]
    monkeypatch.setenv(SAMPLE_GPU_ENV, "h200")
    assert _sweep(cli, kernel) == [(8.0, "H200"), (7.0, "H200")]
    assert _sweep(cli, kernel, "--sample-gpu", "hbm3") == [(10.0, "H100 80GB HBM3"), (7.0, "H200")]


def test_diff_compares_the_runtimes_of_the_gpu_sample_gpu_names(cli, two_gpus):
    kernel, _, _ = two_gpus
    result = cli(
        "diff", kernel, "-a", "BLOCK=128", "-b", "BLOCK=256", "--arch", "sm_90", "--sample-gpu", "H200", "--json"
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["runtimes_us"] == [8.0, 7.0]


@pytest.mark.parametrize("command", ["sweep", "tui", "diff"])
def test_a_sample_gpu_no_sample_was_recorded_on_is_refused_in_one_line_naming_those_that_were(cli, two_gpus, command):
    kernel, _, _ = two_gpus
    result = cli(command, kernel, "--sample-gpu", "H300")
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "'H300'" in line and line.endswith("H100 80GB HBM3, H200")


async def test_the_tui_says_whose_samples_it_shows_and_shows_them(cli, two_gpus, monkeypatch):
    from irscope.tui.app import IrscopeApp
    from irscope.tui.factory import make_app

    kernel, _, _ = two_gpus
    sweep = {"sweeps": ["BLOCK=128,256"], "arch": "sm_90"}
    assert make_app(kernel, **sweep).sub_title.endswith(" · runtimes: H100 80GB HBM3 samples")
    monkeypatch.setenv(SAMPLE_GPU_ENV, "A100")
    unrecorded = make_app(kernel, **sweep).sub_title
    assert unrecorded.endswith(" · runtimes: H100 80GB HBM3, H200 samples (none recorded on A100)")

    apps = []
    monkeypatch.setattr(IrscopeApp, "run", lambda self, *a, **k: apps.append(self))
    result = cli("tui", kernel, "-s", "BLOCK=128,256", "--arch", "sm_90", "--sample-gpu", "H200")
    assert result.exit_code == 0, result.stderr
    (app,) = apps
    assert app.sub_title.endswith(" · runtimes: H200 samples")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert [(r.measurement.median_us, r.why().split(" sample")[0]) for r in app.model.rows] == [
            (8.0, "H200"),
            (7.0, "H200"),
        ]


def test_a_session_measured_on_a_gpu_does_not_claim_to_show_samples(measured_session, tmp_path):
    from irscope.tui.factory import make_app

    assert "runtimes:" not in make_app(str(measured_session)).sub_title
    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "unmeasured", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    session.add(capture(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}, arch="sm_90"))
    assert make_app(str(session.path)).sub_title.endswith(" · runtimes: H100 80GB HBM3 samples")
