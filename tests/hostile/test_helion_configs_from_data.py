"""A Helion config is data wherever it comes from: ``-c``/``-s`` text, a session, and Helion's autotune CSV
(``HELION_AUTOTUNE_LOG``: its ``Config(...)`` column). Each payload below would create a canary file if Python
evaluated it; none may: a field is read with ``ast.literal_eval`` and a CSV's config as a ``Config`` call with
literal keywords. A bad value is one line (exit 2 on the command line), a damaged CSV one line (exit 5).
The control shows every payload is live under ``eval``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from expect import one_line_error

pytest.importorskip("helion", reason="needs helion (pip install irscope[helion])")

from irscope.errors import ParameterError, SessionError
from irscope.frontends.helion.autotune_log import FIELDS, read_log
from irscope.frontends.helion.configs import config_fields, field_value

KERNELS = Path(__file__).resolve().parent.parent / "helion_kernels.py"
PAYLOADS = {
    "import": "__import__('os').system('touch {C}')",
    "in a list": "[64, __import__('os').system('touch {C}')]",
    "a lambda": "[(lambda: open('{C}', 'w'))()]",
    "an attribute": "[().__class__.__base__, open('{C}', 'w')]",
    "a comprehension": "[open('{C}', 'w') for _ in [0]]",
    "a walrus": "[(c := open('{C}', 'w'))]",
}
HEADER = ",".join(FIELDS)


def payload(name: str, canary: Path) -> str:
    return PAYLOADS[name].format(C=canary)


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_field_payload_is_refused_and_runs_nothing(tmp_path, name):
    canary = tmp_path / "ran"
    with pytest.raises(ParameterError):
        field_value("block_sizes", payload(name, canary), [16])
    assert not canary.exists()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_csv_config_payload_is_refused_and_runs_nothing(tmp_path, name):
    canary = tmp_path / "ran"
    with pytest.raises(ParameterError):
        config_fields(f"Config(block_sizes={payload(name, canary)}, num_warps=4)")
    with pytest.raises(ParameterError):
        config_fields(payload(name, canary))  # not even a Config call
    assert not canary.exists()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_the_control_each_payload_runs_under_eval(tmp_path, name):
    canary = tmp_path / "ran"
    try:
        eval(payload(name, canary))
    except Exception:
        pass
    assert canary.exists()


def test_only_a_config_call_with_literal_keywords_is_read():
    assert config_fields("Config(block_sizes=[64, 16], indexing='pointer', num_warps=4)") == {
        "block_sizes": [64, 16],
        "indexing": "pointer",
        "num_warps": 4,
    }
    for text in ("Other(num_warps=4)", "Config(4)", "Config(**{'num_warps': 4})", "Config(num_warps=x)", "x" * 5000):
        with pytest.raises(ParameterError):
            config_fields(text)


def _csv(path: Path, *rows: str) -> Path:
    path.write_text("\n".join((HEADER, *rows)) + "\n")
    return path


def test_a_damaged_csv_is_one_session_error(tmp_path):
    canary = tmp_path / "ran"
    bad = {
        "not helion's": "a,b,c\n1,2,3\n",
        "a row short": f"{HEADER}\nr,0.1,c1,0,ok,0.5\n",
        "a payload": f'{HEADER}\nr,0.1,c1,0,ok,0.5,1.0,"Config(block_sizes={payload("import", canary)})"\n',
        "a word for a time": f'{HEADER}\nr,0.1,c1,0,ok,fast,1.0,"Config(num_warps=4)"\n',
        "binary": "\x00\x01\x02",
    }
    for name, text in bad.items():
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        with pytest.raises(SessionError):
            read_log(path)
    assert not canary.exists()


def test_a_fifo_or_a_folder_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "run.csv"
    os.mkfifo(fifo)
    with pytest.raises(SessionError):
        read_log(fifo)
    with pytest.raises(SessionError):
        read_log(tmp_path)


def test_a_csv_past_the_size_limit_is_refused(tmp_path):
    from irscope.frontends.helion import autotune_log

    path = tmp_path / "big.csv"
    row = 'r,0.1,c,0,ok,0.5,1.0,"Config(num_warps=4)"\n'
    path.write_text(HEADER + "\n" + row * (autotune_log.MAX_BYTES // len(row) + 10))
    with pytest.raises(SessionError):
        read_log(path)


def test_non_finite_times_are_no_times(tmp_path):
    path = _csv(
        tmp_path / "run.csv", 'r,0.1,c1,0,ok,inf,1.0,"Config(num_warps=4)"', 'r,0.2,c2,0,ok,nan,,"Config(num_warps=8)"'
    )
    assert [t.perf_ms for t in read_log(path)] == [None, None]


@pytest.mark.parametrize("name", ["import", "a lambda"])
def test_a_payload_from_c_is_one_line_exit_2(cli, tmp_path, name):
    canary = tmp_path / "ran"
    result = cli(
        "dump", f"{KERNELS}:helion_softmax", "-S", "float16[64,128]", "-c", f"block_sizes={payload(name, canary)}"
    )
    one_line_error(result, 2, "block_sizes")
    assert not canary.exists()


def test_a_payload_in_the_autotune_log_is_one_line_exit_5(run_irscope, tmp_path):
    canary = tmp_path / "ran"
    base = tmp_path / "tune"
    _csv(base.with_suffix(".csv"), f'r,0.1,c1,0,ok,0.5,1.0,"Config(block_sizes={payload("a walrus", canary)})"')
    result = run_irscope(
        "sweep", f"{KERNELS}:helion_softmax", "-S", "float16[64,128]", env={"HELION_AUTOTUNE_LOG": str(base)}
    )
    assert result.returncode == 5, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("irscope: error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    assert not canary.exists()


def test_a_payload_in_a_sessions_stored_request_runs_nothing(cli, tmp_path):
    """A Helion session someone sent is resumed: its stored request's field values are data (each payload fails
    its own variant, read as a literal and refused), and the variant already there is kept."""
    import json

    canary, session = tmp_path / "ran", tmp_path / "session"
    made = cli("sweep", f"{KERNELS}:helion_softmax", "-S", "float16[64,128]", "-c", "block_sizes=4", "-o", str(session))
    assert made.exit_code == 0, made.stderr
    index = json.loads((session / "session.json").read_text())
    index["request"] = {
        "sweep": {"block_sizes": ["4", *(payload(n, canary) for n in ("import", "a walrus"))]},
        "fixed": {},
    }
    (session / "session.json").write_text(json.dumps(index))
    result = cli("sweep", f"{KERNELS}:helion_softmax", "-S", "float16[64,128]", "-o", str(session), "--json")
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.exit_code == 1, (result.exit_code, result.stderr)  # each payload its own failed variant
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [r["status"] for r in rows] == ["ok", "failed", "failed"]
    assert all("ParameterError: block_sizes" in r["note"] for r in rows[1:])
    assert not canary.exists()
