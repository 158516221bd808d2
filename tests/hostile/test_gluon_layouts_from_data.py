"""A Gluon layout is data wherever it comes from: ``-c``, ``-s``, a session's stored request, parameters or
variants. Each payload below would create a canary file if Python evaluated it; none may, and each is refused
in one line (on the command line) or fails only its own variant (in a sweep a session asked for).
Real Triton, no mocks; the control shows every payload is live under ``eval``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from expect import one_line_error

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # gluon_kernels.py, beside the hostile folder
from gluon_kernels import ADD_SIGNATURE, BLOCKED_1D, GLUON_KERNELS

PAYLOADS = {
    "import": "__import__('os').system('touch {C}')",
    "in a layout": "BlockedLayout(__import__('os').system('touch {C}'), [32], [4], [0])",
    "a keyword": "BlockedLayout([4], [32], [4], order=open('{C}', 'w'))",
    "a lambda": "BlockedLayout((lambda: open('{C}', 'w'))(), [32], [4], [0])",
    "an attribute": "BlockedLayout.__init__.__globals__['__builtins__']['open']('{C}', 'w')",
    "a comprehension": "BlockedLayout([open('{C}', 'w') for _ in [0]], [32], [4], [0])",
    "a walrus": "BlockedLayout([(c := open('{C}', 'w'))], [32], [4], [0])",
}


def payload(name: str, canary: Path) -> str:
    return PAYLOADS[name].format(C=canary)


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("gluon_hostile") / "hostile_gluon_kernels.py"
    path.write_text(GLUON_KERNELS)
    return path


def _rows(result) -> list[dict]:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_layout_payload_from_c_is_refused_in_one_line_and_runs_nothing(cli, kernels_file, tmp_path, name):
    canary = tmp_path / "ran"
    result = cli(
        "dump",
        f"{kernels_file}:gluon_add",
        "-S",
        ADD_SIGNATURE,
        "-c",
        "BLOCK=1024",
        "-c",
        f"layout={payload(name, canary)}",
    )
    one_line_error(result, 2, "layout")
    assert not canary.exists()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_the_control_each_payload_runs_under_eval(tmp_path, name):
    from triton.experimental.gluon import language as gl

    canary = tmp_path / "ran"
    namespace = {n: getattr(gl, n) for n in dir(gl) if "Layout" in n}
    try:
        eval(payload(name, canary), namespace)
    except Exception:
        pass  # a layout refusing the value it got: the file was made before
    assert canary.exists()


def test_a_layout_payload_in_a_sessions_stored_request_fails_its_variant_and_runs_nothing(cli, kernels_file, tmp_path):
    """The session someone sent is resumed: its stored request is data, its payload one failed variant."""
    canary, session = tmp_path / "ran", tmp_path / "session"
    made = cli("sweep", f"{kernels_file}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024",
               "-c", f"layout={BLOCKED_1D}", "-o", str(session))  # fmt: skip
    assert made.exit_code == 0, made.stderr
    index = json.loads((session / "session.json").read_text())
    bad = {name: payload(name, canary) for name in ("in a layout", "a keyword", "an attribute")}
    index["request"] = {"sweep": {"layout": [BLOCKED_1D, *bad.values()]}, "fixed": {"BLOCK": "1024"}, "arch": "sm_90"}
    (session / "session.json").write_text(json.dumps(index))
    result = cli("sweep", f"{kernels_file}:gluon_add", "-S", ADD_SIGNATURE, "-o", str(session), "--json")
    assert result.exit_code == 1, result.stderr
    rows = {row["layout"]: row for row in _rows(result)}
    assert rows["BlockedLayout([4], [32], [4], [0])"]["status"] == "ok"
    failed = [row for text, row in rows.items() if "touch" in text or "open" in text]
    assert len(failed) == len(bad) and all(row["status"] == "failed" for row in failed), rows
    assert not canary.exists()


def test_a_layout_payload_in_a_sessions_parameters_and_variants_runs_nothing(cli, kernels_file, tmp_path):
    """Opening such a session reads its layouts as strings: a variant named by them, or compiled again from the file
    with the values the user gives, never runs them."""
    canary, session = tmp_path / "ran", tmp_path / "session"
    made = cli("sweep", f"{kernels_file}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024",
               "-c", f"layout={BLOCKED_1D}", "-o", str(session))  # fmt: skip
    assert made.exit_code == 0, made.stderr
    index = json.loads((session / "session.json").read_text())
    index["parameters"]["layout"]["default"] = payload("in a layout", canary)
    index["variants"][0]["config"]["constexprs"]["layout"] = payload("import", canary)
    (session / "session.json").write_text(json.dumps(index))
    for args in (
        ("dump", str(session), "-c", "BLOCK=1024"),
        ("dump", str(session), "-c", "BLOCK=1024", "-c", f"layout={payload('import', canary)}"),
        ("sweep", str(session), "--json"),
    ):
        result = cli(*args)
        assert result.exit_code in (0, 1, 2, 5) and "Traceback" not in result.stderr, (args, result.stderr)
    assert not canary.exists()
