"""``bench`` and ``sweep --bench`` with ``--executor ray`` on a host of two GPUs or more: a local Ray instance
(started by irscope, as for a user without ``RAY_ADDRESS``) measures every variant, on every GPU.

Each measurement names the GPU that ran it (``Measurement.gpu_index``: Ray gives each measuring actor one
GPU through CUDA_VISIBLE_DEVICES); the session written by the one driver process holds them all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from irscope.device import visible_gpus
from irscope.session import Session

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(len(visible_gpus()) < 2, reason="needs two GPUs")

REPO = Path(__file__).resolve().parents[2]
BLOCKS = (128, 256, 512, 1024, 2048, 4096)


@pytest.mark.parametrize("command", [["bench"], ["sweep", "--bench"]], ids=["bench", "sweep-bench"])
def test_a_ray_bench_measures_every_variant_on_both_gpus(tmp_path, command):
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}  # a local instance, of this host's GPUs
    env["IRSCOPE_CACHE_DIR"] = str(tmp_path / "cache")
    blocks = ",".join(map(str, BLOCKS))
    result = subprocess.run(
        [sys.executable, "-m", "irscope", *command, "square_kernel", "-s", f"BLOCK_SIZE={blocks}"]
        + ["--executor", "ray", "-o", str(tmp_path / "session")],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=580,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    measured = Session.open(tmp_path / "session").measured()
    assert sorted(v.config.values()["BLOCK_SIZE"] for v, _ in measured) == list(BLOCKS)
    assert all(m.status.value == "ok" for _, m in measured), [(v.config.label(), m.error) for v, m in measured]
    assert {m.gpu_index for _, m in measured} == {int(g) for g in visible_gpus()}, [m.gpu_index for _, m in measured]
    assert "done per node: " in result.stderr
