"""The run's Chrome trace is data the program wrote (interop/run/timeline.py): a trace of any shape is
linked where it can be and otherwise kept in raw/ with one note; a link out of raw/, a FIFO, a file past
the JSON bound or nesting past the stack never stops the run's collection, and nothing outside is read
or written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from irscope.interop.run import INDEX_FORMAT
from irscope.interop.run.timeline import SESSION_ARG, VARIANT_ARG, link_trace

INDEX = {
    "format": INDEX_FORMAT,
    "kernels": [
        {
            "name": "scale_kernel",
            "session": "kernels/scale_kernel",
            "variants": [
                {"entry": "BLOCK-1024", "gpu": [{"name": "scale_kernel", "grid": [64, 1, 1], "block": [128, 1, 1]}]}
            ],
            "shared_gpu": [],
        },
        {"name": "refused", "session": None, "variants": [{"entry": None, "gpu": [{"name": "refused"}]}]},
    ],
}


def _kernel_event(name, grid=(64, 1, 1), block=(128, 1, 1), **extra):
    return {
        "ph": "X",
        "cat": "kernel",
        "name": name,
        "ts": 1.0,
        "dur": 2.0,
        "args": {"grid": list(grid), "block": list(block), **extra},
    }


def _run(tmp_path: Path, trace) -> tuple[Path, dict, list[str]]:
    raw = tmp_path / "raw"
    raw.mkdir(exist_ok=True)
    if trace is not None:
        (raw / "trace.json").write_text(trace if isinstance(trace, str) else json.dumps(trace))
    index = json.loads(json.dumps(INDEX))
    notes: list[str] = []
    link_trace(tmp_path, raw, index, notes.append)
    return tmp_path / "trace.json", index, notes


def test_kernel_events_get_their_session_and_variant_and_others_stay_as_they_were(tmp_path):
    events = [
        _kernel_event("scale_kernel"),
        _kernel_event("scale_kernel", grid=(7, 1, 1)),  # a launch no variant recorded: the name alone tells
        _kernel_event("void at::native::elementwise_kernel"),
        _kernel_event("refused"),  # no session: nothing to link
        {"ph": "X", "cat": "cpu_op", "name": "scale_kernel", "args": {}},
    ]
    out, index, notes = _run(tmp_path, {"traceEvents": events, "displayTimeUnit": "ms"})
    linked = json.loads(out.read_text())
    assert linked["displayTimeUnit"] == "ms"
    first, second, torch_kernel, refused, cpu = linked["traceEvents"]
    assert first["args"][SESSION_ARG] == "kernels/scale_kernel" and first["args"][VARIANT_ARG] == "BLOCK-1024"
    assert second["args"][SESSION_ARG] == "kernels/scale_kernel" and VARIANT_ARG not in second["args"]
    assert SESSION_ARG not in torch_kernel["args"] and SESSION_ARG not in refused["args"]
    assert cpu == events[4]
    assert index["trace"] == {"file": "trace.json", "kernel_events_linked": 2} and not notes


@pytest.mark.parametrize(
    "trace",
    [
        [],
        {"traceEvents": "nope"},
        {"traceEvents": [1, "x", None, [], {"cat": "kernel"}, {"cat": "kernel", "name": 5}]},
        {"traceEvents": [{"cat": "kernel", "name": "scale_kernel", "args": "not a dict"}]},
        {"traceEvents": [{"cat": "kernel", "name": "scale_kernel", "args": {"grid": [True, 1], "block": "x"}}]},
        "{not json",
        "[" * 100_000,
        '{"traceEvents": [], "n": 1' + "0" * 5000 + "}",
    ],
)
def test_any_shape_of_trace_is_linked_or_kept_with_a_note_never_an_error(tmp_path, trace):
    out, index, notes = _run(tmp_path, trace)
    assert (tmp_path / "raw" / "trace.json").exists()  # the raw trace is never lost
    if out.exists():
        assert "trace" in index
    else:
        assert len(notes) == 1 and "\n" not in notes[0] and "trace" not in index


def test_no_trace_no_note(tmp_path):
    out, index, notes = _run(tmp_path, None)
    assert not out.exists() and not notes and "trace" not in index


def test_a_trace_linked_out_of_raw_is_not_read(tmp_path):
    outside = tmp_path / "secret.json"
    outside.write_text(json.dumps({"traceEvents": [_kernel_event("scale_kernel")], "secret": "canary"}))
    (tmp_path / "run").mkdir()
    raw = tmp_path / "run" / "raw"
    raw.mkdir()
    (raw / "trace.json").symlink_to(outside)
    notes: list[str] = []
    link_trace(tmp_path / "run", raw, json.loads(json.dumps(INDEX)), notes.append)
    assert not (tmp_path / "run" / "trace.json").exists()
    assert len(notes) == 1 and "canary" not in notes[0]


def test_a_fifo_is_refused_without_waiting_and_a_huge_trace_is_not_read(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    os.mkfifo(raw / "trace.json")
    notes: list[str] = []
    link_trace(tmp_path, raw, {}, notes.append)
    assert len(notes) == 1 and "FIFO" in notes[0]
    (raw / "trace.json").unlink()
    with open(raw / "trace.json", "wb") as f:  # sparse: 65 MiB past the JSON bound, no disk used
        f.truncate(65 << 20)
    notes.clear()
    link_trace(tmp_path, raw, {}, notes.append)
    assert len(notes) == 1 and "MiB" in notes[0] and not (tmp_path / "trace.json").exists()


def test_the_linked_trace_does_not_write_through_a_link_at_its_place(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    run = tmp_path / "run"
    (run / "raw").mkdir(parents=True)
    (run / "raw" / "trace.json").write_text(json.dumps({"traceEvents": [_kernel_event("scale_kernel")]}))
    (run / "trace.json").symlink_to(victim)
    notes: list[str] = []
    index = json.loads(json.dumps(INDEX))
    assert link_trace(run, run / "raw", index, notes.append) is None
    assert victim.read_text() == "keep" and (run / "trace.json").is_symlink()
    assert len(notes) == 1 and "trace.json" in notes[0] and "trace" not in index
