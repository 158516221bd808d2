"""How irscope runs gelu_tanh.cu on a GPU: the same 16M elements as the Triton twin (gelu.py)."""

from irscope.spec import CudaSpec, Tensor, Tunable, cdiv


def gelu_reference(k):
    import torch.nn.functional as F

    return F.gelu(k.x, approximate="tanh")


gelu_tanh = CudaSpec(
    "gelu_tanh_kernel",
    source="gelu_tanh.cu",
    description="tanh-approximation GELU in CUDA C++, one thread per element",
    sizes=dict(n=1 << 24),
    tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
    args=lambda k: (k.x, k.y, k.n),
    block=Tunable("256", ("128", "256", "512", "1024")),
    grid=lambda k: (cdiv(k.n, k.block_x),),
    reference=gelu_reference,
    tolerance=(1e-5, 1e-4),
    flops=lambda k: 10 * k.n,
)
