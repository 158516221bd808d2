"""Record every property a GPU reports, as torch, Triton's driver and the CUDA driver give them (issue 49, point 4).

The stand-in device (frontends/triton/gpu_free.py) answers for a GPU model on a machine without one; these
records, made on the real cards, are what its answers are checked against (tests/test_gpu_models.py).

    python tests/gpu/probe_gpu_model.py OUT_DIR      # writes OUT_DIR/<model>.json
"""

from __future__ import annotations

import ctypes
import json
import re
import subprocess
import sys
from pathlib import Path


def torch_view() -> dict:
    import torch

    props = torch.cuda.get_device_properties(0)
    fields = {
        name: getattr(props, name)
        for name in dir(props)
        if not name.startswith("_") and isinstance(getattr(props, name), (int, float, str, bool))
    }
    fields["uuid"] = str(getattr(props, "uuid", ""))
    fields.pop("uuid", None)  # one card's identity, not its model's
    return {
        "device_count": torch.cuda.device_count(),
        "name": torch.cuda.get_device_name(0),
        "capability": list(torch.cuda.get_device_capability(0)),
        "properties": fields,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
    }


def triton_view() -> dict:
    import triton
    from triton.runtime import driver

    active = driver.active
    target = active.get_current_target()
    return {
        "triton": triton.__version__,
        "target": {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size},
        "properties": dict(active.utils.get_device_properties(active.get_current_device())),
    }


def driver_view() -> dict:
    """cuDeviceGetAttribute for every attribute number the driver answers (names from cuda.h's enum order)."""
    lib = ctypes.CDLL("libcuda.so.1")
    assert lib.cuInit(0) == 0
    device = ctypes.c_int()
    assert lib.cuDeviceGet(ctypes.byref(device), 0) == 0
    values = {}
    for attribute in range(1, 160):
        value = ctypes.c_int()
        if lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, device) == 0:
            values[str(attribute)] = value.value
    name = ctypes.create_string_buffer(256)
    lib.cuDeviceGetName(name, 256, device)
    total = ctypes.c_size_t()
    lib.cuDeviceTotalMem_v2(ctypes.byref(total), device)
    version = ctypes.c_int()
    lib.cuDriverGetVersion(ctypes.byref(version))
    return {
        "name": name.value.decode(),
        "total_mem": total.value,
        "driver_version": version.value,
        "attributes": values,
    }


def nvidia_smi() -> dict:
    query = "name,driver_version,clocks.max.sm,clocks.max.mem,memory.total,power.limit,pcie.link.gen.max"
    out = subprocess.run(
        ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], capture_output=True, text=True
    ).stdout
    return dict(zip(query.split(","), (v.strip() for v in out.splitlines()[0].split(","))))


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    record = {"torch": torch_view(), "triton": triton_view(), "driver": driver_view(), "nvidia_smi": nvidia_smi()}
    model = re.sub(r"[^A-Za-z0-9]+", "_", record["torch"]["name"]).strip("_")
    path = out / f"{model}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(path, json.dumps(record["triton"]["properties"]), record["torch"]["properties"])


if __name__ == "__main__":
    main()
