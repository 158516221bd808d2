"""The battery: every crafted input over every surface, each held to the same four promises.

For each input (catalogue.py), irscope must run no code from it (no canary), write or delete
nothing outside the session or output it was given (a sentinel folder's fingerprint), never end
in exit 70 or a traceback, and refuse in one ``irscope: error:`` line with the documented code.
The controls below show that each kind of payload does leave its canary when handed to what it
targets, so that an empty canary folder means irscope did not run it.
"""

from __future__ import annotations

import importlib.util
import pickle
import runpy
import subprocess
import sys

import pytest

from ..damage import fingerprint
from . import payloads
from .catalogue import CASES, per_surface
from .workspace import make_workspace, run_bounded, verdict

SURFACES = {
    "session.json",
    "variant.json",
    "stage file",
    "session folder",
    "session writer",
    "session frontend",
    "cli -c",
    "cli -s",
    "cli -S",
    "cli --arch",
    "cli --stage",
    "cli -o",
    "cli --compile-timeout",
    ".cu file",
    "load_inline file",
    "tritonparse trace (plain)",
    "tritonparse trace (gzip)",
    "tritonparse trace (zstd)",
    "tritonparse trace gzip bomb",
    "inductor log",
    "TORCH_TRACE folder",
    "ncu counters",
    "ncu report",
    "run.json",
    "run raw/ records",
    "working directory",
    "signals",
    "kernel file run as a script",
}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_a_crafted_input_runs_nothing_touches_nothing_and_is_refused_in_one_line(
    case, originals, tmp_path, monkeypatch
):
    ws = make_workspace(tmp_path)
    monkeypatch.chdir(ws.work)  # anything written relative to the working directory is seen
    action = case.prepare(ws, originals)
    before = fingerprint(ws.root)
    outcome = run_bounded(action)
    problems = verdict(ws, before, outcome, case.codes) + (case.after(ws) if case.after else [])
    assert not problems, "; ".join(problems)


def test_the_battery_holds_300_inputs_over_every_surface(capsys):
    counts = per_surface()
    with capsys.disabled():
        print(f"\nhostile battery: {len(CASES)} inputs; " + ", ".join(f"{s} {n}" for s, n in counts.items()))
    assert len(CASES) >= 300
    assert set(counts) >= SURFACES, SURFACES - set(counts)


# ---------------------------------------------------------------- controls: each payload runs the old way


@pytest.mark.parametrize("make", [payloads.shell, payloads.backticks])
def test_a_shell_payload_runs_when_a_shell_sees_it(tmp_path, make):
    canary = tmp_path / "ran"
    subprocess.run(["sh", "-c", f"echo -DOP={make(canary)}"], check=True, capture_output=True)
    assert canary.exists()


def test_a_python_payload_runs_when_evaluated(tmp_path):
    canary = tmp_path / "ran"
    eval(payloads.python(canary))
    assert canary.exists()


def test_a_module_payload_runs_when_imported(tmp_path):
    canary = tmp_path / "ran"
    (tmp_path / "evil_spec.py").write_text(payloads.module(canary))
    spec = importlib.util.spec_from_file_location("evil_spec", tmp_path / "evil_spec.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert canary.exists()


def test_a_pickle_payload_runs_when_unpickled(tmp_path):
    canary = tmp_path / "ran"
    pickle.loads(payloads.pickled(canary))
    assert canary.exists()


def test_a_shadow_in_the_working_directory_runs_in_a_dash_c_process(tmp_path):
    canary = tmp_path / "ran"
    (tmp_path / "pickle.py").write_text(payloads.module(canary))
    subprocess.run([sys.executable, "-c", "import pickle"], cwd=tmp_path, check=True)
    assert canary.exists()


def test_a_load_inline_payload_runs_when_the_file_runs(tmp_path):
    from .kernel_files import INLINE, INLINE_CALLS

    canary = tmp_path / "ran"
    file = tmp_path / "inline.py"
    call = INLINE_CALLS["a call inside the list"].format(P=payloads.python(canary))
    file.write_text(
        INLINE.replace(
            "from torch.utils.cpp_extension import load_inline", "def load_inline(**kwargs):\n    return kwargs"
        )
        + call
        + "\n"
    )
    runpy.run_path(str(file))
    assert canary.exists()
