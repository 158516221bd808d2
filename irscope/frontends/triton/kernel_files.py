"""Triton kernels in ``.py`` files: a kernel file imported (without a GPU too), its kernels found.

A file's kernels are those with a ``KernelSpec`` beside them, else every ``@triton.jit``
function it defines; one without a spec is compiled from a ``-S`` signature, given or
read from a launch the file made while it was imported.
"""

from __future__ import annotations

import ast
import contextlib
import sys
import traceback
from pathlib import Path
from typing import Any

from ...arch import DEFAULT_CAPABILITY
from ...errors import KernelNotFound, ParameterError
from ...nvidia.device import gpu_capability
from ...spec import kernel_specs
from ..files import import_file, module_name, said
from .autotune import is_kernel, jit_of, unwrap
from .compile import triton_cache_for
from .gpu_free import LAUNCHES, ExampleLaunch, example_launches, gpu_free_import, signature_of
from .kernel import TritonKernel
from .signature import SignatureArg, parse_signature


def kernel_names(path: Path) -> list[str]:
    """The kernels a file declares: those with a KernelSpec, else every @triton.jit function (autotuned or not)."""
    module = load_module(path)
    specs = [jit_of(spec.kernel).__name__ for spec in kernel_specs(vars(module))]
    return specs or list(_jit_functions(module))


def builtin_kernels(directory: Path) -> list[TritonKernel]:
    """Every kernel with a spec in the ``.py`` files of ``directory``, in file order."""
    out = []
    for path in sorted(p for p in directory.glob("*.py") if not p.name.startswith("_")):
        module = load_module(path)
        jit_fns = _jit_functions(module)
        for spec in kernel_specs(vars(module)):
            out.append(TritonKernel(jit_fns.get(jit_of(spec.kernel).__name__, spec.kernel), str(path), spec))
    return out


def kernel_in_file(path: Path, kernel_name: str | None, signature: str | None) -> TritonKernel:
    module = load_module(path)
    jit_fns = _jit_functions(module)
    specs = {jit_of(spec.kernel).__name__: spec for spec in kernel_specs(vars(module))}
    if kernel_name is None:
        candidates = kernel_names(path)
        if len(candidates) != 1:
            raise KernelNotFound(
                f"{path} holds {len(candidates)} kernels ({', '.join(candidates) or 'none'}); name one as {path}:NAME"
            )
        kernel_name = candidates[0]
    fn = jit_fns.get(kernel_name) or (specs[kernel_name].kernel if kernel_name in specs else None)
    if fn is None:
        raise KernelNotFound(
            f"no @triton.jit kernel named {kernel_name!r} in {path}; found: {', '.join(jit_fns) or 'none'}"
        )
    spec = specs.get(kernel_name)
    parsed = parse_signature(signature, jit_of(fn)) if signature else None
    launch = None
    if spec is None and parsed is None:  # how the file itself launched it, where it did so at import
        parsed, launch = _launched_signature(module, fn)
    if spec is None and parsed is None:
        raise ParameterError(
            f"{kernel_name} in {path} declares no KernelSpec; give its argument types with "
            f'--signature, e.g. --signature "*fp32:16, *fp32:16, i32:16, 1024"'
        )
    if signature and parsed:
        _note_constants(jit_of(fn), parsed)
    kernel = TritonKernel(fn, str(path), None if parsed else spec, parsed)
    if launch is not None:
        kernel.defaults = _launch_defaults(launch, kernel)
    return kernel


def _launch_defaults(launch: ExampleLaunch, kernel: TritonKernel) -> dict[str, Any]:
    """The file's own launch as the kernel's default config: its launch options and its scalar arguments' values.

    The autotuner's configs, where there is one, stay the kernel's sweep: they override these.
    """
    out: dict[str, Any] = {"num_warps": launch.num_warps, "num_stages": launch.num_stages}
    for param in kernel.fn.params:
        value = launch.arguments.get(param.name)
        if not param.is_constexpr and isinstance(value, (bool, int, float)):
            out[param.name] = value
    return out


def _note_constants(jit: Any, signature: tuple[SignatureArg, ...]) -> None:
    """Say where -S makes a runtime argument a constant (Triton's AOT reading), which no launch does.

    A launch passes the value; the JIT keeps it an argument (a constant only when it is 1), so the
    code differs: masks fold away, loads widen. ``-c NAME=VALUE`` is the launch's value.
    """
    for param, arg in zip(jit.params, signature):
        if not param.is_constexpr and arg.type is None and arg.value not in (None, 1):
            sys.stderr.write(
                f"irscope: note: -S compiles {param.name} as the constant {arg.value!r} (Triton's AOT reading), "
                f"which no launch does; for a launch's value write its type and -c {param.name}={arg.value!r}\n"
            )


