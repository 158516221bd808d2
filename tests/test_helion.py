"""Helion kernels (``@helion.kernel``) compiled without a GPU: the Triton Helion generates for a config is a stage of
its own, every later stage equal byte for byte to Helion's own compile of it (``to_triton_code``, the module loaded
through PyCodeCache as Helion loads it, then ``triton.compile`` of the kernel its launcher is handed), and a PTX
line maps back through the generated Triton's ``# src[file:line]`` comments to the Helion line.

The kernels are written for these tests (helion_kernels.py): a tiled matmul, a row softmax and a row sum.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("helion", reason="needs helion (pip install irscope[helion])")

from irscope.capturing import capture
from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

KERNELS = Path(__file__).with_name("helion_kernels.py")
# kernel -> (-S, Helion config fields as -c takes them)
CASES: dict[str, tuple[str, dict[str, str]]] = {
    "helion_matmul": ("float16[256,256], float16[256,256]", {"block_sizes": "64,64,32", "num_stages": "3"}),
    "helion_softmax": ("float16[128,512]", {"block_sizes": "4", "num_warps": "8"}),
    "helion_row_sum": ("float32[128,1000]", {"block_sizes": "8", "reduction_loops": "256"}),
}
ARCHS = {"sm_90": ("cuda", 90, 32), "sm_100a": ("cuda", 100, 32), "gfx942": ("hip", "gfx942", 64)}
TRITON_KEYS = {"ttir": Stage.TTIR, "ttgir": Stage.TTGIR, "llir": Stage.LLIR}
TRITON_TYPES = {"torch.float16": "*fp16", "torch.float32": "*fp32"}


@pytest.fixture(scope="module")
def kernels():
    return {name: resolve_kernel(f"{KERNELS}:{name}", signature) for name, (signature, _) in CASES.items()}


@pytest.fixture(scope="module")
def variants(kernels):
    """The nine variants compiled in this process, which has Helion imported already: through workers each
    capture started a worker that imported torch and Helion again (~9 s of CPU here): 165 s of setup
    here before, 17 s now (tests/perf/RESULTS.md).
    The worker path of a Helion kernel runs in docs/helion.md's dump and sweep (tests/test_docs_commands.py)."""
    return {
        (name, arch): capture(kernels[name], CASES[name][1], arch, compile_timeout=None)
        for name in CASES
        for arch in ARCHS
    }


