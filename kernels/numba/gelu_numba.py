"""The tanh-approximation GeLU in Numba, one thread per element (twins: gelu.py, gelu_tanh.cu).

The constants are float32 on purpose: Numba types a plain Python float as float64,
and ``0.5 * v`` would then run in double precision (cvt.f64.f32, mul.f64 in the PTX).
"""

import math

from numba import cuda, float32

C0 = float32(0.7978845608028654)
C1 = float32(0.044715)
HALF = float32(0.5)
ONE = float32(1.0)

from irscope.spec import CudaSpec, Tensor, Tunable, cdiv


@cuda.jit("void(float32[::1], float32[::1], int32)", fastmath=False)
def gelu_numba_kernel(x, y, n):
    i = cuda.grid(1)
    if i < n:
        v = x[i]
        inner = C0 * (v + C1 * v * v * v)
        y[i] = HALF * v * (ONE + math.tanh(inner))


def gelu_reference(k):
    import torch.nn.functional as F

    return F.gelu(k.x, approximate="tanh")


gelu_numba = CudaSpec(
    gelu_numba_kernel,
    description="tanh-approximation GELU in Numba, one thread per element",
    sizes=dict(n=1 << 24),
    tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.y, k.n),
    block=Tunable("256", ("128", "256", "512", "1024")),
    grid=lambda k: (cdiv(k.n, k.block_x),),
    reference=gelu_reference,
    tolerance=(1e-5, 1e-4),
    flops=lambda k: 10 * k.n,
)
