"""``irscope --version``: irscope and what it runs on (Python, Triton, torch and its CUDA or ROCm, the GPU).

Asked to report a bug, that is the first thing wanted, and ``--version`` must stay instant: nothing here
imports Triton or torch (a second each) or starts CUDA. Versions come from the installed packages'
metadata; torch's CUDA or ROCm from its ``torch/version.py``, read as data with ``ast`` (torch writes
it at build time: ``cuda = '12.8'``, ``hip = None``); the GPU from NVML (the driver's management
library, ~10 ms; libcuda's cuInit only where NVML cannot tell) or the amdgpu driver's topology.
"""

from __future__ import annotations

import ast
import importlib.util
import platform
from importlib import metadata
from pathlib import Path


def version_lines() -> list[str]:
    return [
        f"irscope {_version('irscope') or 'unknown'}",
        f"Python {platform.python_version()} ({platform.machine()}, {platform.system()})",
        _triton_line(),
        _torch_line(),
        _gpu_line(),
    ]


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _triton_line() -> str:
    from ..frontends import frontend_info

    tested = frontend_info("triton").tested_releases
    found = _version("triton")
    if found is None:
        return f"triton: not installed (irscope is tested with {tested})"
    return f"triton {found} (irscope is tested with {tested})"


def _torch_line() -> str:
    found = _version("torch")
    if found is None:
        return "torch: not installed (pip install irscope[torch] to time kernels)"
    built = torch_build()
    if built.get("cuda"):
        return f"torch {found} (CUDA {built['cuda']})"
    if built.get("hip"):
        return f"torch {found} (ROCm/HIP {built['hip']})"
    return f"torch {found} (CPU only: built without CUDA or ROCm)"


def torch_build() -> dict[str, str | None]:
    """``cuda`` and ``hip`` of the installed torch's ``torch/version.py``, read without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return {}
    if spec is None or not spec.submodule_search_locations:
        return {}
    out: dict[str, str | None] = {}
    for folder in spec.submodule_search_locations:
        try:
            tree = ast.parse((Path(folder) / "version.py").read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
            continue
        for node in tree.body:
            target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            value = getattr(node, "value", None)
            if isinstance(target, ast.Name) and target.id in ("cuda", "hip") and isinstance(value, ast.Constant):
                out[target.id] = value.value if isinstance(value.value, str) else None
        break
    return out


def _gpu_line() -> str:
    import os

    from ..nvidia.device import amd_gpu_arch, gpu_capability, gpu_count, gpu_names

    if os.environ.get("IRSCOPE_NO_GPU"):
        return "GPU: none (IRSCOPE_NO_GPU is set)"
    names, driver = gpu_names()
    if names:
        counted = ", ".join(f"{n}x {name}" if n > 1 else name for name, n in _counted(names))
        return f"GPU: {counted}" + (f" (driver {driver})" if driver else "")
    capability = gpu_capability()
    if capability is not None:
        count = gpu_count()
        return f"GPU: {count} CUDA GPU{'s' if count != 1 else ''}, sm_{capability}"
    amd = amd_gpu_arch()
    if amd is not None:
        return f"GPU: AMD {amd}"
    return "GPU: none found (no CUDA or ROCm driver answered): irscope compiles ahead of time, bench needs one"


def _counted(names: list[str]) -> list[tuple[str, int]]:
    out: dict[str, int] = {}
    for name in names:
        out[name] = out.get(name, 0) + 1
    return list(out.items())
