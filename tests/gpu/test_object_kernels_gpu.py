"""Kernels given as objects where only a GPU can make them: a Numba kernel whose decorator has its signature.

``@cuda.jit("void(...)")`` compiles when the cell runs, which needs the driver; the
signature is then read from the decorator in the cell's text, as a file's is.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("numba.cuda", reason="needs numba-cuda")
pytest.importorskip("ipykernel.compiler", reason="needs ipykernel (a cell is compiled as Jupyter compiles it)")

from irscope.capturing import capture
from irscope.frontends import kernel_from_object
from irscope.ir.sourcemap import SourceMap
from irscope.types import Stage, Status

CELL = """from numba import cuda


@cuda.jit("void(float32[:], float32[:], int32)")
def halve(x, y, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = x[i] * 0.5
"""


def test_a_cell_numba_kernel_with_a_signature_in_its_decorator_needs_none_given():
    from ipykernel.compiler import XCachingCompiler
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.compile = XCachingCompiler()
    assert shell.run_cell(CELL).success
    kernel = kernel_from_object(shell.user_ns["halve"])
    assert kernel.signature == "void(float32[:], float32[:], int32)"
    variant = capture(kernel, arch="sm_90", compile_timeout=None)
    assert variant.status is Status.OK
    ptx = variant.listings[Stage.PTX].splitlines()
    loads = [i for i, text in enumerate(ptx) if re.match(r"\s*ld\.f32", text)]
    line = next(n for n, text in enumerate(CELL.splitlines(), 1) if "y[i] = x[i]" in text)
    assert loads and {SourceMap(variant).source_line(Stage.PTX, i) for i in loads} == {line}
