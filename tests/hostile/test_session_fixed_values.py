"""A session's stored sweep request is data: the values it fixes (applied to both sides of a diff) never run
as code, a damaged one is one line and exit 5, and values of no use (an unknown name, a list) are left out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode

REPO = Path(__file__).resolve().parents[2]
SESSION = REPO / "samples" / "sessions" / "square_kernel"


def _with_fixed(tmp_path: Path, fixed) -> Path:
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    data = json.loads((copy / "session.json").read_text())
    data["request"] = {"sweep": {}, "fixed": fixed, "arch": None}
    (copy / "session.json").write_text(json.dumps(data))
    return copy


def test_a_fixed_value_is_read_never_run(cli, tmp_path):
    canary = tmp_path / "CANARY"
    payload = f"__import__('os').system('touch {canary}')"
    session = _with_fixed(tmp_path, {"BLOCK_SIZE": payload})
    result = cli("diff", str(session), "-a", "num_warps=1", "-b", "num_warps=4")
    one_line_error(result, ExitCode.SESSION_ERROR, "a value its stored sweep request fixes is not one irscope reads")
    assert not canary.exists()


@pytest.mark.parametrize(
    "fixed",
    [{"no_such_name": "7"}, {"BLOCK_SIZE": [128]}, {"BLOCK_SIZE": {"a": 1}}, ["BLOCK_SIZE"], "x", None],
    ids=["an unknown name", "a list value", "an object value", "a list", "a string", "null"],
)
def test_fixed_values_of_no_use_are_left_out(cli, tmp_path, fixed):
    session = _with_fixed(tmp_path, fixed)
    result = cli("diff", str(session), "-a", "BLOCK_SIZE=128,num_warps=1", "-b", "BLOCK_SIZE=128,num_warps=4")
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_a_fixed_value_the_session_holds_names_both_sides(cli, tmp_path):
    session = _with_fixed(tmp_path, {"BLOCK_SIZE": "1024"})
    result = cli("diff", str(session), "-a", "num_warps=1", "-b", "num_warps=4")
    assert result.exit_code == 0, result.stderr
    assert "BLOCK_SIZE=1024 num_warps=1" in result.stdout and "BLOCK_SIZE=1024 num_warps=4" in result.stdout
