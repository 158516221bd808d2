"""GPU tests: skipped cleanly on a machine without a CUDA GPU; each gets a fresh Triton cache."""

from __future__ import annotations

import pytest

from irscope.nvidia.device import has_gpu


def pytest_collection_modifyitems(config, items):
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "tests/gpu/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def fresh_triton_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    # Each test's environment differs (the cache above), so each bench starts its own resident parent
    # (processes/resident.py): let them leave soon rather than hold a torch import each for ten minutes.
    monkeypatch.setenv("IRSCOPE_KEEP_GPU_WORKERS", "20")
    yield
