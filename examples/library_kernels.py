"""Liger's rms_norm, layer_norm, swiglu, rope and cross-entropy, FLA's chunked cumsum and chunk_h, and a Helion matmul.

    pip install --no-deps liger-kernel==0.8.5 fla-core==0.6.0 helion==1.5.1 einops
    irscope run -o runs/libs -- python examples/library_kernels.py           # with or without a GPU
    irscope run --gpu RTX5090 -o runs/libs-5090 -- python examples/library_kernels.py

Each launches its Triton kernels as the libraries do; irscope keeps a session of each.
"""

import helion
import helion.language as hl
import torch
from fla.ops.common.chunk_h import chunk_fwd_h
from fla.ops.utils.cumsum import chunk_local_cumsum
from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
from liger_kernel.ops.rope import LigerRopeFunction
from liger_kernel.ops.swiglu import LigerSiLUMulFunction

dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)

x = torch.randn(8, 256, device=dev)
w = torch.ones(256, device=dev)
b = torch.zeros(256, device=dev)
LigerRMSNormFunction.apply(x, w, 1e-6)
LigerLayerNormFunction.apply(x, w, b, 1e-6)
LigerSiLUMulFunction.apply(torch.randn(8, 512, device=dev), torch.randn(8, 512, device=dev))
q = torch.randn(2, 4, 16, 64, device=dev)
k = torch.randn(2, 4, 16, 64, device=dev)
cos = torch.randn(1, 16, 64, device=dev)
sin = torch.randn(1, 16, 64, device=dev)
LigerRopeFunction.apply(q, k, cos, sin)
logits = torch.randn(8, 1000, device=dev)
target = torch.randint(0, 1000, (8,), device=dev)
LigerCrossEntropyFunction.apply(logits, target, None)
g = torch.randn(2, 128, 4, device=dev)
chunk_local_cumsum(g, chunk_size=64)
kk = torch.randn(2, 128, 4, 64, device=dev)
vv = torch.randn(2, 128, 4, 64, device=dev)
chunk_fwd_h(kk, vv, chunk_size=64)


@helion.kernel(config=helion.Config(block_sizes=[32, 32, 32], num_warps=4, num_stages=3))
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, kd = a.size()
    _, n = b.size()
    out = torch.empty([m, n], dtype=a.dtype, device=a.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(kd):
            acc = torch.addmm(acc, a[tile_m, tile_k], b[tile_k, tile_n])
        out[tile_m, tile_n] = acc
    return out


matmul(torch.randn(64, 64, device=dev), torch.randn(64, 64, device=dev))
print("done")
