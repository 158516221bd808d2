"""Frontends: the kernel languages irscope compiles, behind one protocol (see base.py).

``FRONTENDS`` (registry.py) is the one list of them; a kernel is found by the file it lives
in (each frontend claims file suffixes) or by its built-in name, or given as a Python object
(objects.py: ``kernel_from_object``). A kernel's parameter table (what ``-c``/``-s`` accept) turns
the user's values into Configs in config.py, the same for every frontend.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import KernelFileError, KernelNotFound
from ..paths import builtin_kernels_dir
from .base import Compiled, Frontend, Kernel, KernelHandle, Launch
from .info import FrontendInfo, OptionSpec
from .objects import kernel_from_object
from .registry import BUILTIN, FRONTENDS, compiler_version, frontend, frontend_info, frontend_infos, register_stages


def frontend_for(path: Path) -> Frontend:
    for name in FRONTENDS:
        fe = frontend(name)
        if path.suffix in fe.suffixes:
            return fe
    known = ", ".join(s for name in FRONTENDS for s in frontend(name).suffixes)
    raise KernelFileError(f"no frontend opens {path.suffix or 'files without a suffix'} files ({path}); known: {known}")


_LOADED: dict[str, Kernel] = {}


def load(handle: KernelHandle) -> Kernel:
    """The kernel a handle names: how worker processes and sessions find a kernel again.

    Kept for the life of the process: a worker gets many jobs for one kernel, and a
    kernel keeps its example inputs between launches.
    """
    key = handle.key()
    if key not in _LOADED:
        _LOADED[key] = frontend(handle.frontend).load(handle)
    return _LOADED[key]


def builtin_kernels() -> list[Kernel]:
    """Every built-in example kernel, in file order (irscope's own frontends', whose examples kernels/ holds)."""
    directory = builtin_kernels_dir()
    return [k for name in BUILTIN for k in frontend(name).builtin(directory)]


def resolve_kernel(name: str, signature: str | None = None, spec_file: str | None = None) -> Kernel:
    """Find ``name``: a built-in kernel, or ``path/to/file[:kernel]``; ``spec_file``: the CudaSpec file to run."""
    kernel = _find_kernel(name, signature)
    return kernel.with_spec_file(Path(spec_file).expanduser()) if spec_file else kernel


def split_kernel_argument(text: str) -> tuple[str, str]:
    """``path/to/file[:kernel]`` -> (path, kernel or ""). The kernel part may hold colons of its own
    (``file.cu:v1::norm``): the path ends at the last colon before which a file stands; where none
    does, at the last colon (so the refusal names the file that is missing)."""
    for i in reversed([i for i, ch in enumerate(text) if ch == ":"]):
        try:
            if Path(text[:i]).expanduser().is_file():
                return text[:i], text[i + 1 :]
        except (OSError, ValueError):  # a name too long for a path, a NUL: no file stands there
            continue
    path_text, sep, kernel_name = text.rpartition(":")
    if not sep or "/" in kernel_name or "." in kernel_name:
        return text, ""
    return path_text, kernel_name


def _find_kernel(name: str, signature: str | None) -> Kernel:
    path_text, kernel_name = split_kernel_argument(name)
    path = Path(path_text).expanduser()
    if _module_named(path_text, name) and not path.exists():
        return _kernel_in_module(path_text, kernel_name or None, signature)
    if path.suffix or "/" in path_text:
        if not path.is_file():
            raise KernelFileError(f"no such kernel file: {path}")
        claimed = next((frontend(n) for n in FRONTENDS if frontend(n).claims(path, kernel_name or None)), None)
        return (claimed or frontend_for(path)).resolve(path.resolve(), kernel_name or None, signature)
    directory = builtin_kernels_dir()
    for frontend_name in BUILTIN:  # the first of that name, as in builtin_kernels(); later frontends not loaded
        for kernel in frontend(frontend_name).builtin_named(directory, name):
            if kernel.name == name:
                return (
                    frontend_for(Path(kernel.file)).resolve(Path(kernel.file), name, signature) if signature else kernel
                )
    known = ", ".join(k.name for k in builtin_kernels())
    raise KernelNotFound(f"unknown kernel {name!r}; built-in kernels: {known} (or give path/to/file.py:kernel_name)")


def _module_named(text: str, whole: str) -> bool:
    """``liger_kernel.ops.rms_norm`` (before ``:NAME``): a module named as Python names it, not a file's path."""
    parts = text.split(".")
    if not ("." in text or ":" in whole) or not all(p.isidentifier() for p in parts):
        return False  # a built-in kernel's name: no frontend loaded to ask for its suffixes (nvcc's, Numba's...)
    suffixes = {s.lstrip(".") for n in FRONTENDS for s in frontend(n).suffixes}
    return len(parts) == 1 or parts[-1] not in suffixes


def _kernel_in_module(module: str, kernel_name: str | None, signature: str | None) -> Kernel:
    """A kernel of an installed package: the frontend of Python kernels that can import a module by name."""
    for name in FRONTENDS:
        fe = frontend(name)
        resolve = getattr(fe, "resolve_module", None)
        if resolve is not None and ".py" in fe.suffixes:
            return resolve(module, kernel_name, signature)
    raise KernelNotFound(f"no frontend opens kernels of Python modules ({module})")


__all__ = [
    "Compiled",
    "FRONTENDS",
    "FrontendInfo",
    "OptionSpec",
    "compiler_version",
    "register_stages",
    "frontend_info",
    "frontend_infos",
    "Frontend",
    "Kernel",
    "KernelHandle",
    "Launch",
    "builtin_kernels",
    "frontend",
    "frontend_for",
    "kernel_from_object",
    "load",
    "resolve_kernel",
]
