"""Triton kernels in ``.py`` files: a kernel file imported (without a GPU too), its kernels found.

A file's kernels are those with a ``KernelSpec`` beside them, else every ``@triton.jit``
function it defines; one without a spec is compiled from a ``-S`` signature, given or
read from a launch the file made while it was imported.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...arch import DEFAULT_CAPABILITY
from ...errors import KernelFileError, KernelNotFound, ParameterError
from ...gpu_models import stand_in_gpu
from ...nvidia.device import gpu_capability
from ...spec import kernel_specs
from ..files import import_file, module_name, said
from .autotune import is_kernel, jit_of, unwrap
from .compile import triton_cache_for
from .gpu_free import LAUNCHES, ExampleLaunch, Probes, example_launches, gpu_free_import, signature_of
from .kernel import TritonKernel
from .signature import SignatureArg, parse_signature, signature_template


def kernel_names(path: Path) -> list[str]:
    """The kernels a file declares: those with a KernelSpec, else every @triton.jit function (autotuned or not)."""
    module = load_module(path)
    specs = [jit_of(spec.kernel).__name__ for spec in kernel_specs(vars(module))]
    return specs or list(_jit_functions(module))


def builtin_kernels(directory: Path, named: str | None = None) -> list[TritonKernel]:
    """Every kernel with a spec in the ``.py`` files of ``directory``, in file order.

    ``named``: only the kernels of that name, from the files whose text spells it (a kernel's name is its
    function's, which the file defining or importing it spells): `irscope dump square_kernel` imported all
    seven built-in files, a fifth of its imports (tests/test_cli_help.py holds every built-in's lookup to
    the full list's).
    """
    out = []
    spelled = None if named is None else re.compile(rf"\b{re.escape(named)}\b")
    for path in sorted(p for p in directory.glob("*.py") if not p.name.startswith("_")):
        if spelled is not None and not spelled.search(path.read_text(encoding="utf-8", errors="replace")):
            continue
        module = load_module(path)
        jit_fns = _jit_functions(module)
        for spec in kernel_specs(vars(module)):
            kernel = _found(TritonKernel(jit_fns.get(jit_of(spec.kernel).__name__, spec.kernel), str(path), spec))
            if named is None or kernel.name == named:
                out.append(kernel)
    return out


def _found(kernel: TritonKernel) -> TritonKernel:
    """A kernel found in a file that only imports it (a spec file for a library's kernel): its source is its own."""
    own = getattr(getattr(jit_of(kernel.fn), "fn", None), "__code__", None)
    if (
        own is not None
        and Path(own.co_filename).resolve() != Path(kernel.file).resolve()
        and Path(own.co_filename).is_file()
    ):
        kernel.found_in, kernel.file = kernel.file, str(Path(own.co_filename).resolve())
    return kernel


def kernel_in_file(
    path: Path, kernel_name: str | None, signature: str | None, kind: type[TritonKernel] = TritonKernel
) -> TritonKernel:
    """Kernel ``kernel_name`` of the file (None: its one kernel), as a ``kind`` (a language on Triton's compiler:
    its own subclass)."""
    module = load_module(path)
    return _kernel_of(
        module, str(path), kernel_name, signature, None, lambda _specs, _fns: kernel_names(path), path, kind
    )


def _kernel_of(
    module: Any,
    where: str,
    kernel_name: str | None,
    signature: str | None,
    stored: tuple[SignatureArg, ...] | None,
    candidates: Callable[[dict[str, Any], dict[str, Any]], list[str]],
    path: Path | None = None,
    kind: type[TritonKernel] = TritonKernel,
) -> TritonKernel:
    """The kernel ``kernel_name`` of an imported ``module`` (a file's or a package's, ``where`` in messages): its
    KernelSpec, the signature given (or ``stored``), or the module's own launch of it at import. ``path``: the
    file imported to find it (its own file is its source where that file only imports it); None: a package's
    module, whose kernel's file is its own."""
    jit_fns = _jit_functions(module)
    specs = {jit_of(spec.kernel).__name__: spec for spec in kernel_specs(vars(module))}
    if kernel_name is None:
        found = candidates(specs, jit_fns)
        if len(found) != 1:
            raise KernelNotFound(
                f"{where} holds {len(found)} kernels ({', '.join(found) or 'none'}); name one as {where}:NAME"
            )
        kernel_name = found[0]
    fn = jit_fns.get(kernel_name) or (specs[kernel_name].kernel if kernel_name in specs else None)
    if fn is None:
        raise KernelNotFound(
            f"no @triton.jit kernel named {kernel_name!r} in {where}; found: {', '.join(jit_fns) or 'none'}"
        )
    spec = specs.get(kernel_name)
    parsed = parse_signature(signature, jit_of(fn)) if signature else stored
    launch = None
    if spec is None and parsed is None:  # how the module itself launched it, where it did so at import
        parsed, launch = _launched_signature(module, fn)
    if spec is None and parsed is None:
        raise ParameterError(
            f"{kernel_name} in {where} declares no KernelSpec; give its argument types with "
            f"--signature, e.g. --signature {signature_template(jit_of(fn))!r} (fill in each ?)"
        )
    if signature and parsed:
        _note_constants(jit_of(fn), parsed)
    if path is None:
        kernel = kind(fn, str(Path(jit_of(fn).fn.__code__.co_filename)), None if parsed else spec, parsed)
    else:
        kernel = _found(kind(fn, str(path), None if parsed else spec, parsed))
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


MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def kernel_in_module(
    module_name: str,
    kernel_name: str | None,
    signature: str | None,
    stored: tuple[SignatureArg, ...] | None = None,
) -> TritonKernel:
    """A kernel of an installed package, named the way Python names it (``liger_kernel.ops.rms_norm``).

    The module is imported by that name, as the package itself imports it (its package's
    ``__init__`` first, relative imports resolved): the user named it, which is their say-so to
    run it. Without a GPU, the stand-in answers while it is imported (a library sizes its
    configs from the device at import).
    """
    module = load_package_module(module_name)
    kernel = _kernel_of(
        module, module_name, kernel_name, signature, stored, lambda specs, fns: list(specs) or list(fns)
    )
    kernel.module = module_name
    return kernel


def load_package_module(name: str) -> Any:
    """Import module ``name`` as Python does, once per process; errors as one line. Without a GPU the stand-in
    answers while it runs (gpu_free.py), and what it could not answer is noted on stderr."""
    if name in sys.modules:
        return sys.modules[name]
    with contextlib.redirect_stdout(sys.stderr):
        if gpu_capability() is not None:
            return _import_named(name)
        gpu, probes = stand_in_gpu(DEFAULT_CAPABILITY), Probes()
        try:
            with gpu_free_import(gpu, True, probes=probes) as launches:
                module = _import_named(name)
        finally:
            for line in probes.lines():
                sys.stderr.write(f"irscope: note: importing {name} asked the stand-in {gpu.model.name}: {line}\n")
        setattr(module, LAUNCHES, launches)
        return module


def _import_named(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise KernelNotFound(
                f"no module named {exc.name!r} (not a kernel file either); is its package installed in this Python?"
            ) from None
        raise KernelFileError(f"error importing {name}: {said(exc)}") from exc
    except SyntaxError as exc:
        raise KernelFileError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise KernelFileError(f"error importing {name}: {said(exc)}") from exc


def kernel_with_signature(
    path: Path, name: str, signature: tuple[SignatureArg, ...], kind: type[TritonKernel] = TritonKernel
) -> TritonKernel:
    """A kernel compiled from a stored signature (a session of an Inductor kernel, say)."""
    fn = _jit_functions(load_module(path)).get(name)
    if fn is None:
        raise KernelNotFound(f"no @triton.jit kernel named {name!r} in {path}")
    return kind(fn, str(path), None, signature)


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
        # torch.cuda's queries are answered from the moment torch is imported (by the file, or by a library
        # it imports): a file that never imports torch does not pay the second it takes.
        gpu, probes = stand_in_gpu(DEFAULT_CAPABILITY), Probes()
        importing = gpu_free_import(gpu, True, probes=probes)
        with importing as launches, triton_cache_for(str(module.__file__)):
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
                for line in probes.lines():
                    sys.stderr.write(f"irscope: note: {module.__file__} asked the stand-in {gpu.model.name}: {line}\n")
