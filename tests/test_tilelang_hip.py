"""TileLang for an AMD GPU (gfx942) without ROCm: the TIR, every TIR pass and the HIP source, and no AMDGCN.

TileLang's ``lower`` for ``{"kind": "hip", "mcpu": "gfx942"}`` runs its HIP code generator without the compile
callback (``target.build.tilelang_hip_without_compile``), so the TIR and the HIP source need no ROCm; its own
``tilelang.compile`` goes on into ``target.build.tilelang_hip``, whose callback runs hipcc for the code object, and
stops there where no hipcc is (this machine, CI). The reference runs in a process of its own with nothing of
irscope imported: ``TL_LOWER_TRACE=terminal`` around ``tilelang.lower`` for gfx942 (as test_tilelang_passes.py
does for sm_90a), the HIP source it writes, and ``tilelang.compile`` for the same target, whose error is the
reason irscope gives for the missing AMDGCN. The kernels: the add and the row maximum of
examples/tilelang_kernels.py. Skipped without tilelang; the AMDGCN checks only where no hipcc is found.
"""

from __future__ import annotations

import importlib.util
import json
import textwrap
from pathlib import Path

import pytest
from test_tilelang_passes import traced_passes

from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage

HAS_TILELANG = importlib.util.find_spec("tilelang") is not None
pytestmark = pytest.mark.skipif(not HAS_TILELANG, reason="needs tilelang (pip install irscope[tilelang])")

KERNELS = (Path(__file__).resolve().parent.parent / "examples" / "tilelang_kernels.py").read_text()
LINES = KERNELS.splitlines()
NAMES = ("add", "row_max")
TARGET = {"kind": "hip", "mcpu": "gfx942"}

REFERENCE = textwrap.dedent("""
    import importlib.util, json, sys
    import tilelang
    from tilelang import tvm
    from tilelang.tools import lower_trace
    spec = importlib.util.spec_from_file_location("kernels", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = tvm.target.Target(json.loads(sys.argv[3]))
    for name in sys.argv[4:]:
        lower_trace.enable(mode="terminal", trace_dir=f"{sys.argv[2]}/{name}")
        print(f"=== {name}", flush=True)
        with tvm.transform.PassContext(opt_level=3, config={"tl.emit_line_directives": True}), target:
            artifact = tilelang.lower(getattr(module, name).get_tir(), target=target)
        with open(f"{sys.argv[2]}/{name}.hip", "w") as f:
            f.write(artifact.kernel_source)
        print(flush=True)
    lower_trace.disable()
    try:  # TileLang's own compile for the target: on into the code object
        tilelang.compile(module.add.get_tir(), target=json.loads(sys.argv[3]))
        stopped = None
    except Exception as exc:
        stopped = [type(exc).__name__, str(exc)]
    with open(f"{sys.argv[2]}/compile.json", "w") as f:
        json.dump(stopped, f)
""")


def line_of(text: str) -> int:
    return next(i + 1 for i, t in enumerate(LINES) if text in t)


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tilelang_hip") / "tl_hip_kernels.py"
    path.write_text(KERNELS)
    return path


@pytest.fixture(scope="module")
def reference(kernels_file, tmp_path_factory):
    """TileLang's own: ``{name: (HIP source, [(pass, TIR after it), ...])}`` and what its compile raised."""
    out = tmp_path_factory.mktemp("tilelang_hip_own")
    passes = traced_passes(REFERENCE, out, str(kernels_file), json.dumps(TARGET), *NAMES)
    own = {name: ((out / f"{name}.hip").read_text(encoding="utf-8"), passes[name]) for name in NAMES}
    return own, json.loads((out / "compile.json").read_text())


@pytest.fixture(scope="module")
def variants(kernels_file):
    """The two kernels compiled for gfx942 with their passes recorded, in this process, uncached."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel

    out = {}
    for name in NAMES:
        v = capture(
            resolve_kernel(f"{kernels_file}:{name}"), {}, "gfx942", compile_timeout=None, use_cache=False, passes=True
        )
        assert v.ok, v.error
        out[name] = v
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_hip_source_and_every_pass_are_tilelangs_own_lowering_for_gfx942(variants, reference, name):
    from irscope.frontends.tilelang.stages import CUDA, HIP, LOWERED_TIR, TIR
    from irscope.ir.passes import ir_after_each

    v, (hip, passes) = variants[name], reference[0][name]
    assert v.arch == "gfx942" and v.compile_info.options["gpu_arch"] == "gfx942"
    assert v.listings[HIP] == hip and hip.startswith("#include <hip/hip_runtime.h>")
    assert "@T.prim_func" in v.listings[TIR] and '"mcpu": "gfx942"' in v.listings[LOWERED_TIR]
    log = v.passes
    assert len(passes) > 50 and [s.name for s in log.steps] == [n for n, _ in passes]
    assert ir_after_each(log)[1:] == [tir + "\n" for _, tir in passes]
    # NVIDIA's stages are another vendor's, not a failure; TileLang's CUDA is its NVIDIA twin of the HIP
    for stage in (CUDA, Stage.PTX, Stage.SASS):
        assert stage not in v.listings and v.stage_errors[stage].startswith("not produced for gfx942")
    assert v.compile_info.options["entry"] == "main_kernel"
    assert v.compile_info.threads_per_block == {"add": 256, "row_max": 128}[name]


def test_without_hipcc_amdgcn_is_not_produced_and_says_why(variants, reference):
    """The reason is TileLang's own: its compile for gfx942 stops at the same ``find_hipcc``."""
    from irscope.frontends.tilelang.kernel import hipcc_here

    if hipcc_here() is not None:
        pytest.skip("a hipcc is here: TileLang's compile makes the code object")
    stopped = reference[1]
    assert stopped is not None and stopped[0] == "RuntimeError" and "Cannot find hipcc" in stopped[1]
    for v in variants.values():
        assert Stage.AMDGCN not in v.listings and v.cubin is None
        why = v.stage_errors[Stage.AMDGCN]
        assert why.startswith("not produced: ") and "hipcc" in why and stopped[1].splitlines()[-1] in why
        assert v.resources.registers is None and v.resources.sgprs is None
    # dump's summary line shows what is known (no registers without a code object); its warning, this reason
    from irscope.cli.dump import _summary

    assert _summary(variants["add"]).startswith("add · N=4096 block=256 dtype=float32 · gfx942 (aot) · 0 B LDS · ")


def test_hip_lines_map_to_the_python_lines_as_the_cuda_does(variants, kernels_file):
    from irscope.frontends.tilelang.stages import HIP

    add, row_max = variants["add"], variants["row_max"]
    hip = add.listings[HIP].splitlines()
    store = next(i for i, t in enumerate(hip) if t.lstrip().startswith("C["))
    assert f'#line {line_of("C[bx * block + i] =")} "{kernels_file}"' in hip
    assert SourceMap(add).source_line(HIP, store) == line_of("C[bx * block + i] =")
    # the copies in and out carry their own lines; T.reduce_max is TileLang's macro, its span TileLang's file
    own = SourceMap(row_max).own_lines(HIP)
    assert {line_of("T.copy(X["), line_of("T.copy(best, Y[")} <= set(own)
    text = row_max.listings[HIP].splitlines()
    macro = [i + 1 for i, t in enumerate(text) if t.startswith("#line") and "language/reduce_op.py" in t]
    assert macro and all(own[i] is None for i in macro)