def imported() -> Any:
    """helion_kernels.py imported apart from irscope."""
    spec = importlib.util.spec_from_file_location("own_helion_kernels", KERNELS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def helions_own_compile(name: str, args: tuple, fields: dict[str, Any], arch: str, cache: Path) -> tuple[str, Any]:
    """Helion's compile of the kernel, with nothing of irscope's: its Triton module, and ``triton.compile`` of the
    kernel its host function hands the launcher (pointers 16-byte aligned, as every fresh torch tensor is)."""
    import helion
    import torch
    import triton
    from torch._inductor.codecache import PyCodeCache
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    code = getattr(imported(), name).bind(args).to_triton_code(helion.Config(**fields))
    module = PyCodeCache.load(code)
    launched: list = []
    getattr(module, name)(*args, _launcher=lambda fn, grid, *a, **kw: launched.append((fn, a, kw)))
    [(fn, given, options)] = launched
    signature, constants, attrs = {}, {}, {}
    for i, (param, value) in enumerate(zip(fn.arg_names, given)):
        if fn.params[i].is_constexpr:  # a looped reduction's block (_REDUCTION_BLOCK_1)
            signature[param], constants[(i,)] = "constexpr", value
            continue
        assert isinstance(value, torch.Tensor)  # static shapes: the kernels here take tensors and constexprs only
        signature[param] = TRITON_TYPES[str(value.dtype)]
        attrs[(i,)] = [["tt.divisibility", 16]]
    with knobs.cache.scope():
        knobs.cache.dir = str(cache)
        compiled = triton.compile(
            ASTSource(fn, signature, constants, attrs),
            target=GPUTarget(*ARCHS[arch]),
            options={"num_warps": options["num_warps"], "num_stages": options["num_stages"]},
        )
    return code, compiled


def example_args(signature: str) -> tuple:
    import torch

    out = []
    for item in signature.split("], "):
        dtype, _, shape = item.rstrip("]").partition("[")
        out.append(torch.empty([int(d) for d in shape.split(",")], dtype=getattr(torch, dtype), device="meta"))
    return tuple(out)


def helion_fields(given: dict[str, str]) -> dict[str, Any]:
    return {
        k: [int(x) for x in v.split(",")] if k in ("block_sizes", "reduction_loops") else int(v)
        for k, v in given.items()
    }


@pytest.mark.parametrize("arch", sorted(ARCHS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_stage_equals_helions_own_compile_byte_for_byte(variants, tmp_path, name, arch):
    variant = variants[name, arch]
    assert variant.status is Status.OK, variant.error
    assert (variant.frontend, variant.generated_by, variant.source_language) == ("helion", "helion", "python")
    signature, given = CASES[name]
    code, own = helions_own_compile(name, example_args(signature), helion_fields(given), arch, tmp_path)
    assert variant.listings[Stage("helion_triton")] == code
    final = {"ptx": Stage.PTX} if arch.startswith("sm") else {"amdgcn": Stage.AMDGCN}
    for key, stage in {**TRITON_KEYS, **final}.items():
        assert variant.listings[stage] == own.asm[key], f"{name} {arch}: {stage} differs from Helion's {key}"
    assert variant.cubin == own.asm["cubin" if arch.startswith("sm") else "hsaco"]
    assert variant.listings[Stage.SOURCE] == KERNELS.read_text()  # the source stage is the Helion file


def test_a_ptx_line_maps_back_to_its_helion_line(variants):
    """The PTX's tensor-core instructions come from the line with ``torch.addmm``, through the generated Triton's
    ``tl.dot`` line and the ``# src[helion_kernels.py:N]`` comment above it; the store from the line writing out."""
    variant = variants["helion_matmul", "sm_90"]
    source = KERNELS.read_text().splitlines()
    addmm = next(i for i, line in enumerate(source, 1) if "acc = torch.addmm(" in line)
    store = next(i for i, line in enumerate(source, 1) if "out[tile_m, tile_n] = " in line)
    smap = SourceMap(variant)
    ptx = variant.listings[Stage.PTX].splitlines()
    mma = [i for i, line in enumerate(ptx) if "wgmma.mma_async" in line]
    assert mma, "the sm_90 matmul uses wgmma"
    assert {smap.source_line(Stage.PTX, i) for i in mma} == {addmm}
    assert smap.user_loc(Stage.PTX, mma[0]).line == addmm
    stores = [i for i, line in enumerate(ptx) if line.strip().startswith("st.global")]
    assert stores and {smap.source_line(Stage.PTX, i) for i in stores} == {store}
    # ... and back: the Helion line lights those PTX lines; the generated Triton's lines name it too.
    assert set(mma) <= set(smap.lines_for(Stage.PTX, addmm))
    generated = variant.listings[Stage("helion_triton")].splitlines()
    dot = next(i for i, line in enumerate(generated) if "tl.dot(" in line)
    assert smap.source_line(Stage("helion_triton"), dot) == addmm


def test_a_helion_kernel_object_is_a_kernel_through_the_api():
    """The ``@helion.kernel`` object itself, handed to the API with ``-S``'s text: compiled in this process."""
    import irscope

    kernel = imported().helion_row_sum
    variant = irscope.capture(kernel, {"block_sizes": "8"}, arch="sm_90", signature="float32[64,256]")
    assert variant.status is Status.OK, variant.error
    assert (variant.frontend, variant.generated_by) == ("helion", "helion")
    assert "_BLOCK_SIZE_0 = tl.constexpr(8)" in variant.listings[Stage.HELION_TRITON]
