"""Variants written as a tritonparse trace, so tritonparse's parser and viewer open irscope's captures.

One ``compilation`` event a variant, shaped as tritonparse's own listener writes
them (structured_logging.maybe_trace_triton): the stages under ``file_content``
keyed ``<kernel>.<ext>``, Triton's metadata (hash, target, num_warps, shared,
src_constants ...) and the kernel's Python under ``python_source``. The file is
written atomically; ``.gz`` gives gzip, as tritonparse's parsed output is.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...arch import Target, recorded_wave_size
from ...frontends.triton.options import VENDOR_OPTIONS
from ...stages import Stage
from ...storage.files import write_output
from ...types import Variant

# irscope's stage -> the extension tritonparse keys it by
EXTENSIONS = {
    Stage.TTIR: "ttir",
    Stage.TTGIR: "ttgir",
    Stage.LLIR: "llir",
    Stage.PTX: "ptx",
    Stage.AMDGCN: "amdgcn",
    Stage.SASS: "sass",
}
# one argument of a tt.func that ROCm's JIT found within 2 GB:
# %x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32} loc("x_ptr"(#loc))
RANGED_ARGUMENT = re.compile(r"%([\w.$-]+): [^{},]*\{[^}]*\btt\.pointer_range = 32 : i32\b[^}]*\}")


def compilation_event(variant: Variant, parameters: list[str] | None = None) -> dict[str, Any]:
    """``variant`` as one tritonparse compilation event; ``parameters`` (the kernel's, in order) name constexprs."""
    name = variant.kernel.name
    contents = {
        f"{name}.{ext}": variant.listings[stage] for stage, ext in EXTENSIONS.items() if stage in variant.listings
    }
    # Triton's hash names a compile; irscope's identity of a variant stands in for it (same variant, same hash).
    digest = hashlib.sha256(f"{variant.kernel.source_hash}/{variant.identity()}".encode()).hexdigest()
    info, resources = variant.compile_info, variant.resources
    options = dict(info.options) if info else {}
    target = Target.recorded(variant.arch)
    index = {p: i for i, p in enumerate(parameters or [])}
    # Parameters the JIT made constants (ints equal to 1; None is rarer) are "constexpr" in the signature.
    signature = dict(info.signature) if info else {}
    constants = {p: 1 for p in index if signature.get(p) == "constexpr" and p not in variant.config.constexprs}
    constants.update({k: v for k, v in variant.config.constexprs.items() if k in index})
    attrs: dict[str, list] = {
        f"({index[k]},)": [["tt.divisibility", 16]] for k in (info.divisible_by_16 if info else ()) if k in index
    }
    if target.gfx is not None:  # as Triton's HIPBackend.parse_attr gives a "DS" argument: after its divisibility
        for k in _ranged_arguments(variant.listings.get(Stage.TTIR, "")):
            if k in index:
                attrs.setdefault(f"({index[k]},)", []).append(["tt.pointer_range", 32])
    backend = "hip" if target.gfx is not None else "cuda"
    metadata = {
        "hash": digest,
        "name": name,
        # Triton's GPUTarget and options.arch: ("cuda", 90, 32) and "sm90", or ("hip", "gfx942", 64) and "gfx942"
        "target": {
            "backend": backend,
            "arch": target.gfx or target.capability,
            "warp_size": recorded_wave_size(variant.arch),
        },
        "num_warps": options.get("num_warps"),
        "num_stages": options.get("num_stages"),
        "num_ctas": options.get("num_ctas", 1),
        **{k: v for k, v in options.items() if VENDOR_OPTIONS.get(k) == "amd" and target.gfx is not None},
        "shared": resources.shared if resources else 0,
        "triton_version": (info.compiler.removeprefix("triton ") if info else None),
        "backend_name": backend,
        "arch": target.gfx or f"sm{target.capability}",
        "cache_hit": False,
        "src_constants": {f"({index[k]},)": v for k, v in constants.items()},
        "src_attrs": attrs,
    }
    if resources is not None and resources.registers is not None:
        metadata["n_regs"] = resources.registers
    source = variant.listings.get(Stage.SOURCE, "")
    lines = source.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)  # the blank lines a trace's source has
    payload = {
        "metadata": metadata,
        "file_path": {key: key for key in contents},  # labels: irscope keeps no Triton cache paths
        "file_content": contents,
        "python_source": {
            "file_path": variant.kernel.file,
            "start_line": first + 1,
            "end_line": len(lines),
            "code": "".join(lines[first:]),
        },
    }
    return {
        "event_type": "compilation",
        "pid": os.getpid(),
        "stack": [],
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()),
        "payload": payload,
    }


def _ranged_arguments(ttir: str) -> list[str]:
    """The kernel's arguments its TTIR gives ``tt.pointer_range = 32`` (the first tt.func's)."""
    line = next((line for line in ttir.splitlines() if line.lstrip().startswith("tt.func")), "")
    return RANGED_ARGUMENT.findall(line)


def write_trace(path: Path, variants: Iterable[Variant], parameters: list[str] | None = None) -> int:
    """Write one compilation event per variant that compiled to ``path`` (a file the user named); returns how many."""
    lines = [json.dumps(compilation_event(v, parameters)) + "\n" for v in variants if v.ok]
    text = "".join(lines)
    write_output(Path(path), gzip.compress(text.encode("utf-8"), mtime=0) if str(path).endswith(".gz") else text)
    return len(lines)
