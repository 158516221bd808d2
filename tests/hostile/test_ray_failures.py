"""``--executor ray`` where Ray cannot be had: one line, exit 2, nothing written, at once.

Ray missing is simulated as Python sees an uninstalled module (``sys.modules["ray"] = None``, as
test_exit_codes.py hides numba and torch); an unreachable cluster is a ``RAY_ADDRESS`` of a port
nothing listens on, which ``ray.init`` alone would retry for minutes.
"""

from __future__ import annotations

import socket
import time

import pytest

from irscope.errors import ExitCode

from .test_exit_codes import one_line, without

SWEEP = ("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,256", "--arch", "sm_90", "--executor", "ray")


@pytest.mark.parametrize("command", [SWEEP, ("bench", "square_kernel", "--executor", "ray")], ids=["sweep", "bench"])
def test_ray_not_installed_says_what_to_install_and_writes_no_session(tmp_path, command):
    one_line(without("ray", *command, "-o", str(tmp_path / "s")), ExitCode.USAGE, "pip install irscope[ray]")
    assert not (tmp_path / "s").exists()


def test_a_ray_address_nobody_answers_is_one_line_naming_it_within_seconds(tmp_path, run_irscope):
    pytest.importorskip("ray")
    with socket.socket() as s:  # a port just free: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"127.0.0.1:{port}"
    start = time.monotonic()
    result = run_irscope(*SWEEP, "-o", str(tmp_path / "s"), env={"RAY_ADDRESS": address}, timeout=120)
    one_line(result, ExitCode.USAGE, f"RAY_ADDRESS={address}", "cannot reach the Ray cluster")
    assert time.monotonic() - start < 60
    assert not (tmp_path / "s").exists()


def test_a_gpu_type_without_ray_is_refused(run_irscope):
    result = run_irscope("sweep", "square_kernel", "--arch", "sm_90", "--gpu-type", "H100")
    one_line(result, ExitCode.USAGE, "--executor ray")
