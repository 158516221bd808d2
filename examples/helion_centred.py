"""A Helion kernel: each row scaled and centred on its largest value, then exponentiated (examples/helion_run.py
calls it; tests/test_helion_run.py compiles it with irscope and compares).

    irscope dump examples/helion_centred.py:centred_exp -S "float16[64,256], float32" -c block_sizes=4 --stage ptx --source
"""

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4), static_shapes=True)
def centred_exp(x: torch.Tensor, scale: float) -> torch.Tensor:
    n, _ = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        row = x[tile_n, :].to(torch.float32) * scale
        peak = torch.amax(row, dim=1, keepdim=True)
        out[tile_n, :] = torch.exp(row - peak).to(x.dtype)
    return out
