"""Kernels for the timing probes (tests/perf/bench_measure.py): the smallest launch there is.

An empty kernel measures what a timer adds by itself: CUPTI's start-to-end of a
kernel that does nothing, against ncu's gpu__time_duration of the same launch.
"""

import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor, Tunable


@triton.jit
def empty_kernel(out_ptr, BLOCK: tl.constexpr):
    pass


empty = KernelSpec(
    empty_kernel,
    description="does nothing: one program, no loads, no stores",
    sizes=dict(n=16),
    tensors=dict(out=Tensor("float32", "n")),
    args=lambda k: (k.out,),
    grid=lambda k: (1,),
    constexprs=dict(BLOCK=Tunable(16, (16,))),
)
