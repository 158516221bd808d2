"""Inside a program ``irscope run`` runs: what each ``load_inline`` call compiles, recorded as it is made.

The lecture builds its CUDA square with ``torch.utils.cpp_extension.load_inline``; a
program may build its sources at run time (formatted strings, files it reads), which
reading the file cannot see. ``load_inline`` is wrapped where torch defines it (when
the program imports ``torch.utils.cpp_extension``, not before: a program that never
does pays nothing), and each call's name, CUDA sources, nvcc flags and the line that
made it are written to ``raw/load_inline/`` before torch builds the extension. The
call itself goes through unchanged, its result and its errors the program's own.
collect.py compiles the recorded device code with irscope's CUDA frontend.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..after_import import once_imported

FOLDER = "load_inline"
MODULE = "torch.utils.cpp_extension"


class LoadInlineRecorder:
    def __init__(self, raw: Path) -> None:
        self.folder = raw / FOLDER
        self.calls = 0

    def install(self) -> None:
        once_imported(MODULE, self._wrap, _not_recorded)

    def finish(self) -> None:
        """Nothing left to write: each call was written when it was made."""

    def _wrap(self, module: Any) -> None:
        original = getattr(module, "load_inline", None)
        if original is None or getattr(original, "__irscope_recorded__", False):
            return
        recorder = self

        @functools.wraps(original)
        def load_inline(*args: Any, **kwargs: Any) -> Any:
            try:
                recorder.record(original, args, kwargs, sys._getframe(1))
            except Exception as exc:
                sys.stderr.write(f"irscope run: a load_inline call is not recorded: {type(exc).__name__}: {exc}\n")
            return original(*args, **kwargs)

        load_inline.__irscope_recorded__ = True  # type: ignore[attr-defined]
        module.load_inline = load_inline

    def record(self, original: Callable[..., Any], args: tuple, kwargs: dict, caller: Any) -> None:
        bound = inspect.signature(original).bind_partial(*args, **kwargs).arguments
        sources = bound.get("cuda_sources")
        if sources is None:
            return  # C++ only: nothing for the GPU
        sources = [sources] if isinstance(sources, str) else [str(s) for s in sources]
        flags = bound.get("extra_cuda_cflags") or []
        self.calls += 1
        data = {
            "name": str(bound.get("name", "")),
            "cuda_sources": sources,
            "extra_cuda_cflags": [str(f) for f in flags],
            "file": caller.f_code.co_filename,
            "line": caller.f_lineno,
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.calls:04d}.json"
        tmp = self.folder / f".{self.calls:04d}.json.tmp"
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, path)


def _not_recorded(exc: Exception) -> None:
    sys.stderr.write(f"irscope run: load_inline calls are not recorded: {type(exc).__name__}: {exc}\n")
