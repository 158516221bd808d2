"""The Numba frontend: ``@cuda.jit`` kernels in Python files, compiled by numba-cuda to PTX, then by ptxas.

Numba is the Python way to write CUDA kernels the lecture names. Without a GPU,
``numba.cuda.compile_ptx`` compiles a kernel for a chosen compute capability
(numba-cuda and the NVRTC wheel; libNVVM from the CUDA toolkit), with ``.loc``
lines that name the Python file; the CUDA toolkit's ptxas makes the cubin (its PTX
is newer than Triton's bundled ptxas reads), and SASS comes from it as for any cubin.
A Python file belongs to Triton by its suffix; a ``@cuda.jit`` function is claimed
by name, found with ``ast`` before anything is imported.
``frontend.py`` is the ``Frontend``; this package's own module holds only its description,
``FRONTEND`` (the ``irscope.frontends`` entry point).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..info import FrontendInfo

if TYPE_CHECKING:
    from ..base import Frontend


def _load() -> Frontend:
    from .frontend import NumbaFrontend

    return NumbaFrontend()


def _takes(obj: Any) -> bool:
    from .kernel import is_dispatcher

    return is_dispatcher(obj)


FRONTEND = FrontendInfo(
    name="numba",
    display_name="Numba",
    source_language="python",
    load=_load,
    objects="a Numba @cuda.jit kernel",
    takes_object=_takes,
    imported="numba.cuda",
    requires=("numba", "numba_cuda"),
    install_hint="pip install irscope[numba]",
)
