"""The facts ``irscope check`` gates a variant on, taken from its resources, its listings and its findings."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..annotating.findings import findings, kernel_occupancy
from ..ir.dialects import normalize, stage_stats
from ..types import Stage, Variant

NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Facts:
    """One variant, as a gate sees it. ``None``: not known for this variant (an AMD kernel's occupancy,
    a failed compile's registers). Widths are the distinct bytes per thread of its global accesses,
    widest first; ``listings`` the SHA-256 of each stage's normalised lines; ``findings`` its warnings,
    each as its kind and title with the numbers written ``N`` (a spill of 64 bytes and of 128 bytes is one
    finding: how much is the spills condition's)."""

    ok: bool = True
    error: str = ""
    compiler: str = ""  # "triton 3.6.0": shown beside a change, never compared
    registers: int | None = None
    spills: int | None = None  # bytes spilled (stores + loads); AMD: registers spilled
    shared: int | None = None  # bytes a block asks for
    warps_per_sm: int | None = None
    load_widths: tuple[int, ...] = ()
    store_widths: tuple[int, ...] = ()
    listings: dict[str, str] = field(default_factory=dict)
    findings: tuple[str, ...] = ()
    runtime_us: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "error": self.error,
            "compiler": self.compiler,
            "registers": self.registers,
            "spills": self.spills,
            "shared": self.shared,
            "warps_per_sm": self.warps_per_sm,
            "load_widths": list(self.load_widths),
            "store_widths": list(self.store_widths),
            "listings": dict(sorted(self.listings.items())),
            "findings": sorted(self.findings),
            "runtime_us": self.runtime_us,
        }


def listing_hash(stage: Stage, text: str) -> str:
    """SHA-256 of ``text``'s normalised lines: what a diff compares, so locations and renumbering never count."""
    lines = normalize(stage, text)
    return hashlib.sha256("\n".join(line.text for line in lines).encode("utf-8", "surrogatepass")).hexdigest()


def finding_key(kind: str, title: str) -> str:
    return f"{kind}: {NUMBER.sub('N', title)}"


def variant_facts(variant: Variant, runtime_us: float | None = None) -> Facts:
    """``variant``'s facts; a failed compile keeps only that it failed and why."""
    compiler = variant.compile_info.compiler if variant.compile_info else ""
    if not variant.ok:
        return Facts(ok=False, error=str(variant.error or "did not compile")[:300], compiler=compiler)
    r = variant.resources
    spills = None
    if r is not None and r.sgprs is not None:  # an AMD kernel's: registers spilled
        spills = (r.vgpr_spills or 0) + (r.sgpr_spills or 0)
    elif r is not None and (r.spill_stores is not None or r.spill_loads is not None):
        spills = (r.spill_stores or 0) + (r.spill_loads or 0)
    occ = kernel_occupancy(variant)
    machine = Stage.AMDGCN if Stage.AMDGCN in variant.listings else Stage.PTX
    widths: dict[str, tuple[int, ...]] = {"load": (), "store": ()}
    warnings: tuple[str, ...] = ()
    if machine in variant.listings:
        stats = stage_stats(machine, variant.listings[machine], False)
        for kind in widths:
            widths[kind] = tuple(sorted({a.bytes for a in stats.global_accesses if a.kind == kind and a.bytes}))[::-1]
        warnings = tuple(
            sorted({finding_key(f.kind, f.title) for f in findings(variant, machine) if f.severity == "warn"})
        )
    return Facts(
        ok=True,
        compiler=compiler,
        registers=r.registers if r else None,
        spills=spills,
        shared=r.shared if r else None,
        warps_per_sm=occ.warps if occ else None,
        load_widths=widths["load"],
        store_widths=widths["store"],
        listings={s.value: listing_hash(s, text) for s, text in variant.listings.items()},
        findings=warnings,
        runtime_us=runtime_us,
    )
