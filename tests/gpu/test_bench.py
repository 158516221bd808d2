"""On a GPU: correctness is checked before timing, faults and hangs cost only their own row,
and the timings are sane."""

from __future__ import annotations

from pathlib import Path

import pytest

from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.measure.bench import bench
from irscope.session import Session
from irscope.types import Status

BUGGY = str(Path(__file__).with_name("buggy_kernels.py")) + ":buggy_copy_kernel"


def _bench(name, overrides_list, tmp_path=None, **kwargs):
    ref = resolve_kernel(name)
    configs = [resolve_config(ref, o) for o in overrides_list]
    session = None
    if tmp_path is not None:
        session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    latest = {}
    for r in bench(ref, configs, session, **kwargs):
        latest[r.index] = r
    return [latest[i] for i in sorted(latest)], session


def test_a_wrong_variant_is_flagged_and_never_ranked(tmp_path):
    rows, session = _bench(BUGGY, [{"BUG": 0}, {"BUG": 1}], tmp_path, min_time_ms=20)
    good, wrong = rows
    assert good.measurement.status is Status.OK and good.measurement.ranked
    assert wrong.measurement.status is Status.WRONG and not wrong.measurement.ranked
    assert wrong.measurement.max_abs_error == pytest.approx(1.0)
    assert "elements off" in wrong.measurement.error
    stored = {e.config.constexprs["BUG"]: e.measurement for e in Session.open(session.path).entries}
    assert stored[1].status is Status.WRONG and stored[0].median_us > 0


def test_a_faulting_kernel_leaves_the_sweep_alive():
    rows, _ = _bench(BUGGY, [{"BUG": 0}, {"BUG": 2}, {"BUG": 0, "BLOCK": 512}], min_time_ms=20)
    assert [r.measurement.status for r in rows] == [Status.OK, Status.CRASHED, Status.OK]
    assert "illegal" in rows[1].measurement.error.lower() or "fault" in rows[1].measurement.error.lower()


def test_a_hanging_kernel_times_out_and_the_next_one_runs():
    rows, _ = _bench(BUGGY, [{"BUG": 3}, {"BUG": 0}], min_time_ms=20, timeout=30)
    assert rows[0].measurement.status is Status.TIMEOUT
    assert rows[1].measurement.status is Status.OK


def test_twice_the_data_takes_about_twice_as_long_for_a_bandwidth_bound_kernel():
    rows, _ = _bench("square_kernel", [{"n_rows": 16384, "n_cols": 1024}, {"n_rows": 32768, "n_cols": 1024}])
    small, large = (r.measurement for r in rows)
    assert small.status is Status.OK and large.status is Status.OK
    ratio = large.median_us / small.median_us
    assert 1.7 < ratio < 2.3, ratio
    assert small.gbps and small.pct_copy and 20 < small.pct_copy < 110


def test_graph_mode_times_a_tiny_kernel_without_launch_overhead():
    (events,), _ = _bench("add_kernel", [{"n": 4096}], min_time_ms=50, method="events")
    (graph,), _ = _bench("add_kernel", [{"n": 4096}], min_time_ms=50, method="graph")
    assert graph.measurement.median_us < events.measurement.median_us
    assert "graph" in graph.measurement.method.lower() and graph.measurement.timing == "graph"
    assert events.measurement.timing == "events"


def test_ncu_figures_are_attached_when_ncu_is_installed():
    from irscope.measure.ncu import ncu_path

    if ncu_path() is None:
        pytest.skip("ncu not installed")
    rows, _ = _bench("square_kernel", [{"BLOCK_SIZE": 1024, "n_rows": 16384, "n_cols": 1024}], ncu=True, min_time_ms=50)
    ncu = rows[0].measurement.ncu
    assert ncu and ncu["gpu_time_us"] > 0 and 0 < ncu["dram_pct"] <= 100 and ncu["registers"] > 0
    assert abs(ncu["gpu_time_us"] - rows[0].measurement.median_us) / ncu["gpu_time_us"] < 0.25


def test_a_measurement_reaches_irscope_without_importing_torch_there(tmp_path):
    """A worker's result is unpickled in irscope's main process: a torch object in it (torch.__version__ is a
    TorchVersion) made that process import all of torch before the first result showed (4 s on the device)."""
    import pickle
    import subprocess
    import sys

    rows, _ = _bench("square_kernel", [{"BLOCK_SIZE": 1024}], min_time_ms=10)
    data = pickle.dumps(rows[0].measurement)
    check = "import pickle, sys; pickle.loads(sys.stdin.buffer.read()); print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", check], input=data, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "False"
    assert type(rows[0].measurement.torch) is str
