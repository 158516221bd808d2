"""On a GPU: an autotuned, heuristics-decorated kernel written for this test launches correctly per config.

Each config is checked against a torch reference: a heuristic value that did not
reach the JIT (EVEN taken as true where n is not a multiple of BLOCK) would read and
write past the end and fail the check.
"""

from __future__ import annotations

import textwrap

from irscope.frontends import resolve_kernel
from irscope.frontends.config import sweep_configs
from irscope.measure.bench import bench
from irscope.types import Status

KERNEL = textwrap.dedent("""
    import triton
    import triton.language as tl

    from irscope.spec import KernelSpec, Tensor


    @triton.autotune(
        configs=[triton.Config({"BLOCK": 64}, num_warps=1), triton.Config({"BLOCK": 128}, num_warps=2),
                 triton.Config({"BLOCK": 256}, num_warps=4)],
        key=["n"],
    )
    @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @triton.jit
    def twice_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)
        else:
            mask = offs < n
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


    twice = KernelSpec(
        twice_kernel,
        sizes=dict(n=640),
        tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
        args=lambda k: (k.x, k.y, k.n),
        grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
        reference=lambda k: k.x * 2,
    )
""")


def test_every_autotune_config_launches_with_its_heuristic_values_and_is_correct(tmp_path):
    path = tmp_path / "twice.py"
    path.write_text(KERNEL)
    ref = resolve_kernel(f"{path}:twice_kernel")
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
    assert [c.constexprs["BLOCK"] for c in configs] == [64, 128, 256]
    results = {r.index: r.measurement for r in bench(ref, configs, min_time_ms=10)}
    assert [results[i].status for i in range(3)] == [Status.OK] * 3, [results[i].error for i in range(3)]
