"""Helion kernels written for irscope's tests, in Helion's own idioms: a tiled matmul (``hl.tile`` over the
output, a reduction loop over K with ``torch.addmm``), a row softmax (a whole row a tile, ``torch`` ops on it)
and a row sum (a reduction Helion may loop over: ``reduction_loops``)."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(static_shapes=True)
def helion_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel(static_shapes=True)
def helion_softmax(x: torch.Tensor) -> torch.Tensor:
    n, _ = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        row = x[tile_n, :].to(torch.float32)
        shifted = row - torch.amax(row, dim=1, keepdim=True)
        numerator = torch.exp(shifted)
        out[tile_n, :] = (numerator / torch.sum(numerator, dim=1, keepdim=True)).to(x.dtype)
    return out


@helion.kernel(static_shapes=True)
def helion_row_sum(x: torch.Tensor) -> torch.Tensor:
    n, _ = x.size()
    out = torch.empty([n], dtype=torch.float32, device=x.device)
    for tile_n in hl.tile(n):
        out[tile_n] = torch.sum(x[tile_n, :].to(torch.float32), dim=1)
    return out
