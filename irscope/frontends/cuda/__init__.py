"""The CUDA C++ frontend: ``__global__`` kernels in ``.cu`` files, compiled by nvcc to PTX, a cubin and SASS.

The PTX's ``.loc`` lines and the cubin's line table (``-lineinfo``) map every
instruction back to its line of the ``.cu`` file, as for a Triton kernel's Python.
A Python file's ``load_inline`` CUDA strings are kernels too (inline.py), mapped to
their lines of the ``.py``; so is CUDA C++ handed over as a string (``kernel_from_text``:
the Python API), written to the cache as a ``.cu`` file of its own.

A ``.cu`` file, and anything beside it, is data: its text is read and compiled, and a
``<stem>_spec.py`` beside it (Python: example inputs, grid, reference) is imported only
when the user names it (``--spec``), or for irscope's own built-in kernels.

The modules, ``source.py`` (the ``__global__`` kernels and ``#ifndef``/``#define`` tunable macros of
a ``.cu`` file, read from its text), ``compile.py`` (one nvcc run per config: PTX, cubin, ptxas's
report for the kernel's mangled entry; nvcc hands its arguments to a shell, so it is given only
fixed names in a temporary folder: a ``kernel.cu`` that ``#include``s the kernel's file and a header
of ``#define``s), ``tokens.py`` (every macro value and flag checked as a C token, a number,
true/false or an identifier, before it is written there), ``inline.py`` (a Python file's
``load_inline`` CUDA strings, read with ``ast``, device code only, numbered as in the ``.py``; a
frontend ``claims`` such a kernel though Triton owns ``.py``), ``kernel.py`` (``CudaKernel``).
Built-in ``.cu`` kernels live in ``kernels/`` beside the Triton ones, each with its ``CudaSpec`` in
``<stem>_spec.py`` (only a built-in's is found by its name; any other spec file is Python the user
names with ``--spec``, carried in the kernel's handle to its workers); Numba built-ins in
``kernels/numba/`` (apart, because irscope imports every top-level ``kernels/*.py`` to list the
Triton ones, and Numba is optional). Running them (``frontends/cubin.py``, shared by both): a
``CudaSpec`` (spec.py) gives inputs, grid, reference and the launch shape (``block``, an option); on
the GPU the kernel is compiled for the device and its cubin launched through the driver
(``nvidia/launch.py``: arguments packed as the PTX entry declares them, Numba arrays expanded to
Numba's parameters). Example tensors for any spec: ``frontends/examples.py``. ``frontends/numba/``:
``@cuda.jit`` functions claimed by name in ``.py`` files (found with ``ast``), compiled by
numba-cuda's ``compile_ptx`` and the toolkit's ptxas (``kernel.py``).
``frontend.py`` is the ``Frontend`` over these modules, and ``listen.py`` records each ``load_inline``
call of a program ``irscope run`` runs. This package's own module holds only its description,
``FRONTEND`` (the ``irscope.frontends`` entry point).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...spec import parse_block
from ..info import FrontendInfo, OptionSpec

if TYPE_CHECKING:
    from ...types import Variant
    from ..base import Frontend
    from ..info import Recorder, ReproFacts


def _load() -> Frontend:
    from .frontend import CudaFrontend

    return CudaFrontend()


def _recorder(raw: Path, gpu_free: str | None) -> Recorder:
    from .listen import LoadInlineRecorder

    return LoadInlineRecorder(raw)


def _reproducer(variant: Variant, facts: ReproFacts) -> str:
    from .repro import cuda_repro

    return cuda_repro(variant)


FRONTEND = FrontendInfo(
    name="cuda",
    display_name="CUDA C++",
    source_language="cuda",
    load=_load,
    suffixes=(".cu",),
    objects="CUDA C++ source text holding a __global__ kernel",
    takes_object=lambda obj: isinstance(obj, str),
    launch_options={
        "block": OptionSpec("a block shape such as 256 or 16x16 (at most 1024 threads)", check=parse_block, text=True)
    },
    recorder=_recorder,
    reproducer=_reproducer,
)
