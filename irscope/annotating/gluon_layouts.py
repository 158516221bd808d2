"""A Gluon kernel's layouts: those its author wrote (the Gluon IR, before any pass) beside what Gluon's passes
made of them (the TTGIR the backend lowers).

In Gluon the author chooses each tensor's layout; Gluon's passes keep a written ``BlockedLayout`` as it is,
resolve a ``CoalescedLayout`` or ``AutoLayout`` into a concrete one (``gluon-infer-coalesced-encodings``,
``gluon-resolve-auto-encodings``) and may add layouts of their own. The encodings are read from both listings:
each ``#alias = #ttg.blocked<...>`` spelled out, and those written inline (``#gluon.coalesced_encoding``), as
the types of the values use them. The ``ttg.convert_layout`` count says how many layout changes the author
wrote and how many are left after the passes (each one a trip through shared memory or shuffles).
"""

from __future__ import annotations

import re

from ..types import Stage, Variant
from .finding import Finding

ALIAS = re.compile(r"^#([\w.]+) = (#[\w.]+(?:<.*>)?)\s*$")
# an encoding a tensor or a shared-memory descriptor is typed with: tensor<1024xi32, #blocked>, memdesc<...>
USED = re.compile(r"(?:tensor|memdesc)<[^<>]*?,\s*(#[\w.]+)")


def encodings(text: str) -> list[str]:
    """The layouts ``text`` types its values with, in first use order, each spelled out."""
    aliases: dict[str, str] = {}
    for line in text.splitlines():
        m = ALIAS.match(line)
        if m and not m[1].startswith("loc"):
            aliases[f"#{m[1]}"] = m[2]
    seen: list[str] = []
    for m in USED.finditer(text):
        name = m[1] + _bracketed(text, m.end())  # inline: #ttg.slice<{dim = 1, parent = #blocked}>
        if name.startswith("#loc"):
            continue
        spelled = _spelled(name, aliases)
        if spelled not in seen:
            seen.append(spelled)
    return seen


def _bracketed(text: str, start: int) -> str:
    """The balanced ``<...>`` at ``start`` ("" where none opens there)."""
    if not text.startswith("<", start):
        return ""
    depth = 0
    for i in range(start, min(len(text), start + 4000)):
        depth += {"<": 1, ">": -1}.get(text[i], 0)
        if depth == 0:
            return text[start : i + 1]
    return ""


def _spelled(encoding: str, aliases: dict[str, str]) -> str:
    """``encoding`` with the aliases it names (a slice's parent) spelled out."""
    if encoding in aliases:
        return _spelled(aliases[encoding], {k: v for k, v in aliases.items() if k != encoding})
    return re.sub(r"#[\w.]+", lambda m: aliases.get(m[0], m[0]), encoding) if "<" in encoding else encoding


def gluon_layout_finding(variant: Variant, stage: Stage) -> list[Finding]:
    written_ir, lowered_ir = variant.listings.get(Stage.GLUON), variant.listings.get(Stage.TTGIR)
    if not written_ir or not lowered_ir:
        return []
    written, lowered = encodings(written_ir), encodings(lowered_ir)
    kept = [e for e in written if e in lowered]
    resolved = [e for e in written if e not in lowered]
    made = [e for e in lowered if e not in written]
    converts = written_ir.count("ttg.convert_layout"), lowered_ir.count("ttg.convert_layout")
    evidence = (
        *(f"written and kept: {e}" for e in kept),
        *(f"written, resolved by Gluon's passes: {e}" for e in resolved),
        *(f"made by Gluon's passes: {e}" for e in made),
        f"ttg.convert_layout: {converts[0]} written, {converts[1]} after Gluon's passes",
    )
    title = f"Gluon layouts: {len(written)} written, {len(kept)} kept as written" + (
        f", {len(resolved)} resolved into {len(made)} the passes made" if resolved or made else ""
    )
    detail = (
        "In Gluon the author chooses each layout (the Gluon IR holds them before any pass); Gluon's passes keep "
        "those written out, resolve a CoalescedLayout or AutoLayout into a concrete one and may add their own "
        "(the TTGIR the backend lowers). " + "; ".join(evidence) + "."
    )
    return [Finding("gluon-layouts", "info", title, detail, stage, (), evidence)]


__all__ = ["encodings", "gluon_layout_finding"]
