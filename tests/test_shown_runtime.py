"""Which runtime a variant shows: the one measured into its session, else the sample recorded for it.

The variant used here, square_kernel BLOCK_SIZE=1024 num_warps=4 for sm_90 at the
default sizes, has an H100 sample in samples/runtimes (15.5 us); the session says
123.4 us, so whichever face shows the sample shows the wrong number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irscope.capture import capture
from irscope.kernel import resolve_kernel
from irscope.measure.runtimes import shown_measurement
from irscope.records import Measurement
from irscope.session import Session
from irscope.types import KernelId, Status

from test_tui import settle

CONFIG = ("-s", "BLOCK_SIZE=1024", "-s", "num_warps=4")


@pytest.fixture
def measured_session(tmp_path):
    """A session holding the variant, measured at a runtime no sample has."""
    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    entry = session.add(capture(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}, arch="sm_90"))
    entry.measurement = Measurement(Status.OK, median_us=123.4, device="NVIDIA H100", source="measured")
    session.update(entry)
    return session.path


async def test_a_session_reopened_as_a_sweep_target_shows_its_own_runtime_in_the_tui(cli, measured_session,
                                                                                       monkeypatch):
    from irscope.tui.app import IrscopeApp
    from irscope.tui.widgets.variants import row_values

    apps = []
    monkeypatch.setattr(IrscopeApp, "run", lambda self, *a, **k: apps.append(self))
    result = cli("tui", "square_kernel", "-o", str(measured_session), *CONFIG, "--no-bench")  # a GPU would re-measure
    assert result.exit_code == 0, result.stderr
    app, = apps
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        row, = app.model.rows
        assert row.ready and row.measurement.median_us == 123.4
        assert row_values(app.model, row)["median_us"] == 123.4 and "sample" not in row.why()
        assert "123.4 us (measured)" in app.status_text


def test_a_session_reopened_as_a_sweep_target_shows_its_own_runtime_in_the_sweep_table(cli, measured_session):
    result = cli("sweep", "square_kernel", "-o", str(measured_session), *CONFIG, "--json")
    assert result.exit_code == 0, result.stderr
    row, = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["median_us"] == 123.4 and row["note"] == "measured"


def test_without_a_measurement_the_sample_of_exactly_this_variant_is_shown_and_labelled(cli, tmp_path):
    result = cli("sweep", "square_kernel", "-o", str(tmp_path / "s"), *CONFIG, "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    row, = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["median_us"] == 15.488 and row["note"].startswith("H100 80GB HBM3 sample")


async def test_a_session_opened_as_a_directory_shows_the_sample_where_it_measured_nothing(tmp_path):
    from irscope.tui.factory import make_app

    ref = resolve_kernel("square_kernel")
    session = Session.create(tmp_path / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    session.add(capture(ref, {"BLOCK_SIZE": 1024, "num_warps": 4}, arch="sm_90"))
    app = make_app(str(session.path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        row, = app.model.rows
        assert row.measurement.median_us == 15.488 and row.why().startswith("H100 80GB HBM3 sample")


def test_the_rule_prefers_the_entry_and_otherwise_matches_the_sample_exactly(measured_session):
    session = Session.open(measured_session)
    entry, = session.entries
    kernel = session.kernel
    assert shown_measurement(kernel, entry.config, entry.arch, entry).median_us == 123.4
    sample = shown_measurement(kernel, entry.config, entry.arch)
    assert sample.median_us == 15.488 and sample.source.startswith("H100 80GB HBM3 sample")
    assert shown_measurement(kernel, entry.config, "sm_80") is None
    other = KernelId(kernel.name, kernel.file, "0" * 64)
    assert shown_measurement(other, entry.config, entry.arch) is None
