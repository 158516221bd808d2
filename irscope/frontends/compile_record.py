"""Inside a program ``irscope run`` runs: a CuTe DSL or TileLang compile it makes, compiled again through
irscope's frontend for that language and written to ``raw/language_compiles/`` as data.

Neither library has a hook that sees a compile's arguments: the CuTe DSL's
``register_trace_finalize_hook`` is handed only the traced module and a name, TileLang's
``tilelang_callback_cuda_postproc`` only the generated CUDA (and it replaces the program's own
callback). So the compile function is wrapped, in the run's child only, when the program imports
the library (``after_import.py``), and the program's call goes through unchanged: its result, its
cache and its errors are its own. After it returns, the same function with the same arguments is
compiled once more through the frontend's ``Kernel.compile`` (``irscope dump``'s compile: its
switches for line info and kept files are never added to the program's compile, whose PTX would
then differ from what it ran); what that left (``Compiled``: stages, cubin, metadata) is written
here, and collect.py builds the variant as capture does. A compile that fails in the program is
written with its reason. One compile's trouble is one line on stderr, never the program's.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .after_import import AfterImport

FOLDER = "language_compiles"  # raw/language_compiles/NNNN.json and NNNN/ (stage files, kernel.cubin)
RECORD_FORMAT = "irscope.run.compile/1"

_state = threading.local()


@contextlib.contextmanager
def irscopes_own_compile() -> Iterator[None]:
    """irscope's compile through the frontend, inside the program: the wrapped compile lets it through."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1


def programs_compile() -> bool:
    """Is this compile the program's own (not irscope's, made while recording one of them)?"""
    return getattr(_state, "depth", 0) == 0


class CompileRecorder:
    """One language's recorder (``FrontendInfo.recorder``): ``wrap`` installs it on ``module`` once imported."""

    frontend = ""
    module = ""  # imported by the program: then ``wrap`` runs

    def __init__(self, raw: Path, gpu_free: str | None) -> None:
        self.folder = raw / FOLDER
        self.gpu_free = gpu_free  # no GPU: the stand-in card's model (gpu_models.parse_gpu's spelling)
        self._lock = threading.Lock()

    def install(self) -> None:
        module = sys.modules.get(self.module)
        if module is not None:
            self.wrap(module)
        else:
            sys.meta_path.insert(0, AfterImport(self.module, self.wrap, self._not_installed))

    def finish(self) -> None:
        """Nothing left to write: each compile was written when it was made."""

    def wrap(self, module: Any) -> None:
        raise NotImplementedError

    def stand_in_arch(self) -> str | None:
        """The stand-in card's arch, where the program named none (sm_90 for an H100)."""
        if not self.gpu_free:
            return None
        from ..gpu_models import parse_gpu

        return parse_gpu(self.gpu_free).model.arch

    def _not_installed(self, exc: Exception) -> None:
        say(f"{self.frontend} compiles are not recorded: {type(exc).__name__}: {exc}")

    def observe(
        self, call: Callable[[], Any], where: Any, describe: Callable[[], tuple[Any, Any, str]], function: Any
    ) -> Any:
        """Run the program's compile ``call()`` as it is; then record it: ``describe()`` gives the frontend's
        kernel, the config and the arch the program compiled for. ``where``: the calling frame; ``function``:
        the Python function compiled, which names the kernel where ``describe`` cannot."""
        if not programs_compile() or getattr(_state, "inside", False):
            return call()  # irscope's own, or one the program's compile makes inside (@tilelang.jit's)
        _state.inside = True
        try:
            result = call()
        except Exception as exc:
            self._failed(where, describe, function, exc)
            raise
        finally:
            _state.inside = False
        try:
            self._compiled(where, describe, function)
        except Exception as exc:  # irscope's trouble: the program goes on
            say(f"a {self.frontend} compile is not recorded: {type(exc).__name__}: {exc}")
        return result

    # ------------------------------------------------------------------ writing

    def _next(self) -> str:
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            n = 1 + sum(1 for p in self.folder.glob("[0-9]*.json"))
            while (self.folder / f"{n:04d}.json").exists() or (self.folder / f"{n:04d}").exists():
                n += 1
            (self.folder / f"{n:04d}").mkdir()
            return f"{n:04d}"

    def _base(self, where: Any) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "frontend": self.frontend,
            "called_at": {"file": where.f_code.co_filename, "line": where.f_lineno} if where is not None else None,
        }

    def _failed(self, where: Any, describe: Callable[[], tuple[Any, Any, str]], function: Any, exc: Exception) -> None:
        try:
            data = self._base(where)
            try:
                kernel, _, arch = describe()
                data.update(name=kernel.name, file=kernel.file, arch=arch)
            except Exception:  # the name is still worth a line
                data.update(_named(function))
            data["error"] = f"its compile failed in the program: {_one_line(exc)}"
            self._write(self._next(), data, None)
        except Exception as trouble:
            say(f"a failed {self.frontend} compile is not recorded: {type(trouble).__name__}: {trouble}")

    def _compiled(self, where: Any, describe: Callable[[], tuple[Any, Any, str]], function: Any) -> None:
        from ..arch import Target

        stem = self._next()
        data = self._base(where)
        try:
            kernel, config, arch = describe()
        except Exception as exc:
            data.update(_named(function), error=f"irscope could not describe this compile: {_one_line(exc)}")
            self._write(stem, data, None)
            return
        data.update(
            name=kernel.name,
            file=kernel.file,
            arch=arch,
            source=kernel.source(),
            source_hash=kernel.identity().source_hash,
            table=kernel.parameter_table(),
            signature=kernel.handle().extra.get("signature"),
            config=config.to_json(),
        )
        with irscopes_own_compile():
            compiled = kernel.compile(config, Target.for_arch(arch))
        self._write(stem, data, compiled)

    def _write(self, stem: str, data: dict[str, Any], compiled: Any) -> None:
        folder = self.folder / stem
        if compiled is not None:
            stages = {}
            for stage, text in compiled.stages.items():
                name = f"{stage.value}.txt"
                (folder / name).write_text(text, encoding="utf-8", errors="surrogateescape")
                stages[stage.value] = name
            if compiled.cubin is not None:
                (folder / "kernel.cubin").write_bytes(compiled.cubin)
            data["compiled"] = {
                "stages": stages,
                "cubin": "kernel.cubin" if compiled.cubin is not None else None,
                "shared": compiled.shared,
                "options": compiled.options,
                "threads_per_block": compiled.threads_per_block,
                "compiler": compiled.compiler,
                "seconds": compiled.seconds,
                "cubin_resources": compiled.cubin_resources,
                "cluster": list(compiled.cluster) if compiled.cluster else None,
                "error": [compiled.error.stage, compiled.error.message] if compiled.error else None,
            }
        tmp = self.folder / f".{stem}.json.tmp"
        tmp.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
        os.replace(tmp, self.folder / f"{stem}.json")


def _named(function: Any) -> dict[str, str]:
    """The name and file of the Python function a compile was given (unwrapped), as far as it says."""
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    code = getattr(function, "__code__", None)
    return {
        "name": str(getattr(function, "__name__", None) or "?"),
        "file": str(code.co_filename) if code is not None else "",
    }


def _one_line(exc: BaseException) -> str:
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    words = " ".join(ln.strip(" |^") for ln in text.splitlines() if ln.strip(" |^"))
    return f"{type(exc).__name__}: {words}"[:500]


def say(message: str) -> None:
    sys.stderr.write(f"irscope run: {message}\n")
