"""What of measuring works without a GPU: results, derived figures, ncu parsing, samples, the no-GPU path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.measure.ncu import parse_csv
from irscope.measure.results import derived, summarize
from irscope.measure.runtimes import shown_measurement
from irscope.measure.samples import sample_measurement, write_samples
from irscope.records import Measurement
from irscope.session import Session
from irscope.types import Status

REPO = Path(__file__).resolve().parent.parent


def test_summary_statistics_of_per_call_times():
    stats = summarize([0.100, 0.102, 0.098, 0.101, 0.099, 0.5])  # ms; one outlier
    assert stats["median_us"] == pytest.approx(100.5)
    assert stats["min_us"] == pytest.approx(98.0)
    assert stats["p20_us"] <= stats["median_us"] <= stats["p80_us"]


def test_derived_bandwidth_throughput_and_the_roof_that_applies():
    # An H200's figures: 4.8 TB/s peak, 989 TFLOP/s fp16 tensor peak -> ridge at ~206 flops/byte.
    d = derived(
        median_us=125.0,
        bytes_moved=512e6,
        flops=64e6,
        copy_us=120.0,
        ceiling_gbps=4100.0,
        peak_gbps=4800.0,
        peak_tflops=989.0,
    )
    assert d["gbps"] == pytest.approx(4096.0)
    assert d["pct_copy"] == pytest.approx(100 * 120 / 125)  # the same bytes copied, as % of the kernel's time
    assert d["pct_ceiling"] == pytest.approx(100 * 4096 / 4100)
    assert d["pct_datasheet"] == pytest.approx(100 * 4096 / 4800)
    assert d["tflops"] == pytest.approx(0.512)
    assert d["bound"] == "memory"
    # A 4096^3 fp16 matmul: 2*4096^3 flops over 3*4096^2*2 bytes = ~1365 flops/byte: compute-bound.
    mm = derived(median_us=200.0, bytes_moved=3 * 4096**2 * 2, flops=2 * 4096**3, peak_gbps=4800.0, peak_tflops=989.0)
    assert mm["bound"] == "compute"
    assert mm["pct_flops"] == pytest.approx(100 * (2 * 4096**3 / 200e-6 / 1e12) / 989.0)
    empty = derived(10.0, None, None)
    assert all(v is None for v in empty.values())


def test_bytes_moved_default_to_every_tensor_once():
    ref = resolve_kernel("square_kernel")
    assert ref.spec.bytes_for(resolve_config(ref, {}).values()) == 2 * 4096 * 781 * 4
    matmul = resolve_kernel("matmul_kernel")
    assert matmul.spec.flops_for(resolve_config(matmul, {}).values()) == 2 * 4096**3


def test_measurement_round_trips_through_json():
    m = Measurement(
        Status.WRONG,
        median_us=12.5,
        p20_us=12.0,
        p80_us=13.0,
        min_us=11.9,
        repetitions=400,
        gbps=800.0,
        max_abs_error=1.0,
        error="out: 10 of 100 elements off",
        device="H100",
        ncu={"gpu_time_us": 12.1, "dram_pct": 60.0},
    )
    back = Measurement.from_json(json.loads(json.dumps(m.to_json())))
    assert back == m and not back.ranked


def test_ncu_csv_recorded_on_a_gpu_parses_into_one_row_per_launch():
    launches = parse_csv((REPO / "samples/ncu/triton_square_h200.csv").read_text())
    squares = [x for x in launches if x["kernel"] == "_square"]
    assert len(squares) == 2
    assert squares[0]["gpu_time_us"] == pytest.approx(81.344, rel=0.01)  # "81,344" ns
    assert squares[1]["registers"] == 18 and 0 < squares[1]["dram_pct"] <= 100
    assert all("occupancy_pct" in x for x in squares)


def test_bench_without_a_gpu_says_so_with_its_own_exit_code(cli, monkeypatch):
    monkeypatch.setenv("IRSCOPE_NO_GPU", "1")
    from irscope.nvidia.device import gpu_capability

    gpu_capability.cache_clear()
    try:
        result = cli("bench", "square_kernel")
    finally:
        gpu_capability.cache_clear()
    assert result.exit_code == 4
    assert "needs a CUDA GPU" in result.stderr and "Traceback" not in result.stderr


def test_measurements_are_stored_in_the_session_and_shown_in_diff(cli, tmp_path):
    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    for block, us in ((128, 40.0), (1024, 20.0)):
        entry = session.add(capture(ref, {"BLOCK_SIZE": block}, arch="sm_90"))
        entry.measurement = Measurement(Status.OK, median_us=us, device="NVIDIA H100", date="2026-11-21")
        session.update(entry)
    reopened = Session.open(session.path)
    v = reopened.variant(reopened.entries[0])
    assert shown_measurement(v.kernel, v.config, v.arch, reopened.find(v.config, v.arch)).median_us == 40.0
    result = cli("diff", str(session.path), "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024")
    assert "runtime (median)" in result.stdout and "B/A = 0.50x" in result.stdout


def test_samples_give_runtimes_to_matching_variants_only(tmp_path):
    v = capture("square_kernel", {"BLOCK_SIZE": 256}, arch="sm_90")
    m = Measurement(Status.OK, median_us=33.3, gbps=777.0, device="H100")
    write_samples(
        tmp_path / "square.json", v.kernel, REPO, {"name": "H100 80GB HBM3", "capability": 90}, [(v.config, v.arch, m)]
    )
    data = json.loads((tmp_path / "square.json").read_text())
    assert data["file"] == "kernels/square.py" and "/" not in data["file"][:1]
    assert str(REPO) not in (tmp_path / "square.json").read_text()
    found = sample_measurement(v.kernel, v.config, v.arch, directory=tmp_path)
    assert found.median_us == 33.3 and found.source.startswith("H100 80GB HBM3 sample")
    other = capture("square_kernel", {"BLOCK_SIZE": 512}, arch="sm_90")
    assert sample_measurement(other.kernel, other.config, other.arch, directory=tmp_path) is None
    assert sample_measurement(v.kernel, v.config, "sm_80", directory=tmp_path) is None


TUNED = str(REPO / "tests/gpu/tuned_kernels.py") + ":tuned_scale_kernel"


def _tuned_rows():
    """The autotuned test kernel's configs, compiled for real, with irscope's medians (BLOCK=512 fastest)."""
    from irscope.frontends.config import sweep_configs
    from irscope.measure.bench import BenchResult

    ref = resolve_kernel(TUNED)
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
    medians = (30.0, 25.0, 20.0, 18.0)  # the pruned BLOCK=4096 is fastest of all, but the autotuner never sees it
    rows = [
        BenchResult(i, capture(ref, config=c, arch="sm_90"), Measurement(Status.OK, median_us=us))
        for i, (c, us) in enumerate(zip(configs, medians))
    ]
    return ref, configs, rows


def test_the_autotuners_timings_are_matched_to_rows_and_a_disagreement_is_said_plainly(capsys):
    from irscope.cli.bench import print_bench_table
    from irscope.frontends.triton.tuner import read_run
    from irscope.records import AutotunerRun
    from irscope.types import Config

    ref, configs, rows = _tuned_rows()
    tuner = ref.tuning.autotuner
    # What Autotuner.run leaves behind on a GPU: do_bench's (median, p20, p80) per config it timed, and its pick.
    tuner.configs_timings = {c: [ms, ms * 0.9, ms * 1.1] for c, ms in zip(tuner.configs[:3], (0.031, 0.027, 0.029))}
    tuner.best_config = tuner.configs[1]
    try:
        run = read_run(tuner, {"n": 1 << 18, "SCALE": 3}, seconds=2.5)
    finally:
        del tuner.configs_timings, tuner.best_config
    assert [c.pruned for c in run.configs] == [False, False, False, True]
    assert run.picked == 1 and run.pick.label() == "BLOCK=256 num_warps=2 num_stages=3"
    assert run.configs[1].timings == (0.027, 0.027 * 0.9, 0.027 * 1.1) and run.ranked_by.startswith("median")
    assert [run.index_of(c) for c in configs] == [0, 1, 2, 3]
    other_size = Config(configs[1].constexprs, configs[1].options, {"n": 4096})
    assert run.index_of(other_size) is None  # the autotuner ran on n = 2**18 only
    assert AutotunerRun.from_json(json.loads(json.dumps(run.to_json()))) == run

    print_bench_table(rows, run)
    out = capsys.readouterr().out
    assert "autotuner ms" in out and "0.027 *" in out and "pruned" in out
    assert "Triton's autotuner picked BLOCK=256 num_warps=2 num_stages=3: 0.027 ms, in 2.5 s" in out
    assert "irscope's fastest, BLOCK=4096 num_warps=8 num_stages=3 (18.0 us), is one prune_configs_by drops" in out
    # irscope's fastest of the configs the autotuner timed is BLOCK=512, not its pick
    assert "irscope disagrees: it ranks BLOCK=512 num_warps=4 num_stages=3 first, the autotuner BLOCK=256" in out
    assert "irscope's median GPU time: 20.0 us against 25.0 us; the autotuner's: 0.029 ms against 0.027 ms" in out


def test_only_a_kernel_with_its_own_autotuner_gets_an_autotuner_job():
    from irscope.measure.autotuner import AUTOTUNER, autotune, autotuner_job

    square = resolve_kernel("square_kernel")
    config = resolve_config(square, {})
    assert autotuner_job(square, [config]) is None
    assert autotune(square.handle(), config) is None  # loads the kernel, finds no autotuner, runs nothing
    ref, configs, _ = _tuned_rows()
    handle, first, options = autotuner_job(ref, configs)
    assert handle == ref.handle() and first == configs[0] and options == {AUTOTUNER: True}


def test_without_a_gpu_the_autotuner_job_fails_in_one_line():
    from irscope.measure.autotuner import autotune
    from irscope.nvidia.device import has_gpu

    if has_gpu():
        pytest.skip("this machine has a GPU: the autotuner would run")
    ref = resolve_kernel(TUNED)
    run = autotune(ref.handle(), resolve_config(ref, {}))
    assert run.error and "\n" not in run.error and "Traceback" not in run.error and not run.configs
