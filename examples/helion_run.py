"""A program that calls a Helion kernel and launches a plain Triton kernel: ``irscope run`` keeps both.

    irscope run -o runs/helion -- python examples/helion_run.py      # with or without a GPU (docs/helion.md)

The Helion kernel (helion_centred.py, beside it) is kept under its own name, ``centred_exp``, with each config
Helion compiled: the one in its decorator, then the one set on the bound kernel.
"""

import helion
import torch
import triton
import triton.language as tl
from helion_centred import centred_exp  # beside this file

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def plain_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


x = torch.rand(64, 256, device=DEVICE, dtype=torch.float16)
centred_exp(x, 2.0)
bound = centred_exp.bind((x, 2.0))
bound.set_config(helion.Config(block_sizes=[16], num_warps=8))
bound(x, 2.0)
a = torch.rand(4096, device=DEVICE)
plain_add[(4,)](a, a, torch.empty_like(a), 4096, BLOCK=1024)
print("done")
