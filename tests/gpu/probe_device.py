"""Print what the GPU machine is (device, driver, versions, copy bandwidth) and record an ncu CSV.

python tests/gpu/probe_device.py OUT_DIR
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl


@triton.jit
def _square(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * x, mask=offs < n)


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    print(
        "device",
        torch.cuda.get_device_name(0),
        "cc",
        torch.cuda.get_device_capability(0),
        "sms",
        props.multi_processor_count,
        "l2",
        getattr(props, "L2_cache_size", None),
    )
    print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)
    print(
        subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem", "--format=csv"],
            capture_output=True,
            text=True,
        ).stdout
    )
    n = 1 << 26
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    ms = triton.testing.do_bench(lambda: y.copy_(x), return_mode="median")
    print(f"copy 2^26 f32: {ms * 1e3:.1f} us, {2 * 4 * n / ms / 1e6:.0f} GB/s")
    for block in (128, 1024):
        ms = triton.testing.do_bench(
            lambda block=block: _square[(triton.cdiv(n, block),)](x, y, n, BLOCK=block), return_mode="median"
        )
        print(f"square BLOCK={block}: {ms * 1e3:.1f} us, {2 * 4 * n / ms / 1e6:.0f} GB/s")
    print("ncu:", shutil.which("ncu"))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] != "--ncu-target":
    main()
elif __name__ == "__main__":
    n = 1 << 24
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    for block in (128, 1024):
        _square[(triton.cdiv(n, block),)](x, y, n, BLOCK=block)
    torch.cuda.synchronize()
