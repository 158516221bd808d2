"""Inside a program ``irscope run`` runs: each Helion config the program compiles, recorded as Helion binds it.

A ``@helion.kernel`` call binds the kernel to its arguments (a ``BoundKernel``), picks a config and
compiles it with ``BoundKernel.compile_config``: Helion's ``to_triton_code`` gives a Triton module,
loaded through PyTorch's ``PyCodeCache``, whose host function launches the Triton kernel in it. Triton's
own hooks (triton/listen.py) record that launch's compile as they record any, under the generated
kernel's name (``_helion_<name>``) and the module's path. What only Helion knows is recorded here, after
each ``compile_config`` returns: the Helion kernel's name and file, the config as Helion normalized it
(every field: the key of Helion's own compile cache), the example arguments' dtypes and shapes (the
``-S`` of ``irscope dump``) and the path of the module it loaded, which names the Triton compile that
is this config's. ``compile_config`` is wrapped where Helion defines it when the program imports
``helion.runtime.kernel`` (a program that never does pays nothing); the call goes through unchanged,
its result and its errors the program's own. collect.py makes one Helion session of each kernel.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from ..after_import import once_imported
from ..triton.listen import _write, file_text  # atomic, and no irscope import beyond the recorders'

FOLDER = "helion"
FORMAT = "irscope.helion-config/1"
MODULE = "helion.runtime.kernel"


class HelionRecorder:
    def __init__(self, raw: Path) -> None:
        self.raw = Path(raw)
        self.count = 0
        self.seen: set[tuple[str, str]] = set()  # (module file, config) recorded already

    def install(self) -> None:
        once_imported(MODULE, self._wrap, _not_recorded)

    def finish(self) -> None:
        """Nothing left to write: each config was written when it compiled."""

    def _wrap(self, module: Any) -> None:
        bound_class = getattr(module, "BoundKernel", None)
        original = getattr(bound_class, "compile_config", None)
        if bound_class is None or original is None or getattr(original, "__irscope_recorded__", False):
            return
        recorder = self

        @functools.wraps(original)
        def compile_config(bound: Any, config: Any = None, **kwargs: Any) -> Any:
            compiled = original(bound, config, **kwargs)
            try:
                recorder.record(bound, config, compiled)
            except Exception as exc:
                sys.stderr.write(f"irscope run: a Helion config is not recorded: {type(exc).__name__}: {exc}\n")
            return compiled

        compile_config.__irscope_recorded__ = True  # type: ignore[attr-defined]
        bound_class.compile_config = compile_config

    def record(self, bound: Any, requested: Any, compiled: Any) -> None:
        fn = bound.kernel.fn
        module_file = compiled.__code__.co_filename  # the host function, defined in the module PyCodeCache loaded
        config = _config_of(bound, requested, compiled)
        key = (module_file, json.dumps(config, sort_keys=True))
        if key in self.seen:
            return
        self.seen.add(key)
        file = fn.__code__.co_filename
        data = {
            "format": FORMAT,
            "kernel": fn.__name__,
            "file": file,
            "source": self._save_source(file),
            # The module as PyCodeCache wrote it: to_triton_code's text, byte for byte (linecache, which Triton's
            # recorder reads through, would add a newline at its end)
            "generated": self._save_text(Path(module_file).read_text(encoding="utf-8")),
            "arguments": _arguments(bound.fake_args),
            "config": config,
            "module": module_file,
        }
        self.count += 1
        folder = self.raw / FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        _write(folder / f"{self.count:04d}.json", json.dumps(data, indent=1))

    def _save_source(self, file: str) -> str | None:
        """The Helion file's text as the program ran it, under ``sources/`` as Triton's recorder keeps its files."""
        text = file_text(file)
        return self._save_text(text) if text is not None else None

    def _save_text(self, text: str) -> str:
        name = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:24] + ".py"
        (self.raw / "sources").mkdir(parents=True, exist_ok=True)
        if not (self.raw / "sources" / name).exists():
            _write(self.raw / "sources" / name, text)
        return f"sources/{name}"


def _config_of(bound: Any, requested: Any, compiled: Any) -> dict[str, Any]:
    """The config Helion compiled, every field: the key its compile cache holds ``compiled`` under (the config as
    ``config_spec.normalized_config`` made it); the requested one normalized where that cache is not there."""
    for config, held in dict(getattr(bound, "_compile_cache", {})).items():
        if held is compiled:
            return _plain(dict(config))
    import helion

    if requested is None:
        raise ValueError("no config was named and Helion's compile cache does not hold this one")
    given = requested if isinstance(requested, helion.Config) else helion.Config(**dict(requested))
    return _plain(dict(bound.config_spec.normalized_config(given)))


def _plain(value: Any) -> Any:
    """A config value as JSON: numbers, words, booleans, None and lists of them (Helion's own are these)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _arguments(args: Any) -> str:
    """The bound arguments in ``-S``'s words (``float16[128,512], float32``): what ``irscope dump`` binds again."""
    import torch

    out = []
    for value in args:
        if isinstance(value, torch.Tensor):
            out.append(f"{str(value.dtype).removeprefix('torch.')}[{','.join(str(int(d)) for d in value.shape)}]")
        elif isinstance(value, (bool, torch.SymBool)):
            out.append("bool")
        elif isinstance(value, (int, torch.SymInt)):
            out.append("int64")
        elif isinstance(value, (float, torch.SymFloat)):
            out.append("float32")
        else:
            out.append(type(value).__name__)  # not an argument -S describes: collect.py says so
    return ", ".join(out)


def _not_recorded(exc: Exception) -> None:
    sys.stderr.write(f"irscope run: Helion configs are not recorded: {type(exc).__name__}: {exc}\n")
