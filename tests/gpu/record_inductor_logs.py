"""Record real Inductor output code on a GPU, as the fixtures of irscope's Inductor parser.

For each example function this runs ``TORCH_LOGS=output_code python -c ...`` in a fresh
process with an empty Inductor cache and keeps what it printed to stderr, prefixes and
all, exactly as a user would save it. With ``--trace NAME,...`` those examples also run with
``TORCH_TRACE=OUT_DIR/NAME_trace`` in the same process: a TORCH_TRACE folder and its TORCH_LOGS twin
from one compile. Run on the GPU machine:

    python tests/gpu/record_inductor_logs.py OUT_DIR [--only NAME,...] [--trace NAME,...]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRELUDE = """
import torch, torch.nn.functional as F
torch.manual_seed(0)
dev = "cuda"
"""

EXAMPLES = {
    "square": """
def fn(x):
    return torch.square(x)
args = (torch.randn(4096, 4096, device=dev),)
""",
    "gelu_tanh": """
def fn(x):
    return F.gelu(x, approximate="tanh")
args = (torch.randn(4096, 4096, device=dev),)
""",
    "softmax": """
def fn(x):
    return torch.softmax(x, dim=-1)
args = (torch.randn(4096, 781, device=dev),)
""",
    "mlp_layernorm": """
ln = torch.nn.LayerNorm(768).to(dev)
fc1 = torch.nn.Linear(768, 3072).to(dev)
fc2 = torch.nn.Linear(3072, 768).to(dev)
def fn(x):
    h = fc2(F.gelu(fc1(ln(x))))
    return x + h
args = (torch.randn(8, 512, 768, device=dev),)
""",
    "reduction": """
def fn(x, w):
    rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
    return (x * rms * w).sum(dim=0), x.abs().amax()
args = (torch.randn(8192, 2048, device=dev), torch.randn(2048, device=dev))
""",
    "matmul_autotune": """
def fn(a, b):
    return torch.relu(a @ b)
args = (torch.randn(1024, 1024, device=dev, dtype=torch.float16), torch.randn(1024, 1024, device=dev, dtype=torch.float16))
MODE = "max-autotune-no-cudagraphs"
""",
}

RUN = """
MODE = globals().get("MODE", None)
compiled = torch.compile(fn, mode=MODE) if MODE else torch.compile(fn)
out = compiled(*args)
torch.cuda.synchronize()
"""


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--only", default="", help="comma-separated example names (default: all)")
    parser.add_argument("--trace", default="", help="examples to record with TORCH_TRACE too")
    args = parser.parse_args()
    out_dir = args.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    traced = set(filter(None, args.trace.split(",")))
    for name, body in EXAMPLES.items():
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "TORCH_LOGS": "output_code", "TORCHINDUCTOR_CACHE_DIR": cache}
            if name in traced:
                env["TORCH_TRACE"] = str(out_dir / f"{name}_trace")
            start = time.time()
            proc = subprocess.run(
                [sys.executable, "-c", PRELUDE + body + RUN], env=env, capture_output=True, text=True, timeout=600
            )
            (out_dir / f"{name}.log").write_text(proc.stderr)
            print(
                f"{name}: exit {proc.returncode}, {len(proc.stderr.splitlines())} log lines, "
                f"{proc.stderr.count('async_compile.triton(')} triton kernels, {time.time() - start:.1f} s"
            )
            if proc.returncode:
                print(proc.stderr[-2000:])


if __name__ == "__main__":
    main()
