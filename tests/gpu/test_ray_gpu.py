"""``bench`` and ``sweep --bench`` with ``--executor ray`` on a host of two GPUs or more: a local Ray instance
(started by irscope, as for a user without ``RAY_ADDRESS``) measures every variant, on every GPU.

Each measurement names the GPU that ran it (``Measurement.gpu_index``: Ray gives each measuring actor one
GPU through CUDA_VISIBLE_DEVICES); the session written by the one driver process holds them all.
"""

from __future__ import annotations

import pytest

from irscope.nvidia.device import visible_gpus
from irscope.session import Session

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(len(visible_gpus()) < 2, reason="needs two GPUs")

BLOCKS = (128, 256, 512, 1024, 2048, 4096)


@pytest.mark.parametrize("command", [["bench"], ["sweep", "--bench"]], ids=["bench", "sweep-bench"])
def test_a_ray_bench_measures_every_variant_on_both_gpus(tmp_path, command, run_irscope, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)  # a local instance, of this host's GPUs
    blocks = ",".join(map(str, BLOCKS))
    result = run_irscope(
        *command,
        *("square_kernel", "-s", f"BLOCK_SIZE={blocks}", "--executor", "ray", "-o", str(tmp_path / "session")),
        env={"IRSCOPE_CACHE_DIR": str(tmp_path / "cache")},
        timeout=580,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    measured = Session.open(tmp_path / "session").measured()
    assert sorted(v.config.values()["BLOCK_SIZE"] for v, _ in measured) == list(BLOCKS)
    assert all(m.status.value == "ok" for _, m in measured), [(v.config.label(), m.error) for v, m in measured]
    used = {m.gpu_index for _, m in measured}  # on a host of two GPUs: both; of more, two or more of them
    assert len(used) >= 2 and used <= {int(g) for g in visible_gpus()}, [m.gpu_index for _, m in measured]
    assert "done per node: " in result.stderr
