"""The Helion frontend: ``@helion.kernel`` functions (PyTorch's kernel DSL) in ``.py`` files.

Helion writes Triton: for one set of example arguments (``-S``: shapes and dtypes, made as ``meta``
tensors, so no GPU) and one Helion ``Config`` (``-c block_sizes=64,64,32 -c num_warps=4``), its
``BoundKernel.to_triton_code`` gives a Triton module, which Helion loads through PyTorch's
``PyCodeCache`` and launches. irscope does the same up to the launch: the module is loaded at the
path Helion itself would load it at, its launch is recorded (arguments, ``num_warps``...), and the
Triton kernel in it is compiled by the Triton frontend's ahead-of-time compile for the target. The
generated module is a stage of its own (``helion_triton``, ``stages.py``); every later stage maps
through its ``# src[file:line]`` comments to the Helion file's lines (ir/sourcemap.py: ORIGINS).

``source.py`` finds ``@helion.kernel`` functions with ``ast`` (the file does not run to be listed),
``configs.py`` reads a Helion config's fields as data (a CSV's ``Config(...)`` text included),
``autotune_log.py`` reads Helion's autotune CSV (``HELION_AUTOTUNE_LOG``), ``kernel.py`` is
``HelionKernel`` and its compile, ``frontend.py`` the ``Frontend``. This module holds only its
description, ``FRONTEND`` (the ``irscope.frontends`` entry point); ``listen.py`` is its recorder for
``irscope run`` and ``recorded.py`` reads what it recorded back, as data.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..info import FrontendInfo

if TYPE_CHECKING:
    from ..base import Frontend
    from ..info import Recorder


def _load() -> Frontend:
    from .frontend import HelionFrontend

    return HelionFrontend()


def _recorder(raw: Path, gpu_free: str | None) -> Recorder:
    from .listen import HelionRecorder

    return HelionRecorder(raw)


def _takes(obj: Any) -> bool:
    import sys

    runtime = sys.modules.get("helion.runtime.kernel")
    return runtime is not None and isinstance(obj, runtime.Kernel)


FRONTEND = FrontendInfo(
    name="helion",
    display_name="Helion",
    source_language="python",
    load=_load,
    objects="a @helion.kernel function",
    takes_object=_takes,
    imported="helion",
    requires=("helion",),
    install_hint="pip install irscope[helion]",
    recorder=_recorder,
)
