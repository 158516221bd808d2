"""Is there a CUDA GPU, and what is it? Answered through the driver, without torch.

Importing torch to ask costs a second. NVML, the driver's management library, answers in
~10 ms; libcuda's ``cuInit`` starts the driver on every GPU first (0.2 s per H200, 0.41-0.46 s
for two), which a command that only asks should not pay: it is asked where NVML cannot answer
for CUDA exactly. A machine without the driver has neither library, and that is the answer.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
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


@functools.lru_cache(maxsize=1)
def _ask_driver() -> tuple[int | None, int]:
    """(CUDA device 0's compute capability, the number of CUDA devices); (None, 0) without one."""
    return _ask_nvml() or _ask_cuda()


# NVML's constants (nvml.h)
_NVML_SUCCESS = 0
_NVML_DEVICE_MIG_ENABLE = 1


def _ask_nvml() -> tuple[int, int] | None:
    """What ``_ask_cuda`` would answer, read from NVML; None where NVML cannot say it for CUDA exactly.

    NVML numbers GPUs by PCI bus, CUDA fastest first, and CUDA_VISIBLE_DEVICES picks by CUDA's numbers;
    so NVML answers only where the numbering cannot matter: every GPU of one compute capability (then
    device 0's is theirs), no MIG instances (CUDA lists those, not their GPU), and CUDA_VISIBLE_DEVICES
    unset or distinct indices (as CUDA does, the list ends at the first that names no GPU). UUIDs, MIG
    names and anything else are left to cuInit. (torch can count GPUs through NVML too:
    ``PYTORCH_NVML_BASED_CUDA_CHECK=1``.) NVML sees a GPU where CUDA may still fail to start on it (a
    forward-compatibility libcuda the GPU does not support, a GPU awaiting reset): bench then goes on,
    and each variant says the worker's CUDA error instead of bench's "no GPU" exit.
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    try:
        if nvml.nvmlInit_v2() != _NVML_SUCCESS:
            return None
        try:
            capabilities = set()
            count = ctypes.c_uint(0)
            if nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) != _NVML_SUCCESS:
                return None
            for index in range(count.value):
                handle = ctypes.c_void_p()
                if nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)) != _NVML_SUCCESS:
                    return None
                current, pending = ctypes.c_uint(0), ctypes.c_uint(0)
                mig = nvml.nvmlDeviceGetMigMode(handle, ctypes.byref(current), ctypes.byref(pending))
                if mig == _NVML_SUCCESS and current.value == _NVML_DEVICE_MIG_ENABLE:
                    return None  # (a GPU without MIG answers NOT_SUPPORTED)
                major, minor = ctypes.c_int(0), ctypes.c_int(0)
                if nvml.nvmlDeviceGetCudaComputeCapability(handle, ctypes.byref(major), ctypes.byref(minor)):
                    return None
                capabilities.add(major.value * 10 + minor.value)
        finally:
            nvml.nvmlShutdown()
    except (AttributeError, OSError):  # an NVML too old to have these calls
        return None
    if len(capabilities) != 1:
        return None
    visible_count = _visible_count(visible, count.value)
    return (capabilities.pop(), visible_count) if visible_count else None


def _visible_count(visible: str | None, total: int) -> int | None:
    """How many of ``total`` GPUs CUDA_VISIBLE_DEVICES=``visible`` lets CUDA see; None where only CUDA can say."""
    if visible is None:
        return total
    entries = visible.split(",")
    if not all(re.fullmatch(r"[0-9]+", entry) for entry in entries) or len(set(map(int, entries))) != len(entries):
        return None  # (ASCII digits only: "٣" is a digit to Python, not to CUDA; spaces are CUDA's to read)
    seen = 0
    for entry in entries:
        if int(entry) >= total:
            break
        seen += 1
    return seen


def _ask_cuda() -> tuple[int | None, int]:
    """``_ask_driver``'s answer from libcuda (cuInit); (None, 0) without a GPU."""
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


def gpu_names() -> tuple[list[str], str | None]:
    """The names NVML gives the host's NVIDIA GPUs ("NVIDIA H100 80GB HBM3"), and the driver's version;
    ([], None) where NVML is not there. All of the host's: CUDA_VISIBLE_DEVICES is not applied."""
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return [], None
    names: list[str] = []
    driver: str | None = None
    try:
        if nvml.nvmlInit_v2() != _NVML_SUCCESS:
            return [], None
        try:
            text = ctypes.create_string_buffer(96)
            if nvml.nvmlSystemGetDriverVersion(text, len(text)) == _NVML_SUCCESS:
                driver = text.value.decode("ascii", "replace")
            count = ctypes.c_uint(0)
            if nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) == _NVML_SUCCESS:
                for index in range(count.value):
                    handle = ctypes.c_void_p()
                    if nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)) != _NVML_SUCCESS:
                        continue
                    if nvml.nvmlDeviceGetName(handle, text, len(text)) == _NVML_SUCCESS:
                        names.append(text.value.decode("ascii", "replace"))
        finally:
            nvml.nvmlShutdown()
    except (AttributeError, OSError):
        return [], None
    return names, driver


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
