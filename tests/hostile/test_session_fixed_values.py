"""A session's stored sweep request is data: the values it fixes (applied to both sides of a diff) never run
as code; a request that is not one sweep writes (``Session.request``) or a value irscope cannot read is
damage, one line and exit 5; a name the kernel does not have is of no use and left out.
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


def test_a_fixed_name_the_kernel_lacks_is_left_out(cli, tmp_path):
    session = _with_fixed(tmp_path, {"no_such_name": "7"})
    result = cli("diff", str(session), "-a", "BLOCK_SIZE=128,num_warps=1", "-b", "BLOCK_SIZE=128,num_warps=4")
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr and "no_such_name" not in result.stdout


@pytest.mark.parametrize(
    "fixed",
    [{"BLOCK_SIZE": [128]}, {"BLOCK_SIZE": {"a": 1}}, ["BLOCK_SIZE"], "x", None],
    ids=["a list value", "an object value", "a list", "a string", "null"],
)
def test_a_malformed_request_is_a_damaged_session(cli, tmp_path, fixed):
    session = _with_fixed(tmp_path, fixed)
    result = cli("diff", str(session), "-a", "BLOCK_SIZE=128,num_warps=1", "-b", "BLOCK_SIZE=128,num_warps=4")
    one_line_error(result, ExitCode.SESSION_ERROR, "the stored sweep request is malformed")


def test_a_fixed_value_the_session_holds_names_both_sides(cli, tmp_path):
    session = _with_fixed(tmp_path, {"BLOCK_SIZE": "1024"})
    result = cli("diff", str(session), "-a", "num_warps=1", "-b", "num_warps=4")
    assert result.exit_code == 0, result.stderr
    assert "BLOCK_SIZE=1024 num_warps=1" in result.stdout and "BLOCK_SIZE=1024 num_warps=4" in result.stdout
