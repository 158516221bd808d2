"""A Triton kernel handed over as a Python object: a ``@triton.jit`` function (autotuned or with
heuristics, or a ``KernelSpec`` holding one), defined in a script or a notebook cell.

The kernel's source text is the whole file or cell the function was defined in
(python_source.py), so Triton's locations, which name that file and its lines, map
every IR line to the cell's line. The object itself is compiled, in this process
(``Kernel.compiles_here``): a cell is no file a worker could import.
"""

from __future__ import annotations

from typing import Any

from ...errors import ParameterError, UsageError
from ...spec import KernelSpec
from ..python_source import defining_node, defining_text
from .autotune import is_kernel, jit_of
from .kernel import TritonKernel
from .signature import parse_signature, signature_template


def is_triton_object(obj: Any) -> bool:
    """A ``@triton.jit`` function (bare or wrapped), or a KernelSpec; not a ``@gluon.jit`` one (a JITFunction too,
    which Triton's own ``is_gluon`` tells apart): the Gluon frontend takes those."""
    if isinstance(obj, KernelSpec):
        return not _is_gluon(obj.kernel)
    return is_kernel(obj) and not _is_gluon(obj)


def _is_gluon(obj: Any) -> bool:
    is_gluon = getattr(jit_of(obj), "is_gluon", None) if is_kernel(obj) else None
    return bool(is_gluon()) if callable(is_gluon) else False


def kernel_from_object(obj: Any, signature: str | None, kind: type[TritonKernel] = TritonKernel) -> TritonKernel:
    spec = obj if isinstance(obj, KernelSpec) else None
    fn = spec.kernel if spec is not None else obj
    if not is_kernel(fn):
        raise UsageError(f"the KernelSpec's kernel is a {type(fn).__name__}, not a @triton.jit function")
    jit = jit_of(fn)
    kernel_name = jit.fn.__name__
    filename, text = defining_text(jit.fn, "Triton kernel")
    defining_node(text, filename, jit.fn, "Triton kernel")
    start = jit.starting_line_number - 1
    if text.splitlines(keepends=True)[start : start + len(jit.raw_src)] != list(jit.raw_src):
        # The def is where it was, but not what Triton read when it was decorated: its lines would lie.
        raise UsageError(
            f"{filename}:{jit.starting_line_number}: the source of Triton kernel {kernel_name} has changed since "
            "it was defined; run its cell (or import its file) again"
        )
    parsed = parse_signature(signature, jit) if signature else None
    if spec is None and parsed is None:
        raise ParameterError(
            f"{kernel_name} has no KernelSpec; give its argument types as signature=, "
            f"e.g. signature={signature_template(jit)!r} (fill in each ?)"
        )
    kernel = kind(fn, filename, None if parsed else spec, parsed, source_text=text)
    kernel.defined_in_process = True
    return kernel
