"""A spec's reference may read the config (a polynomial of degree ``k.TERMS``): each config gets its own.

Found on the device by tests/perf/bench_scale.py: the reference worked out for the first config of a size was
kept for every other config of that size, so variants of another TERMS were judged wrong. Checked here on the
CPU, where the example tensors and the reference are the same torch code the GPU worker runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config

torch = pytest.importorskip("torch")
KERNEL = Path(__file__).resolve().parent / "scale_kernel.py"


def test_each_config_of_one_size_gets_its_own_reference_outputs():
    from scale_kernel import horner

    kernel = resolve_kernel(f"{KERNEL}:poly")
    seen = {}
    for terms in (1, 5, 1, 3):  # back to an earlier config too: nothing stale comes back
        config = resolve_config(kernel, {"TERMS": terms, "BLOCK": 128})
        ns, expected = kernel.example_inputs(config, device="cpu")
        assert ns.TERMS == terms
        assert torch.equal(expected[0], horner(ns.x, terms))
        seen[terms] = expected[0]
    assert not torch.equal(seen[1], seen[5]) and not torch.equal(seen[3], seen[5])
    # the inputs themselves are made once per size and shared
    a, _ = kernel.example_inputs(resolve_config(kernel, {"TERMS": 2}), device="cpu")
    b, _ = kernel.example_inputs(resolve_config(kernel, {"TERMS": 4}), device="cpu")
    assert a.x.data_ptr() == b.x.data_ptr()
