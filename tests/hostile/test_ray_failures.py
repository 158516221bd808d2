"""``--executor ray`` where Ray cannot be had: one line, exit 2, nothing written, at once.

Ray missing is simulated as Python sees an uninstalled module (``sys.modules["ray"] = None``, as
test_exit_codes.py hides numba and torch); an unreachable cluster is a ``RAY_ADDRESS`` of a port
nothing listens on, which ``ray.init`` alone would retry for minutes.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest
from expect import one_line_error

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


@pytest.mark.parametrize(
    "address",
    ["a" * 64 + ".example:6379", "a..b:6379", "ray://a..b:10001", "127.0.0.1:" + "9" * 30],
    ids=["label-of-64", "empty-label", "ray-scheme", "port-out-of-range"],
)
def test_a_ray_address_no_connection_can_be_made_to_is_one_line(tmp_path, cli, monkeypatch, address):
    # IDNA cannot encode a 64-letter label or an empty one: a UnicodeError, which was exit 70.
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_ADDRESS", address)
    one_line_error(cli(*SWEEP, "-o", str(tmp_path / "s")), ExitCode.USAGE, f"RAY_ADDRESS={address}")
    assert not (tmp_path / "s").exists()


LISTENERS = """
import json
from irscope.processes.executors.ray_executor import connect
ray = connect()
try:
    import psutil  # Ray's own copy (ray/thirdparty_files), on the path once Ray is imported

    mine = [psutil.Process(), *psutil.Process().children(recursive=True)]
    found = set()
    for proc in mine:
        try:
            found |= {c.laddr.ip for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}
        except psutil.Error:
            pass
    print(json.dumps(sorted(found)))
finally:
    ray.shutdown()
"""


def test_a_local_ray_listens_on_the_loopback_address_only(tmp_path):
    # Started by --executor ray without RAY_ADDRESS: anyone who could reach the host could submit work to it.
    pytest.importorskip("ray")
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
    done = subprocess.run(
        [sys.executable, "-c", LISTENERS], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    listening = json.loads(done.stdout.strip().splitlines()[-1])
    assert listening and all(ip in ("127.0.0.1", "::1", "::ffff:127.0.0.1") for ip in listening), listening
