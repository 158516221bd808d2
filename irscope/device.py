"""Is there a CUDA GPU, and what is it? Answered through the driver, without torch.

Importing torch to ask costs a second; libcuda answers in milliseconds, and its
absence is the answer on a machine without a GPU.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
# The amdgpu driver's (KFD's) topology: a node per CPU and GPU, ROCm's runtime reads the GPUs from it.
KFD_NODES = Path("/sys/class/kfd/kfd/topology/nodes")


@functools.lru_cache(maxsize=1)
def gpu_capability() -> int | None:
    """Compute capability of CUDA device 0 as an int (90 for sm_90), or None without a GPU."""
    if os.environ.get("IRSCOPE_NO_GPU"):
        return None
    return _ask_driver()[0]


def has_gpu() -> bool:
    return gpu_capability() is not None


@functools.lru_cache(maxsize=1)
def gpu_count() -> int:
    """How many CUDA GPUs this process may use (CUDA_VISIBLE_DEVICES applied by the driver)."""
    if gpu_capability() is None:
        return 0
    return max(1, _ask_driver()[1])


def _ask_driver() -> tuple[int | None, int]:
    """(device 0's compute capability, the number of devices) from libcuda; (None, 0) without one."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None, 0
    try:
        if cuda.cuInit(0) != 0:
            return None, 0
        count = ctypes.c_int(0)
        if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
            return None, 0
        device = ctypes.c_int(0)
        if cuda.cuDeviceGet(ctypes.byref(device), 0) != 0:
            return None, count.value
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        cuda.cuDeviceGetAttribute(ctypes.byref(major), _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
        cuda.cuDeviceGetAttribute(ctypes.byref(minor), _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
        return major.value * 10 + minor.value, count.value
    except (AttributeError, OSError):
        return None, 0


def visible_gpus() -> list[str]:
    """The host's ids of the GPUs this process may use, as CUDA_VISIBLE_DEVICES names them (or 0..n-1)."""
    given = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    return given[: gpu_count()] if given else [str(i) for i in range(gpu_count())]


@functools.lru_cache(maxsize=1)
def amd_gpu_arch(nodes: Path = KFD_NODES) -> str | None:
    """The gfx processor of the first AMD GPU the amdgpu driver lists ("gfx942"), or None without one.

    Read from the driver's topology, as ROCm's own runtime finds its GPUs: each GPU node's
    ``properties`` has ``gfx_target_version``, major * 10000 + minor * 100 + stepping (90402 for
    gfx942, 90010 for gfx90a: minor and stepping are the name's hex digits); a CPU node's is 0.
    No ROCm library is loaded, so a machine without ROCm pays nothing.
    """
    if os.environ.get("IRSCOPE_NO_GPU"):
        return None
    try:
        folders = sorted(nodes.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else -1)
    except OSError:
        return None
    for folder in folders:
        try:
            text = (folder / "properties").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "gfx_target_version" and value.strip().isdigit() and int(value) > 0:
                major, rest = divmod(int(value), 10000)
                minor, stepping = divmod(rest, 100)
                if minor < 16 and stepping < 16:
                    return f"gfx{major}{minor:x}{stepping:x}"
    return None
