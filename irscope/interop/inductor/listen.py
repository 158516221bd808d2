"""Inductor's output code in a program ``irscope run`` runs, kept as the program writes or loads it.

When Inductor compiles a graph, Triton compiles its kernels in the program and the
Triton listener keeps them. When it finds the graph in its cache, it loads the
kernels it compiled before and Triton compiles nothing; the output code is still
logged (``Output code: ...`` on its ``output_code`` artifact logger, as
``TORCH_LOGS=output_code`` shows it, cache hits included). A handler on that
logger keeps each module, and at exit the launch config each kernel's autotuner
launched is read from the loaded modules (as ``irscope inductor`` does live).
Nothing of the program changes: the logger's records go only to this handler.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

LOGGER = "torch._inductor.codecache.__output_code"  # torch._logging.getArtifactLogger(codecache, "output_code")
PREFIX = "Output code: \n"


class _Keep(logging.Handler):
    def __init__(self, directory: Path) -> None:
        super().__init__(logging.DEBUG)
        self.directory = directory
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if not message.startswith(PREFIX):
                return
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"{self.count:04d}.py"
            self.count += 1
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(message[len(PREFIX) :], encoding="utf-8")
            os.replace(tmp, path)
        except Exception:
            self.handleError(record)


class OutputCodeListener:
    """Keeps Inductor's output code as it is logged; at exit, hands the kernels it loaded to ``compiles``.

    ``compiles`` is the run's Triton listener (frontends/triton/listen.py): a kernel Inductor
    loaded from its cache was compiled in an earlier process, and its stage files are where
    that compile left them, in Triton's cache, which Inductor restored them to.
    """

    def __init__(self, directory: Path, compiles: Any = None) -> None:
        self.directory = Path(directory)
        self.handler = _Keep(self.directory / "inductor")
        self.compiles = compiles

    def install(self) -> None:
        log = logging.getLogger(LOGGER)
        log.setLevel(logging.DEBUG)  # the artifact is off by default: propagate stays off, nothing is printed
        log.addHandler(self.handler)

    def finish(self) -> None:
        chosen = {}
        codecache = sys.modules.get("torch._inductor.codecache")
        for module in list(getattr(getattr(codecache, "PyCodeCache", None), "modules", None) or []):
            for name, value in list(vars(module).items()):
                launchers = getattr(value, "launchers", None) if name.startswith("triton_") else None
                if launchers and self.compiles is not None:
                    self._loaded(value)
                if launchers:
                    config = launchers[0].config
                    chosen[name] = {
                        "constexprs": {
                            k: v for k, v in dict(config.kwargs).items() if isinstance(v, (int, float, bool, str))
                        },
                        "num_warps": int(config.num_warps),
                        "num_stages": int(config.num_stages),
                    }
        if chosen:
            tmp = self.directory / ".inductor_chosen.json.tmp"
            tmp.write_text(json.dumps(chosen, indent=1), encoding="utf-8")
            os.replace(tmp, self.directory / "inductor_chosen.json")

    def _loaded(self, autotuner: Any) -> None:
        """Each compile an Inductor kernel holds, as Triton's compilation listener would have seen it."""
        from torch._inductor.runtime.cache_dir_utils import triton_cache_dir
        from torch._inductor.runtime.runtime_utils import triton_hash_to_path_key
        from triton.compiler import ASTSource

        for result in list(getattr(autotuner, "compile_results", None) or []):
            try:
                meta, kernel = result.compile_meta, result.kernel
                group = getattr(kernel, "metadata_group", None)
                if not group:  # a statically launched kernel: its files are in Triton's cache, by hash
                    folder = Path(triton_cache_dir(meta.get("device", 0))) / triton_hash_to_path_key(kernel.hash)
                    group = {p.name: str(p) for p in folder.iterdir()} if folder.is_dir() else {}
                metadata_file = next(
                    (p for f, p in group.items() if f.endswith(".json") and not f.startswith("__")), None
                )
                if metadata_file is None:
                    continue
                metadata = json.loads(Path(metadata_file).read_text())
                src = ASTSource(autotuner.fn, meta["signature"], meta["constants"], meta["configs"][0])
                self.compiles.compiled(src, metadata, group, None, True)
            except Exception as exc:
                self.compiles._error(f"an Inductor kernel's compile was not found: {type(exc).__name__}: {exc}")
