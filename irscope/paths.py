"""Where irscope's files are: its cache, the built-in kernels and the recorded samples.

The one place that knows these paths. The built-in kernels and the samples live in
the repository's top-level ``kernels/`` and ``samples/`` folders; the build maps them
into the package as ``irscope.builtin_kernels`` and ``irscope.samples`` (see
``[tool.setuptools.package-dir]`` in pyproject.toml), so a wheel carries them too.
They are found through ``importlib.resources`` because a path built from
``__file__`` and ``..`` only ever pointed at them from a checkout: installed from a
wheel, irscope had no built-in kernels and no samples.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path


def cache_dir() -> Path:
    """``$IRSCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/irscope``, else ``~/.cache/irscope``."""
    root = os.environ.get("IRSCOPE_CACHE_DIR")
    if root:
        return Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "irscope"


# The cache's sections, each a folder of cache_dir() (``irscope cache`` shows them, and trims the first three):
CAPTURES = "variants"  # captured variants, variants/<2 hex>/<key>/ (capturing/cache.py)
TRACES = "tritonparse"  # tritonparse traces read into sessions, tritonparse/<digest>-v<N>/ (interop/tritonparse)
TRITON_CACHES = "triton-caches"  # Triton's cache and dump folders read into sessions, <digest>-v<N>/ (interop)
INDUCTOR_FILES = "inductor"  # Inductor's kernels as files, inductor/<digest>/ (interop/inductor)
TRITONS = "tritons"  # private Tritons for -c triton=X, tritons/<version>/ (frontends/triton/environments.py)
DEVICES = "devices"  # measured copy bandwidth per GPU (measure/hardware.py)
CUDA_SOURCES = "cuda-sources"  # CUDA C++ given as strings, written for nvcc, <hash>.cu (frontends/cuda/kernel.py)
BYTECODE = "bytecode"  # workers' .pyc files where torch's install keeps none (own_python.bytecode_prefix)


def _package_dir(package: str) -> Path:
    # A real directory, not just a Traversable: Triton compiles a kernel from its file
    # on disk and a session is read as a directory tree. An install into site-packages
    # gives one, and so does an editable install (the package is then the checkout's
    # folder). Zipped installs (zipimport, .pyz) are not supported.
    root = files(package)
    if not isinstance(root, Path):
        raise RuntimeError(f"{package} is not a directory on disk ({root!r}): irscope cannot run from a zipped install")
    return root


def builtin_kernels_dir() -> Path:
    """The built-in example kernels (the repository's ``kernels/``)."""
    return _package_dir("irscope.builtin_kernels")


def samples_dir() -> Path:
    """Artifacts recorded on real GPUs (the repository's ``samples/``)."""
    return _package_dir("irscope.samples")


def runtime_samples_dir() -> Path:
    """Runtimes recorded on real GPUs, one JSON file per kernel and device."""
    return samples_dir() / "runtimes"
