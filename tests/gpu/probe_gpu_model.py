"""Record what a real card reports, in the shape irscope's model table answers (irscope/gpu_models.py).

python tests/gpu/probe_gpu_model.py [OUT_DIR]     (default: tests/gpu/records/)

Writes ``<model>.json`` (``H100``, ``H200`` ...: the table's key for the card's name, else the name itself):
the device count, name and capability, every field of ``torch.cuda.get_device_properties(0)`` the table
answers, and Triton's ``driver.active.utils.get_device_properties(0)``, with the versions that read them.
tests/test_gpu_models.py compares each record with its model field by field; a field the table leaves
None is printed there with the card's value, to be written into the table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import triton

from irscope.gpu_models import MODELS, GpuModel


def record() -> dict:
    props = torch.cuda.get_device_properties(0)
    fields = GpuModel.torch_properties(next(iter(MODELS.values())))
    torch_fields = {k: getattr(props, k) for k in fields if hasattr(props, k)}
    triton_props = dict(triton.runtime.driver.active.utils.get_device_properties(0))
    return {
        "device_count": torch.cuda.device_count(),
        "name": torch.cuda.get_device_name(0),
        "capability": list(torch.cuda.get_device_capability(0)),
        "torch": torch_fields,
        "triton": triton_props,
        "versions": {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda},
    }


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "records"
    out.mkdir(parents=True, exist_ok=True)
    data = record()
    key = next((k for k, m in MODELS.items() if m.name == data["name"]), data["name"].replace(" ", "_"))
    path = out / f"{key}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
