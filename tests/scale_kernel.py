"""A cheap Triton kernel written for the sweeps-at-scale test and benchmark (issue 32), not a built-in.

``poly`` evaluates a polynomial of degree TERMS by Horner's rule, unrolled at compile time
(``tl.static_range``), so every TERMS value is different code; BLOCK and num_warps change its
layout. 5 BLOCKs x 4 num_warps x 50 TERMS give the 1,000 variants bench_scale.py compiles, each
0.2-0.4 s to compile here (a BLOCK of 8192 on one warp unrolled 25 times took 3 s: kept out).
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable, pow2

BLOCKS = pow2(32, 512)  # 5 values
WARPS = (1, 2, 4, 8)
TERMS = tuple(range(1, 51))


@triton.jit
def poly(out_ptr, x_ptr, n, BLOCK: tl.constexpr, TERMS: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    acc = x
    for i in tl.static_range(TERMS):
        acc = acc * x + (i + 1)
    tl.store(out_ptr + offsets, acc, mask=mask)


def horner(x, terms: int):
    """The reference, on torch tensors (this file imports no torch: compile workers load it)."""
    acc = x.clone()
    for i in range(terms):
        acc = acc * x + (i + 1)
    return acc


poly_spec = KernelSpec(
    poly,
    description="Horner's rule of degree TERMS, unrolled (written for tests/perf/bench_scale.py)",
    sizes=dict(n=1 << 20),
    tensors=dict(x=Tensor("float32", "n", init="rand"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.y, k.x, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(BLOCK=Tunable(1024, BLOCKS), TERMS=Tunable(4, TERMS)),
    num_warps=Tunable(4, WARPS),
    reference=lambda k: horner(k.x, k.TERMS),
    flops=lambda k: 2 * k.TERMS * k.n,
)
