"""Importing a user's Python file by its path: once per process, under a name no other file shares.

Triton kernel files, Numba kernel files and the CudaSpec files beside ``.cu`` files
are all run this way (the user named them). The module is in ``sys.modules`` while
it runs, as a normal import's is (``@dataclass`` and Triton look modules up by name),
and taken out again if it fails; a failure is one line naming the file's own line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import KernelFileError, exception_line
from .registry import install_hint


def module_name(prefix: str, path: Path) -> str:
    """``prefix_<stem>_<digest of the resolved path>``: two files never share one."""
    resolved = Path(path).resolve()
    return f"{prefix}_{resolved.stem}_{hashlib.sha256(str(resolved).encode()).hexdigest()[:8]}"


def import_file(path: Path, prefix: str, what: str, run: Callable[[Any, Any], None] | None = None) -> Any:
    """The module ``path`` defines, imported the first time it is asked for.

    ``run(loader, module)`` executes it (default: the loader's ``exec_module``); ``what``
    names the file in an error (``kernel file``, ``spec file``).
    """
    name = module_name(prefix, path)
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise KernelFileError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        (run or _exec)(spec.loader, module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise KernelFileError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except KeyboardInterrupt:
        sys.modules.pop(name, None)
        raise
    except BaseException as exc:  # sys.exit() or a BaseException of its own in the file is its error too
        sys.modules.pop(name, None)
        own = {str(path), str(Path(path).resolve())}
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in own]
        where = f"{path}:{frames[-1].lineno}" if frames else str(path)
        hint = install_hint(exc)
        raise KernelFileError(f"{where}: error importing {what}: {said(exc)}" + (f" ({hint})" if hint else "")) from exc
    return module


def _exec(loader: Any, module: Any) -> None:
    loader.exec_module(module)


def said(exc: BaseException) -> str:
    """``Type: first line``, even for an exception whose message cannot be made."""
    try:
        return exception_line(exc)
    except Exception:
        return type(exc).__name__
