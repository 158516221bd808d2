"""A cache of captured variants, keyed on everything that changes the output.

The key covers the config, the target, and what the kernel's frontend says changes
its compile: for Triton, the kernel file's text, Triton's dependency hash of the
kernel (so an edited helper in another file still invalidates), Triton's version
and the environment variables that steer its code generation. Not the capture
mode: ahead of time and through the JIT, the IR is the same (a GPU test holds
irscope to that). A hit is read straight from disk: no compile, no torch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import SessionError
from ..frontends import Kernel
from ..paths import CAPTURES, cache_dir
from ..storage.variants import read_variant, write_variant
from ..types import Config, Variant
from .housekeeping import mark_used

CACHE_VERSION = 12  # bump when what a capture stores changes (6: checksums; environment faults never cached;
#                    7: static __shared__ bytes in resources.shared; SASS inlined-at chains in
#                    cubins of several kernels; 8: Triton 3.5 to 3.9 supported (frontends/triton/versions.py):
#                    failed variants are cached too, keyed on Triton's version but not irscope's, and before
#                    the adapters every compile on 3.5, 3.7, 3.8 and 3.9 failed, so 7's entries for those
#                    would keep showing the old failure; -S compiles on 3.7 on also hash as the JIT's now;
#                    9: a CUDA kernel's PTX and SASS are its own, not its whole file's; inline chains in full;
#                    10: compile_info.heuristics, the values @triton.heuristics set; compile errors name the
#                    failing code; 11: an AMD variant of a KernelSpec marks its tensors within 2 GB
#                    (tt.pointer_range, the HIP backend's own key): buffer loads, as ROCm's JIT compiles it);
#                    12: resources.cluster, a cluster launch's shape (the PTX's .reqnctapercluster: num_ctas)


class CaptureCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else cache_dir()

    def key(self, kernel: Kernel, config: Config, arch: str) -> str:
        material = {
            "version": CACHE_VERSION,
            "frontend": kernel.frontend,
            "file": kernel.file,
            "kernel": kernel.name,
            # Source hashes, the compiler's version, the environment that steers it: the frontend's to say.
            "kernel_material": kernel.cache_material(),
            "config": config.key(),
            "arch": arch,
        }
        return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()

    def _dir(self, key: str) -> Path:
        return self.root / CAPTURES / key[:2] / key

    def get(self, key: str) -> Variant | None:
        path = self._dir(key)
        if not (path / "variant.json").exists():
            return None
        try:
            variant = read_variant(path)
        except (SessionError, OSError):
            return None  # a damaged entry is a miss; the next capture rewrites it
        mark_used(path)  # irscope cache --trim removes the least recently used first
        return variant

    def put(self, key: str, variant: Variant) -> None:
        try:
            write_variant(self._dir(key), variant)
        except OSError:
            pass  # a read-only or full cache must not fail the capture
