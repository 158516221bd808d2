"""On a GPU: bench runs the kernel's own Triton autotuner and shows its timings and pick beside irscope's.

The kernel (tuned_kernels.py) has four configs, one of which its prune_configs_by
drops; the pick must be what Triton's ``Autotuner.run`` chose, read from the
autotuner, not worked out again by irscope.
"""

from __future__ import annotations

from pathlib import Path

from irscope import frontends
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config, sweep_configs
from irscope.measure.autotuner import autotune
from irscope.measure.bench import bench
from irscope.session import Session
from irscope.types import Status

TUNED = str(Path(__file__).with_name("tuned_kernels.py")) + ":tuned_scale_kernel"


def test_bench_runs_the_autotuner_after_its_own_measurements_and_hands_back_its_timings(tmp_path):
    ref = resolve_kernel(TUNED)
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    runs = []
    rows = {r.index: r for r in bench(ref, configs, session, min_time_ms=10, on_autotuner=runs.append)}
    assert [rows[i].measurement.status for i in range(4)] == [Status.OK] * 4, [rows[i].measurement.error for i in rows]
    (run,) = runs
    assert run.error is None, run.error
    assert run.benchmarked and run.seconds > 0
    assert [c.pruned for c in run.configs] == [False, False, False, True]  # BLOCK=4096: 64 blocks < 132
    assert all(c.ms > 0 and len(c.timings) == 3 for c in run.configs if not c.pruned)
    assert run.picked in (0, 1, 2) and not run.pick.pruned
    assert [run.index_of(c) for c in configs] == [0, 1, 2, 3]
    assert Session.open(session.path).data["autotuner"]["picked"] == run.picked


def test_the_pick_is_tritons_best_config_from_its_own_timings():
    ref = resolve_kernel(TUNED)
    run = autotune(ref.handle(), resolve_config(ref, {}))  # in this process, so Triton's state can be read
    assert run is not None and run.error is None, run and run.error
    tuner = frontends.load(ref.handle()).tuning.autotuner
    best, timings = tuner.best_config, tuner.configs_timings
    assert best == min(timings, key=timings.get)  # as Autotuner.run chose it
    assert run.pick.values == {**best.kwargs, "num_warps": best.num_warps, "num_stages": best.num_stages}
    for tuned, config in zip(run.configs, tuner.configs):
        assert tuned.pruned == (config not in timings)
        if not tuned.pruned:
            assert tuned.timings == tuple(timings[config]) and tuned.ms == timings[config][0]


def test_the_bench_table_shows_the_autotuner_column_and_its_pick(cli):
    result = cli("bench", TUNED, "--min-time", "10")
    assert result.exit_code == 0, result.output
    assert "autotuner ms" in result.stdout
    assert "* Triton's autotuner picked BLOCK=" in result.stdout
    assert "irscope agrees" in result.stdout or "irscope disagrees" in result.stdout


def test_bench_json_rows_carry_the_autotuners_figures(cli):
    import json

    result = cli("bench", TUNED, "--min-time", "10", "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    tuned = [r["autotuner"] for r in rows if "autotuner" in r]
    assert len(tuned) == 4 and sum(t["pruned"] for t in tuned) == 1 and sum(t["picked"] for t in tuned) == 1
    assert all(t["ms"] > 0 for t in tuned if not t["pruned"])
