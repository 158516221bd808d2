"""The GPU a measurement ran on: its identity, its measured copy bandwidth, its datasheet peaks.

The ceiling a bandwidth-bound kernel is judged against is the device's own
device-to-device copy rate (bytes read plus bytes written), measured once per
device and stored; datasheet figures are shown beside it where known.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..store import atomic_write

# Datasheet memory bandwidth (GB/s) and dense fp16/bf16 tensor throughput (TFLOP/s), by device name.
DATASHEET = {
    "H200": (4800, 989),
    "H100 SXM": (3350, 989), "H100 80GB HBM3": (3350, 989), "H100 NVL": (3900, 835), "H100 PCIe": (2000, 756),
    "H100": (3350, 989),
    "GH200": (4000, 989),
    "B200": (8000, 2250),
    "A100-SXM4-80GB": (2039, 312), "A100 80GB PCIe": (1935, 312), "A100-SXM4-40GB": (1555, 312), "A100": (1555, 312),
    "L40S": (864, 362), "L4": (300, 121), "A10G": (600, 70), "A10": (600, 125),
    "RTX 4090": (1008, 165), "RTX 3090": (936, 71),
}


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    capability: int
    driver: str
    torch: str
    triton: str
    copy_gbps: float | None = None
    datasheet_gbps: float | None = None
    datasheet_tflops: float | None = None

    @property
    def arch(self) -> str:
        return f"sm_{self.capability}"


def datasheet(name: str) -> tuple[float | None, float | None]:
    for key, value in sorted(DATASHEET.items(), key=lambda kv: -len(kv[0])):
        if key.lower() in name.lower():
            return value
    return None, None


def _devices_dir() -> Path:
    from ..paths import cache_dir

    return cache_dir() / "devices"


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
    atomic_write(path, json.dumps({"device": name, "copy_gbps": gbps, "bytes": 1 << 30,
                                   "measured": datetime.date.today().isoformat()}))
    return gbps


def measure_copy_bandwidth(nbytes: int = 1 << 30) -> float:
    """GB/s of ``y.copy_(x)`` over ``nbytes`` buffers, counting bytes read and written."""
    import torch

    ms = _time_copy(nbytes)
    torch.cuda.empty_cache()  # the two buffers are gone with _time_copy's frame
    return 2 * nbytes / (ms * 1e-3) / 1e9


def _time_copy(nbytes: int) -> float:
    import torch
    from triton.testing import do_bench

    x = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").uniform_()
    y = torch.empty_like(x)
    return do_bench(lambda: y.copy_(x), warmup=25, rep=200, return_mode="median")


def current_device() -> DeviceInfo:
    import torch
    import triton

    props = torch.cuda.get_device_properties(0)
    name = props.name.removeprefix("NVIDIA ").strip()
    gbps, tflops = datasheet(name)
    return DeviceInfo(name=name, capability=props.major * 10 + props.minor, driver=_driver_version(),
                      torch=torch.__version__, triton=triton.__version__, copy_gbps=copy_bandwidth(name),
                      datasheet_gbps=gbps, datasheet_tflops=tflops)


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
