"""The Triton frontend: ``@triton.jit`` kernels in ``.py`` files, compiled by Triton itself.

The modules, in import order (each module imports those before it, at the top; those that take a
``TritonKernel`` name it for annotations only, under ``TYPE_CHECKING``): ``signature.py`` (the
``-S`` syntax: ``SignatureArg``, parsing, a stored signature read as data), ``gpu_free.py``
(importing a kernel file without a GPU: a stand-in driver, launches recorded as examples),
``specialize.py`` (the JIT's specialization, ahead of time), ``inputs.py`` (example tensors),
``autotune.py`` (``@triton.autotune`` / ``@triton.heuristics`` unwrapped: the config list,
heuristics per variant, pruning), ``compile.py`` (one compile, its stages and ptxas report),
``tuner.py`` (the kernel's own ``@triton.autotune`` run on the GPU as a user's launch runs it, its
timings read back), ``replay.py`` (bench reruns a recorded launch on new data of the same layout),
``kernel.py`` (``TritonKernel``, over all of these), ``kernel_files.py`` (a kernel file imported,
without a GPU too, and its kernels found), ``objects.py`` (a kernel handed over as a Python object,
from a script or a notebook cell), ``allowlist.py`` + ``rebuild.py`` (kernels built from
source text that is data, running none of it, with ``closure.py``'s record of what a kernel reads
beyond its file), ``listen.py`` (inside a program ``irscope run`` runs:
Triton's compilation listener and launch hooks record each compile's stage files and specialization,
and each launch's grid and argument layout) and ``recorded.py`` (those records read back as data:
kernel, config, the JIT's own compile); ``frontend.py`` is the ``Frontend`` over them, and
``options.py`` the options a Triton kernel takes. ``triton`` and ``torch`` (a second each) are imported
inside the functions that use them. This package's own module holds only its description, ``FRONTEND``
(the ``irscope.frontends`` entry point): listing it imports nothing of Triton's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..info import FrontendInfo
from .options import OPTIONS, TRITON_OPTION, TRITON_RANGE

if TYPE_CHECKING:
    from ...types import Variant
    from ..base import Frontend
    from ..info import Recorder, ReproFacts


def _load() -> Frontend:
    from .frontend import TritonFrontend

    return TritonFrontend()


def _takes(obj: Any) -> bool:
    from .objects import is_triton_object

    return is_triton_object(obj)


def _recorder(raw: Path, gpu_free: str | None) -> Recorder:
    from ...gpu_models import parse_gpu
    from .listen import GpuFreeListener, Listener

    return GpuFreeListener(raw, parse_gpu(gpu_free)) if gpu_free else Listener(raw)


def _reproducer(variant: Variant, facts: ReproFacts) -> str:
    from .repro import triton_repro

    return triton_repro(variant, facts)


FRONTEND = FrontendInfo(
    name="triton",
    display_name="Triton",
    source_language="python",
    load=_load,
    suffixes=(".py",),
    objects="a @triton.jit function (autotuned or with heuristics too), an irscope KernelSpec",
    takes_object=_takes,
    imported="triton",
    options=OPTIONS,
    version_option=TRITON_OPTION,
    compiler_package="triton",
    tested_releases=f"{TRITON_RANGE[0][0]}.{TRITON_RANGE[0][1]} to {TRITON_RANGE[1][0]}.{TRITON_RANGE[1][1] - 1}",
    recorder=_recorder,
    reproducer=_reproducer,
)
