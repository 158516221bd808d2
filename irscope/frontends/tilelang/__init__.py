"""The TileLang frontend: ``@tilelang.jit`` kernel factories and ``T.prim_func`` kernels in Python files,
compiled ahead of time for a chosen NVIDIA arch with no GPU, by TileLang's own lowering and nvcc calls.

A ``@tilelang.jit`` function is a factory: its parameters (shapes, block sizes, ``num_stages``,
``threads``, dtypes) pick the ``T.prim_func`` it returns, so they are the config's axes (``-c block_M=128``,
``-s num_stages=2,3``); a top-level ``T.prim_func`` has none. One compile is TileLang's ``lower`` for
``{"kind": "cuda", "arch": "sm_90a"}`` with its ``tl.emit_line_directives`` pass config, then the two
nvcc calls its ``JITKernel.export_ptx`` and ``export_sass`` make (``tilelang.contrib.nvcc``). Stages: the
TIR before and after lowering, the generated CUDA (``#line`` directives naming the Python lines), PTX
and SASS of the cubin; asked for (``irscope passes``, ``sweep --passes``), the TIR after every pass. For an
AMD GPU (``gfx942``) the same lowering for ``{"kind": "hip", "mcpu": ...}`` gives the TIR and the HIP source
with no ROCm; the AMDGCN needs ROCm's hipcc, and says so where there is none.

``source.py`` finds the kernels and their parameters with ``ast`` (nothing is imported), ``kernel.py`` is
``TileLangKernel`` and its compile, ``stages.py`` the TIR and CUDA stages, ``passes.py`` the recorder of
every pass (TileLang's own pass instrumentation, as ``TL_LOWER_TRACE``), ``frontend.py`` the ``Frontend``,
``listen.py`` the recorder of each TileLang compile a program makes under ``irscope run``.
This package's own module holds only its description, ``FRONTEND`` (the ``irscope.frontends`` entry point).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..info import FrontendInfo

if TYPE_CHECKING:
    from ..base import Frontend
    from ..info import Recorder


def _load() -> Frontend:
    from .frontend import TileLangFrontend

    return TileLangFrontend()


def _takes(obj: Any) -> bool:
    from .source import is_tilelang_kernel

    return is_tilelang_kernel(obj)


def _recorder(raw: Path, gpu_free: str | None) -> Recorder:
    from .listen import TileLangCompileRecorder

    return TileLangCompileRecorder(raw, gpu_free)


FRONTEND = FrontendInfo(
    name="tilelang",
    display_name="TileLang",
    source_language="python",
    load=_load,
    objects="a TileLang @tilelang.jit function or T.prim_func",
    takes_object=_takes,
    imported="tilelang",
    requires=("tilelang",),
    install_hint="pip install irscope[tilelang]",
    recorder=_recorder,
    stages="irscope.frontends.tilelang.stages",
)
