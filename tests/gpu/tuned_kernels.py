"""An autotuned kernel for the tests of ``irscope bench`` beside Triton's own autotuner.

Four configs; ``prune_configs_by`` drops the one whose grid would not fill a
132-SM GPU (BLOCK=4096 at n = 2**18: 64 blocks), so Triton never times it
while irscope still measures it. SCALE is a constexpr the autotuner does not
set: the caller passes it, as a user's launch would.
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


def enough_blocks(configs, named_args, **kwargs):
    return [c for c in configs if named_args["n"] // c.kwargs["BLOCK"] >= 132]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 128}, num_warps=1),
        triton.Config({"BLOCK": 256}, num_warps=2),
        triton.Config({"BLOCK": 512}, num_warps=4),
        triton.Config({"BLOCK": 4096}, num_warps=8),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": enough_blocks},
)
@triton.jit
def tuned_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


tuned_scale = KernelSpec(
    tuned_scale_kernel,
    sizes=dict(n=1 << 18),
    tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.y, k.n),
    grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    constexprs=dict(SCALE=Tunable(3)),
    reference=lambda k: k.x * k.SCALE,
)
