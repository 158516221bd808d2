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
import re
from importlib.resources import files
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """``$IRSCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/irscope``, else ``~/.cache/irscope``."""
    root = os.environ.get("IRSCOPE_CACHE_DIR")
    if root:
        return Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "irscope"


_PRIVATE_TEMP: list[str] = []  # the folder the running command made for itself and its workers (cli/__init__.py)


def keep_private_temp_folder(folder: str | None) -> None:
    """Note (or, with None, forget) the private temporary folder this command made: a process that must end
    without its command's own exit (tui/stopping.py) removes exactly that one."""
    _PRIVATE_TEMP[:] = [folder] if folder else []


def private_temp_folder() -> str | None:
    return _PRIVATE_TEMP[0] if _PRIVATE_TEMP else None


def triton_cache_dir() -> Path:
    """Triton's own cache, as Triton finds it (its ``knobs.cache.dir``, without importing Triton: a second):
    ``$TRITON_CACHE_DIR``, else ``$TRITON_HOME/.triton/cache``, else ``~/.triton/cache``."""
    root = os.environ.get("TRITON_CACHE_DIR")
    if root:
        return Path(root)
    return Path(os.environ.get("TRITON_HOME") or os.path.expanduser("~/")) / ".triton" / "cache"


# irscope's folder inside Triton's cache: Triton's compiles of a kernel file, one folder per file path,
# IN_TRITON_CACHE/<path digest>/<Triton's key>/ (frontends/triton/compile.py, triton_cache_for).
IN_TRITON_CACHE = "irscope"

# The cache's sections, each a folder of cache_dir() (``irscope cache`` shows them, and trims all but tritons):
CAPTURES = "variants"  # captured variants, variants/<2 hex>/<key>/ (capturing/cache.py)
TRACES = "tritonparse"  # tritonparse traces read into sessions, tritonparse/<digest>-v<N>/ (interop/tritonparse)
TRITON_CACHES = "triton-caches"  # Triton's cache and dump folders read into sessions, <digest>-v<N>/ (interop)
INDUCTOR_FILES = "inductor"  # Inductor's kernels as files, inductor/<digest>/ (interop/inductor)
SESSIONS = "sessions"  # sessions irscope.sweep() keeps when given no out=, sessions/<kernel>-<source hash>/ (api.py)
TRITONS = "tritons"  # private Tritons for -c triton=X, tritons/<version>/ (frontends/triton/environments.py)
DEVICES = "devices"  # measured copy bandwidth per GPU (measure/hardware.py)
CUDA_SOURCES = "cuda-sources"  # CUDA C++ given as strings, written for nvcc, <hash>.cu (frontends/cuda/kernel.py)
TRITON_KEYS = "triton-keys"  # Triton's hash of itself, for workers, <fingerprint>.json (frontends/triton/source_key.py)
BYTECODE = "bytecode"  # workers' .pyc files where torch's install keeps none (own_python.bytecode_prefix)


def shown_file(path: str) -> str:
    """How a kernel's file is named to its user: its file name (``square.py``), or, for a kernel defined in a
    notebook cell, the cell (``In [3]``) rather than the name IPython made up for it (``4062991958.py``,
    ipykernel's hash of the cell's text under ``/tmp/ipykernel_<pid>/``; ``<ipython-input-3-…>`` in a plain
    IPython shell). The cell's number is found in the running IPython's history, by asking its compiler which
    name each cell got; a cell no longer in it (another kernel's session) is ``a notebook cell (4062991958.py)``."""
    name = os.path.basename(path)
    plain = re.fullmatch(r"<ipython-input-(\d+)-[0-9a-f]+>", path)
    if plain is not None:
        return f"In [{plain[1]}]"
    if not (re.fullmatch(r"\d+\.py", name) and os.path.basename(os.path.dirname(path)).startswith("ipykernel_")):
        return name
    import sys

    ipython = sys.modules.get("IPython")
    shell: Any = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        try:
            cells = shell.history_manager.input_hist_raw
            for number in range(len(cells) - 1, 0, -1):  # the latest run of a cell's text is the one defining it
                if shell.compile.get_code_name(cells[number], cells[number], number) == path:
                    return f"In [{number}]"
        except Exception:  # an IPython without these: the file's name, said to be a cell's
            pass
    return f"a notebook cell ({name})"


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
