"""An AMD compile of a kernel with a KernelSpec marks each tensor within 2 GB as ROCm's JIT does (Triton's
HIP backend's own specialization key: 'S' -> tt.pointer_range = 32), so its loads and stores are AMD's
buffer instructions; a tensor past 2 GB, AMDGCN_USE_BUFFER_OPS=0 and NVIDIA targets get no mark. Buffer
ops are on by default from Triton 3.6 (3.5's JIT marks nothing unless AMDGCN_USE_BUFFER_OPS=1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

KERNEL = str(Path(__file__).parent / "fixtures" / "amd" / "two_inputs.py") + ":add_twice"


def _stage(cli, stage, *args):
    result = cli("dump", KERNEL, "--stage", stage, *args)
    assert result.exit_code == 0, result.output
    return result.output


def _ranged(ttir: str) -> list[str]:
    head = next(line for line in ttir.splitlines() if "tt.func public @add_twice" in line)
    return re.findall(r"%(\w+): !tt\.ptr<f32> \{[^}]*tt\.pointer_range = 32", head)


@pytest.fixture
def buffer_ops(monkeypatch):
    monkeypatch.setenv("AMDGCN_USE_BUFFER_OPS", "1")


def test_tensors_within_2gb_are_marked_and_read_with_buffer_loads(cli, buffer_ops):
    assert _ranged(_stage(cli, "ttir", "--arch", "gfx942")) == ["a_ptr", "b_ptr", "out_ptr"]
    amdgcn = _stage(cli, "amdgcn", "--arch", "gfx942")
    assert len(re.findall(r"^\s+buffer_load_dword\w*", amdgcn, re.M)) >= 2
    assert re.search(r"^\s+buffer_store_dword", amdgcn, re.M)
    assert not re.search(r"^\s+global_(load|store)", amdgcn, re.M)


def test_a_tensor_past_2gb_keeps_global_loads_and_the_others_stay_marked(cli, buffer_ops):
    ttir = _stage(cli, "ttir", "--arch", "gfx942", "-c", "big=600000000")
    assert _ranged(ttir) == ["b_ptr", "out_ptr"]  # 600M floats = 2.4 GB: the HIP backend leaves a_ptr unmarked
    amdgcn = _stage(cli, "amdgcn", "--arch", "gfx942", "-c", "big=600000000")
    import triton

    if not triton.__version__.startswith("3.5."):  # 3.5.1 emits buffer loads for the unmarked one too (seen here)
        assert re.search(r"^\s+global_load_dword", amdgcn, re.M) and re.search(r"^\s+buffer_load_dword", amdgcn, re.M)


def test_the_running_tritons_default_is_followed_and_off_marks_nothing(cli, monkeypatch):
    from triton import knobs

    monkeypatch.delenv("AMDGCN_USE_BUFFER_OPS", raising=False)
    default = ["a_ptr", "b_ptr", "out_ptr"] if knobs.amd.use_buffer_ops else []
    assert _ranged(_stage(cli, "ttir", "--arch", "gfx942")) == default
    monkeypatch.setenv("AMDGCN_USE_BUFFER_OPS", "0")
    assert _ranged(_stage(cli, "ttir", "--arch", "gfx942")) == []  # not the cached marked variant


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_nvidia_targets_never_get_the_mark(cli, arch):
    assert _ranged(_stage(cli, "ttir", "--arch", arch)) == []
