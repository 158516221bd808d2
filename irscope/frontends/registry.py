"""``FRONTENDS``: the one list of kernel languages, each imported the first time it is asked for.

Together they take a few hundred ms, which ``irscope --help`` and the commands that only
read what is stored should not pay.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..errors import KernelNotFound
from .base import Frontend


def _triton() -> type[Frontend]:
    from .triton import TritonFrontend

    return TritonFrontend


def _cuda() -> type[Frontend]:
    from .cuda import CudaFrontend

    return CudaFrontend


def _numba() -> type[Frontend]:
    from .numba import NumbaFrontend

    return NumbaFrontend


FRONTENDS: dict[str, Callable[[], type[Frontend]]] = {"triton": _triton, "cuda": _cuda, "numba": _numba}


@functools.cache
def frontend(name: str) -> Frontend:
    if name not in FRONTENDS:
        raise KernelNotFound(f"unknown frontend {name!r}; known: {', '.join(FRONTENDS)}")
    return FRONTENDS[name]()()
