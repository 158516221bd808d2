"""irscope's torch-free specialization agrees with Triton's native JIT binder.

The JIT decides divisibility, constant-1 and integer width from the arguments of
a launch; irscope must reach the same decisions without torch (stand-in tensors)
or its ahead-of-time IR would differ from what the JIT runs.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import make_backend  # noqa: E402
from triton.runtime.jit import create_function_from_signature  # noqa: E402

from irscope.frontends import resolve_kernel  # noqa: E402
from irscope.frontends.config import resolve_config  # noqa: E402
from irscope.frontends.triton.inputs import example_namespace, launch_arguments  # noqa: E402
from irscope.frontends.triton.specialize import ExampleTensor, bind_specialization, specialize  # noqa: E402


def _native(fn, args, kwargs):
    backend = make_backend(GPUTarget("cuda", 90, 32))
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    _, specialization, _ = binder(*args, **kwargs)
    return specialization


@pytest.mark.parametrize(
    "name, overrides",
    [
        ("square_kernel", {}),
        ("square_kernel", {"n_cols": 1024}),
        ("square_kernel", {"n_rows": 1, "n_cols": 1}),
        ("add_kernel", {}),
        ("add_kernel", {"offset": 1}),
        ("add_kernel", {"offset": 4}),
        ("softmax_kernel", {"n_cols": 1000}),
        ("matmul_kernel", {"M": 4096, "N": 1, "K": 48}),
        ("gelu_kernel", {"n": 3 * 2**31}),
    ],
)
def test_stand_in_specialization_matches_the_native_binder_on_real_tensors(name, overrides):
    ref = resolve_kernel(name)
    if name == "gelu_kernel":  # 6 Gi elements would not fit in memory; an int that size is enough
        ns = example_namespace(ref, resolve_config(ref, {}))
        args = (ns.x, ns.out, 3 * 2**31)
        config = resolve_config(ref, {})
        fake_args = (ExampleTensor("float32", (8,), 0x1000), ExampleTensor("float32", (8,), 0x2000), 3 * 2**31)
    else:
        config = resolve_config(ref, overrides)
        args, _ = launch_arguments(ref, config, example_namespace(ref, config))
        from irscope.frontends.triton.specialize import example_tensors

        fake_args = tuple(ref.spec.args(ref.spec.namespace(config.values(), example_tensors(ref, config))))
    kwargs = {**config.constexprs, **config.options}
    _, ours = bind_specialization(ref.fn, fake_args, kwargs)
    assert ours == _native(ref.fn, args, kwargs)


def test_misaligned_tensors_lose_divisibility_and_ones_become_constants():
    ref = resolve_kernel("matmul_kernel")
    config = resolve_config(ref, {})
    src, _, signature, divisible = specialize(ref, config, 90)
    assert signature["stride_ak"] == "constexpr" and signature["stride_bn"] == "constexpr"
    assert {"a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am"} <= set(divisible)
    ref = resolve_kernel("add_kernel")
    _, _, _, divisible = specialize(ref, resolve_config(ref, {"offset": 2}), 90)
    assert "x_ptr" not in divisible and "n_elements" in divisible
