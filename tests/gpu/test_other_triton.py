"""On a GPU: variants another Triton compiled, checked and timed beside the running Triton's, in one worker.

The GPU machine has one Triton; the variants of the others are compiled on a machine that has
them (``python tests/gpu/prepare_other_tritons.py DIR`` writes a session per kernel there) and the
sessions are carried here: ``IRSCOPE_OTHER_TRITONS=DIR``. Each other version's variant is launched
from its own cubin (``frontends/triton/binary.py``) on the same inputs as the running Triton's,
which launches through its JIT; both must be correct, and the same kernel at the same config
must take about the same time under either Triton.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import triton

from irscope.frontends import resolve_kernel
from irscope.measure.bench import bench
from irscope.session import Session
from irscope.types import Status

HERE = Path(__file__).resolve().parent
CARRIED = os.environ.get("IRSCOPE_OTHER_TRITONS")
pytestmark = pytest.mark.skipif(not CARRIED, reason="set IRSCOPE_OTHER_TRITONS to the prepared sessions")


@pytest.mark.parametrize("name", ["scaled_add", "row_softmax"])
def test_another_tritons_variants_are_correct_and_timed_like_the_running_ones(name, tmp_path):
    session_dir = tmp_path / name
    shutil.copytree(Path(CARRIED) / name, session_dir)
    session = Session.open(session_dir)
    kernel = resolve_kernel(f"{HERE / 'other_triton_kernels.py'}:{name}")
    configs = [e.config for e in session.entries]
    versions = [c.options["triton"] for c in configs]
    assert triton.__version__ in versions and len(set(versions)) >= 2, versions
    # A stored cubin is GPU code read from a file: without the user's say-so it is not run.
    refused = {r.variant.config.options["triton"]: r.measurement for r in bench(kernel, configs, session)}
    for version, m in refused.items():
        if version == triton.__version__:
            assert m.status is Status.OK, m.error
        else:
            assert m.status is Status.FAILED and "--launch-stored-cubins" in m.error, m
    results = {
        r.variant.config.options["triton"]: r for r in bench(kernel, configs, session, launch_stored_cubins=True)
    }
    for version, result in results.items():
        m = result.measurement
        assert m.status is Status.OK, (version, m.error)
        assert result.variant.compile_info.compiler == f"triton {version}"
    running = results[triton.__version__].measurement.median_us
    for version, result in results.items():
        ratio = result.measurement.median_us / running
        print(f"{name} triton {version}: {result.measurement.median_us:.2f} us ({ratio:.2f}x the running Triton's)")
        assert 0.5 < ratio < 2.0, (version, ratio)
