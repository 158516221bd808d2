"""The CuTe DSL frontend: ``@cute.jit`` host functions in Python files (``nvidia-cutlass-dsl``), compiled
ahead of time for a chosen arch with no GPU, to the DSL's own CuTe IR, PTX and cubin.

``cute.compile`` traces the host function and the ``@cute.kernel`` functions it launches into MLIR,
lowers it and assembles it with the DSL's bundled NVVM and ptxas, for the arch given as ``--gpu-arch``
(no driver is asked). Its arguments are described, not made: ``-S "float32[128,256], ..."`` gives each
tensor's element type and row-major shape, and the DSL's fake tensors stand in for them (no memory,
no torch). Its ``cutlass.Constexpr`` parameters (tile shapes, thread counts) are the config's axes.
What irscope keeps is what the DSL's own ``--keep-ptx``/``--keep-cubin`` and ``CUTE_DSL_KEEP=ir-debug``
write, read from a private folder: the traced IR (with the Python file's locations), the PTX (``.loc``
lines naming the file) and the cubin, whose SASS irscope disassembles as for any cubin.

``source.py`` finds the ``@cute.jit`` functions and their constexpr parameters with ``ast`` (nothing is
imported), ``arguments.py`` reads ``-S``, ``kernel.py`` is ``CuteKernel`` and its compile, ``stages.py``
the CuTe IR stage, ``frontend.py`` the ``Frontend``, ``listen.py`` the recorder of each ``cute.compile`` a
program makes under ``irscope run``. This package's own module holds only its
description, ``FRONTEND`` (the ``irscope.frontends`` entry point).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..info import FrontendInfo

if TYPE_CHECKING:
    from ..base import Frontend
    from ..info import Recorder


def _load() -> Frontend:
    from .frontend import CuteFrontend

    return CuteFrontend()


def _takes(obj: Any) -> bool:
    from .source import is_cute_jit

    return is_cute_jit(obj)


def _recorder(raw: Path, gpu_free: str | None) -> Recorder:
    from .listen import CuteCompileRecorder

    return CuteCompileRecorder(raw, gpu_free)


FRONTEND = FrontendInfo(
    name="cute",
    display_name="CuTe DSL",
    source_language="python",
    load=_load,
    objects="a CuTe DSL @cute.jit function",
    takes_object=_takes,
    imported="cutlass.cute",
    requires=("cutlass",),
    install_hint="pip install irscope[cute]",
    recorder=_recorder,
    stages="irscope.frontends.cute.stages",
)
