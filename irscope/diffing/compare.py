"""One operation, several implementations: the structure of each compiled kernel side by side.

``irscope compare`` puts a Triton kernel, its CUDA C++ and Numba twins (and, on a
GPU, PyTorch eager and torch.compile) in one table: registers, spills, shared
memory, instruction counts, and the global loads and stores by width, which is
what decides bandwidth for the lecture's elementwise kernels (``ld.global.v4``
against four scalar loads). Counted in the kernel's own function only: nvcc's
listing holds every kernel of its ``.cu`` file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..ir.dialects import stage_stats
from ..types import Stage, Variant


@dataclass
class Structure:
    """What a kernel's compile looks like, in numbers a kernel engineer compares."""

    registers: int | None = None
    spills: int | None = None
    shared: int | None = None
    ptx_instructions: int | None = None
    sass_instructions: int | None = None
    loads: Counter = field(default_factory=Counter)  # bytes per thread per access -> count (SASS)
    stores: Counter = field(default_factory=Counter)
    cluster: str | None = None  # a cluster launch's shape, "2x1x1"

    def to_json(self) -> dict[str, Any]:
        return {
            "registers": self.registers,
            "spills": self.spills,
            "shared_bytes": self.shared,
            "ptx_instructions": self.ptx_instructions,
            "sass_instructions": self.sass_instructions,
            "global_loads": {str(k): v for k, v in sorted(self.loads.items())},
            "global_stores": {str(k): v for k, v in sorted(self.stores.items())},
            "cluster": self.cluster,
        }


def function_text(stage: Stage, text: str, entry: str | None) -> str:
    """The part of a PTX or SASS listing that is ``entry``'s (the whole listing without one, or if not found)."""
    if not entry:
        return text
    lines = text.splitlines()
    if stage == Stage.PTX:
        start = next((i for i, ln in enumerate(lines) if re.search(r"\.entry\s+" + re.escape(entry) + r"\b", ln)), None)
        boundary = re.compile(r"^\s*(\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s")
    else:
        start = next((i for i, ln in enumerate(lines) if ln.startswith("//") and f".text.{entry} " in ln), None)
        boundary = re.compile(r"^//-+ \.text\.")
    if start is None:
        return text
    end = next((i for i in range(start + 1, len(lines)) if boundary.match(lines[i])), len(lines))
    return "\n".join(lines[start:end])


def structure(v: Variant) -> Structure:
    entry = v.compile_info.options.get("entry") if v.compile_info else None
    res = v.resources
    out = Structure(
        registers=res.registers if res else None,
        spills=res.spill_stores if res else None,
        shared=res.shared if res else None,
        cluster=res.cluster if res else None,
    )
    if Stage.PTX in v.listings:
        out.ptx_instructions = stage_stats(Stage.PTX, function_text(Stage.PTX, v.listings[Stage.PTX], entry)).count
    if Stage.SASS in v.listings:
        stats = stage_stats(Stage.SASS, function_text(Stage.SASS, v.listings[Stage.SASS], entry))
        out.sass_instructions = stats.count
        for access in stats.global_accesses:
            (out.loads if access.kind == "load" else out.stores)[access.bytes or 0] += 1
    return out


def widths(counts: Counter) -> str:
    """``{16: 2, 4: 1}`` -> ``"2x16B 1x4B"``: widest first."""
    return " ".join(f"{n}x{size}B" for size, n in sorted(counts.items(), reverse=True)) or "-"


def implementation_label(language: str, name: str) -> str:
    """``Triton square_kernel``: a kernel named with its language's display name (``FrontendInfo.display_name``)."""
    return f"{language} {name}"
