"""A cache of captured variants, keyed on everything that changes the output.

The key covers the kernel file's text and Triton's dependency hash of the kernel
(so an edited helper in another file still invalidates), the config, the target,
Triton's version and the environment variables that steer code generation. Not
the capture mode: ahead of time and through the JIT, the IR is the same (a GPU
test holds irscope to that). A hit is read straight from disk: no Triton compile,
no torch.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..errors import SessionError
from ..kernel import KernelRef
from ..paths import cache_dir as default_cache_dir  # the rule lives in paths; the name stays importable here
from ..store import read_variant, write_variant
from ..types import Config, Variant

CACHE_VERSION = 5  # bump when what a capture stores changes

# Environment variables that change what Triton generates (see triton/knobs.py).
CODEGEN_ENV = (
    "TRITON_F32_DEFAULT", "TRITON_DEFAULT_FP_FUSION", "TRITON_DISABLE_LINE_INFO", "TRITON_OVERRIDE_ARCH",
    "TRITON_DEBUG", "TRITON_INSTRUMENTATION_MODE", "TRITON_KERNEL_OVERRIDE", "TRITON_OVERRIDE_DIR",
    "TRITON_ENABLE_ASAN", "TRITON_LIBDEVICE_PATH", "TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH",
    "TRITON_MOCK_PTX_VERSION", "DISABLE_PTXAS_OPT", "PTXAS_OPTIONS", "LLVM_EXTRACT_DI_LOCAL_VARIABLES",
    "TRITON_NVDISASM_PATH", "USE_IR_LOC",
)


class CaptureCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()

    def key(self, ref: KernelRef, config: Config, arch: str) -> str:
        import triton
        from triton._C.libtriton import get_cache_invalidating_env_vars

        env = {k: os.environ[k] for k in CODEGEN_ENV if k in os.environ}
        env.update(get_cache_invalidating_env_vars())
        material = {
            "version": CACHE_VERSION,
            "file": ref.file,
            "file_sha": _file_sha(ref.file),
            "kernel": ref.name,
            "triton_hash": ref.fn.cache_key,
            "signature": None if ref.signature is None else [vars(a) for a in ref.signature],
            "config": config.key(),
            "arch": arch,
            "triton": triton.__version__,
            "env": sorted(env.items()),
        }
        return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()

    def _dir(self, key: str) -> Path:
        return self.root / "variants" / key[:2] / key

    def get(self, key: str) -> Variant | None:
        path = self._dir(key)
        if not (path / "variant.json").exists():
            return None
        try:
            return read_variant(path)
        except (SessionError, OSError):
            return None  # a damaged entry is a miss; the next capture rewrites it

    def put(self, key: str, variant: Variant) -> None:
        try:
            write_variant(self._dir(key), variant)
        except OSError:
            pass  # a read-only or full cache must not fail the capture


def _file_sha(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""
