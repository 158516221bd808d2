"""Numbers in data are checked where they are read: a JSON number has no size, and an int where a float belongs
failed far from its file, as a bug (exit 70).

``10**400`` in run.json (``gpu_calls``, ``gpu_share_pct``), as a trace event's ``dur``, or as a stored ``median_us``
or ``gbps``, and a stored ``median_us`` of 0, ended ``report``, ``diff`` and the TUI in an OverflowError or a
ZeroDivisionError. Now each is damage of the file that holds it (one line, exit 5), or, for a trace event's
duration, none counted; a TUI row of such a session shows the damage.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from expect import one_line_error
from test_report import SESSION

from irscope.errors import ExitCode
from irscope.records import Facts, Measurement
from irscope.session import Session
from irscope.types import typed_fields

from .test_report_run import _events, _run

HUGE = 10**400


@pytest.mark.parametrize(
    "field,value",
    [("gpu_calls", HUGE), ("gpu_share_pct", HUGE), ("gpu_total_us", HUGE), ("gpu_calls", -1), ("gpu_share_pct", "1")],
    ids=["calls-huge", "share-huge", "total-huge", "calls-negative", "share-a-string"],
)
def test_a_run_index_with_numbers_no_table_can_hold_is_exit_5(tmp_path, cli, field, value):
    run = _run(tmp_path)
    index = json.loads((run / "run.json").read_text())
    index["kernels"][0][field] = value
    (run / "run.json").write_text(json.dumps(index))
    one_line_error(cli("report", str(run), "-o", str(tmp_path / "r.html")), ExitCode.SESSION_ERROR, "run.json", field)


def test_a_trace_event_whose_duration_is_no_finite_number_counts_none(tmp_path, cli):
    run = _run(tmp_path)
    events = json.loads(json.dumps(_events(3)))  # three events of their own
    events["traceEvents"][0]["dur"] = HUGE
    events["traceEvents"][1]["dur"] = "soon"
    (run / "trace.json").write_text(json.dumps(events))
    result = cli("report", str(run), "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 0, result.stderr
    assert "<td>3</td><td>1.5</td>" in (tmp_path / "r.html").read_text()  # three events, one duration counted


def _session(tmp_path: Path, **measurement) -> Path:
    copy = tmp_path / "session"
    shutil.copytree(SESSION, copy)
    data = json.loads((copy / "session.json").read_text())
    data["variants"][0]["measurement"].update(measurement)
    (copy / "session.json").write_text(json.dumps(data))
    return copy


STORED = [{"median_us": HUGE}, {"gbps": HUGE}, {"median_us": 0}, {"p20_us": -1.0}, {"median_us": float("inf")}]


@pytest.mark.parametrize("stored", STORED, ids=lambda m: "-".join(f"{k}={str(v)[:6]}" for k, v in m.items()))
@pytest.mark.parametrize("command", ["report", "diff"])
def test_a_stored_runtime_no_table_can_hold_is_exit_5(tmp_path, cli, stored, command):
    session = _session(tmp_path, **stored)
    if command == "report":
        result = cli("report", str(session), "-o", str(tmp_path / "r.html"))
    else:
        result = cli("diff", str(session), "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024", "-c", "num_warps=1")
    one_line_error(result, ExitCode.SESSION_ERROR, "session index is malformed", next(iter(stored)))


@pytest.mark.parametrize("stored", STORED, ids=lambda m: "-".join(f"{k}={str(v)[:6]}" for k, v in m.items()))
async def test_the_tui_says_the_session_is_damaged(tmp_path, stored):
    from irscope.tui.factory import make_app

    session = _session(tmp_path, **stored)
    with pytest.raises(Exception) as caught:
        make_app(str(session))
    assert next(iter(stored)) in str(caught.value) and type(caught.value).__name__ == "SessionError"


def test_an_int_where_a_float_belongs_is_read_as_a_float_or_refused():
    assert Facts(**typed_fields(Facts, {"compile_s": 3})).compile_s == 3.0
    assert type(Measurement.from_json({"status": "ok", "median_us": 7}).median_us) is float
    for value in (HUGE, -HUGE):
        with pytest.raises(TypeError, match="out of range"):
            typed_fields(Facts, {"registers": value})
        with pytest.raises(TypeError, match="out of range"):
            typed_fields(Facts, {"compile_s": value})


def test_a_session_with_sane_numbers_still_opens():
    assert Session.open(SESSION).entries[0].measurement.median_us > 0
