"""The GPU a measurement ran on: its identity, its measured copy bandwidth, its peaks.

The ceiling a bandwidth-bound kernel is judged against is the device's own
device-to-device copy rate (bytes read plus bytes written), measured once per
device and stored. The peaks (memory bandwidth from bus width and memory clock,
dense fp16 tensor-core FLOP/s from SM count and clock) come from Triton's own
table (``triton.profiler.specs``, what proton reports utilisation against),
with the device's properties as the driver reports them.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..storage.files import atomic_write


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    capability: int
    driver: str
    torch: str
    triton: str
    copy_gbps: float | None = None  # measured: 1 GiB device-to-device copy
    datasheet_gbps: float | None = None  # peak memory bandwidth (Triton's specs)
    datasheet_tflops: float | None = None  # dense fp16 tensor-core peak (Triton's specs)
    index: int = 0  # which GPU of the host

    @property
    def arch(self) -> str:
        return f"sm_{self.capability}"


def peaks(capability: int, device: int = 0) -> tuple[float | None, float | None]:
    """(GB/s, fp16 TFLOP/s) of the current GPU from Triton's table; None where it has no entry."""
    from triton.profiler import specs
    from triton.runtime import driver

    props = driver.active.utils.get_device_properties(device)
    try:
        gbps = specs.max_bps("CUDA", str(capability), props["mem_bus_width"], props["mem_clock_rate"]) / 1e9
    except (KeyError, ValueError, AssertionError):
        gbps = None
    try:
        tflops = (
            specs.max_flops("CUDA", str(capability), 16, props["multiprocessor_count"], props["sm_clock_rate"]) / 1e12
        )
    except (KeyError, ValueError):
        tflops = None
    return gbps, tflops


def _devices_dir() -> Path:
    from ..paths import DEVICES, cache_dir

    return cache_dir() / DEVICES


def copy_bandwidth(name: str, measure: bool = True) -> float | None:
    """The device's device-to-device copy rate in GB/s (read + write), measured once and stored."""
    path = _devices_dir() / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".json")
    if path.exists():
        try:
            return float(json.loads(path.read_text())["copy_gbps"])
        except (ValueError, KeyError, TypeError):
            pass
    if not measure:
        return None
    gbps = measure_copy_bandwidth()
    atomic_write(
        path,
        json.dumps(
            {"device": name, "copy_gbps": gbps, "bytes": 1 << 30, "measured": datetime.date.today().isoformat()}
        ),
    )
    return gbps


def measure_copy_bandwidth(nbytes: int = 1 << 30) -> float:
    """GB/s of ``y.copy_(x)`` over ``nbytes`` buffers, counting bytes read and written."""
    import torch

    us = copy_time_us(2 * nbytes, "cupti", min_time_ms=200)
    torch.cuda.empty_cache()  # the two buffers are gone with copy_time_us's frame
    return 2 * nbytes / (us * 1e-6) / 1e9


def copy_time_us(nbytes: float, method: str, min_time_ms: float = 50) -> float:
    """Microseconds to copy half of ``nbytes`` into the other half (``nbytes`` moved), timed by ``method``."""
    import statistics

    import torch

    from .timing import time_launches

    n = max(1, int(nbytes // 2) // 4)
    x = torch.empty(n, dtype=torch.float32, device="cuda").uniform_()
    y = torch.empty_like(x)
    y.copy_(x)
    timing = time_launches(lambda: y.copy_(x), method, min_time_ms=min_time_ms)
    return 1e3 * statistics.median(timing.times_ms)


def current_device() -> DeviceInfo:
    import os

    import torch
    import triton

    from ..processes.timeline import mark

    mark("GPU worker: torch and triton imported")
    index = torch.cuda.current_device()
    mark("GPU worker: CUDA initialised")
    props = torch.cuda.get_device_properties(index)
    name = props.name.removeprefix("NVIDIA ").strip()
    capability = props.major * 10 + props.minor
    gbps, tflops = peaks(capability, index)
    # A worker sees one GPU (CUDA_VISIBLE_DEVICES): the host's index of it is what the user knows.
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    host_index = int(visible.split(",")[index]) if visible and visible.split(",")[index].isdigit() else index
    return DeviceInfo(
        name=name,
        capability=capability,
        driver=_driver_version(),
        # str(): torch's version is a TorchVersion, and unpickling one in irscope's main process
        # imports all of torch (4 s on the device, before the first result could show).
        torch=str(torch.__version__),
        triton=str(triton.__version__),
        copy_gbps=copy_bandwidth(name),
        datasheet_gbps=gbps,
        datasheet_tflops=tflops,
        index=host_index,
    )


def _driver_version() -> str:
    import ctypes

    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        nvml.nvmlInit_v2()
        buf = ctypes.create_string_buffer(80)
        nvml.nvmlSystemGetDriverVersion(buf, 80)
        return buf.value.decode()
    except (OSError, AttributeError):
        return ""


def device_json(info: DeviceInfo) -> dict:
    return {**asdict(info), "date": datetime.date.today().isoformat()}
