"""The Gluon frontend: ``@gluon.jit`` kernels (``triton.experimental.gluon``) in ``.py`` files, compiled by Triton.

Gluon is Triton's lower-level language: the author writes the layouts (``gl.BlockedLayout``,
``gl.NVMMASharedLayout``...) that Triton's passes would otherwise choose, and passes them in as
constexprs. Triton compiles a Gluon function from a ``GluonASTSource``: its first module is already
TTGIR (kept as the ``gluon`` stage, before any pass), then TTGIR after Gluon's passes, LLIR, PTX and
the cubin, exactly as for a Triton kernel. So this frontend is the Triton frontend's machinery with
three differences, each in this folder: ``kernel.py`` (``GluonKernel``: the source type, the Gluon IR
stage, layout constexprs made from their text), ``layouts.py`` (a layout's text <-> Triton's layout
object, read as data: no code from a session or a command line runs) and ``frontend.py`` (claims a
``.py`` file's ``@gluon.jit`` functions, found with ``ast`` before the file is imported). This module
holds only its description, ``FRONTEND`` (the ``irscope.frontends`` entry point).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ...spec import KernelSpec
from ..info import FrontendInfo
from ..triton.options import OPTIONS, TRITON_OPTION

if TYPE_CHECKING:
    from ...types import Variant
    from ..base import Frontend


def _load() -> Frontend:
    from .frontend import GluonFrontend

    return GluonFrontend()


def _bank_conflicts(variant: Variant) -> list[dict[str, Any]]:
    from .banks import variant_bank_answers

    return [a.to_json() for a in variant_bank_answers(variant)]


def _takes(obj: Any) -> bool:
    runtime = sys.modules.get("triton.experimental.gluon._runtime")
    kernel = obj.kernel if isinstance(obj, KernelSpec) else obj  # a KernelSpec holding one, too
    return runtime is not None and isinstance(kernel, runtime.GluonJITFunction)


FRONTEND = FrontendInfo(
    name="gluon",
    display_name="Gluon",
    source_language="python",
    load=_load,
    objects="a @gluon.jit function",
    takes_object=_takes,
    imported="triton.experimental.gluon",
    options=OPTIONS,
    version_option=TRITON_OPTION,
    bank_conflicts=_bank_conflicts,
)