def _launched_signature(module: Any, fn: Any) -> tuple[tuple[SignatureArg, ...] | None, ExampleLaunch | None]:
    """The signature of the first launch of ``fn`` that importing ``module`` recorded (gpu_free.py), and that launch.

    The constexprs its ``@triton.autotune`` configs or ``@triton.heuristics`` set are left to them:
    the launch holds only the values of the one config the stand-in driver let through.
    """
    jit = jit_of(fn)
    launches = example_launches(module, jit.fn.__name__)
    if not launches:
        return None, None
    signature = signature_of(launches[0], jit)
    tuning = unwrap(fn)
    if signature is None or tuning is None:
        return signature, launches[0] if signature is not None else None
    tuned = tuning.tuned_names() | {name for name, _, _ in tuning.heuristics()}
    signature = tuple(
        SignatureArg(None) if p.name in tuned and p.is_constexpr else arg for p, arg in zip(jit.params, signature)
    )
    return signature, launches[0]


def kernel_with_signature(path: Path, name: str, signature: tuple[SignatureArg, ...]) -> TritonKernel:
    """A kernel compiled from a stored signature (a session of an Inductor kernel, say)."""
    fn = _jit_functions(load_module(path)).get(name)
    if fn is None:
        raise KernelNotFound(f"no @triton.jit kernel named {name!r} in {path}")
    return TritonKernel(fn, str(path), None, signature)


def _jit_functions(module: Any) -> dict[str, Any]:
    """The module's kernels by name; a decorated kernel is its outermost decorator's object.

    A bare ``@triton.jit`` function that a wrapper in the module wraps (``k = triton.autotune(...)(_k)``) is
    that wrapper under both names: it is how the module launches it, and how a worker finds it again.
    """
    found = {n: v for n, v in vars(module).items() if _is_jit_function(v) and jit_of(v).__module__ == module.__name__}
    outer: dict[int, Any] = {}
    for value in found.values():
        if jit_of(value) is not value:
            outer.setdefault(id(jit_of(value)), value)
    return {n: outer.get(id(v), v) for n, v in found.items()}


def _is_jit_function(value: Any) -> bool:
    """A ``@triton.jit`` function, bare or under ``@triton.autotune`` / ``@triton.heuristics``."""
    return is_kernel(value)


def module_name_for(file: str) -> str:
    """The module name a kernel file gets: from its resolved path, so two files never share one."""
    return module_name("irscope_kernel", Path(file))


def load_module(path: Path) -> Any:
    """Import a kernel file by path (once per process), with errors as one line."""
    return import_file(path.resolve(), "irscope_kernel", "kernel file", _exec_module)


def _exec_module(loader: Any, module: Any) -> None:
    """Run the file; without a GPU, with a stand-in driver and its launches recorded, not run (gpu_free.py).

    What the file prints goes to stderr: irscope's stdout is data (a dump's listing, say).
    """
    with contextlib.redirect_stdout(sys.stderr):
        if gpu_capability() is not None:
            loader.exec_module(module)
            return
        # A warmup compiles at import: into the file's own Triton cache, where captures of it look too.
        # torch.cuda's queries are answered only for a file that imports torch itself: it costs a second.
        torch_queries = _imports_torch(Path(module.__file__))
        with gpu_free_import(DEFAULT_CAPABILITY, torch_queries) as launches, triton_cache_for(str(module.__file__)):
            try:
                loader.exec_module(module)
            except Exception as exc:
                # A file that checks its kernel's output at import (Triton's tutorials do) stops there
                # without a GPU: the stand-in's tensors hold no data. What it defined and launched
                # before that line is kept, and said.
                if not launches and not _jit_functions(module):
                    raise
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == module.__file__]
                where = f"{module.__file__}:{frames[-1].lineno}" if frames else module.__file__
                sys.stderr.write(
                    f"irscope: note: {where}: the file stopped there while irscope imported it without "
                    f"a GPU ({said(exc)}); kernels and launches before that line are kept\n"
                )
            finally:
                setattr(module, LAUNCHES, launches)


def _imports_torch(path: Path) -> bool:
    """Does the file import torch when it runs: a module-level import (in an ``if`` or ``try`` too), not one in a def."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return False  # the import itself will say what is wrong
    pending: list[ast.stmt | ast.ExceptHandler] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch" and not node.level:
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            pending.extend(
                child for child in ast.iter_child_nodes(node) if isinstance(child, (ast.stmt, ast.ExceptHandler))
            )
    return False
