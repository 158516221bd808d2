"""What a page's script draws, as JSON-shaped data: a variant's stages with each line's Python line, its
findings, and a session's variants table.

The same data serves every page (a session's report, one variant in a notebook, a run's kernels), so the
page's script is the only code that draws a listing. A stage's map to Python lines travels run-length
coded (``[[line or 0, count], ...]``): a long SASS listing is thousands of lines of one Python line.
"""

from __future__ import annotations

import os
from typing import Any

from ..annotating.findings import Finding, findings
from ..ir.dialects import dialect_of
from ..ir.sourcemap import SourceMap
from ..session import Session
from ..session.table import FACT_COLUMNS, RUNTIME_COLUMNS, cell, note, shown, text, varying
from ..types import Stage, Variant
from .shared_paths import SharedPaths

STAGES = (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS)
FINDING_STAGE = Stage.PTX  # the report's findings are PTX's, as `irscope annotate` shows them first
MAX_CITED_LINES = 200  # a finding about a hot loop may cite thousands of lines; the first ones make the point


def stages_of(variants: list[Variant]) -> list[Stage]:
    """The tabs: Triton's stages, or for another frontend (CUDA C++, Numba) the stages its variants hold."""
    held = {s for v in variants for s in v.listings if s is not Stage.SOURCE}
    if not held or held <= set(STAGES):
        return list(STAGES)
    return [s for s in Stage.compiled() if s in held]


def web_lexers(stages: list[Stage], kernel_file: str) -> dict[str, str]:
    """Each tab's lexer on the page (report.js's LEXERS), by its dialect; the source's by its file's language."""
    suffix = os.path.splitext(kernel_file)[1]
    return {s.value: dialect_of(s, suffix).web_lexer for s in (Stage.SOURCE, *stages)}


def variant_listings(variant: Variant, stages: list[Stage], with_findings: bool = True) -> dict[str, Any]:
    """Each stage's text and its lines' Python lines, why a stage is missing, and the variant's findings."""
    smap = SourceMap(variant)
    listings, own, errors = {}, {}, {}
    for stage in stages:
        if stage not in variant.listings:
            errors[stage.value] = variant.stage_errors.get(stage) or (str(variant.error) if variant.error else "")
            continue
        listings[stage.value] = variant.listings[stage]
        own[stage.value] = _runs(smap.own_lines(stage))
    found: list[Finding] = []
    if with_findings:
        try:
            found = findings(variant, FINDING_STAGE, smap)
        except Exception as exc:  # a listing the fact readers cannot follow: the stages still show
            errors["findings"] = f"findings could not be computed: {exc}"
    return {"listings": listings, "own": own, "errors": errors, "findings": findings_data(found)}


def findings_data(found: list[Finding]) -> list[dict[str, Any]]:
    return [
        {
            "kind": f.kind,
            "severity": f.severity,
            "title": f.title,
            "detail": f.detail,
            "stage": f.stage.value,
            "lines": list(f.lines[:MAX_CITED_LINES]),
            "more_lines": max(0, len(f.lines) - MAX_CITED_LINES),
            "evidence": list(f.evidence),
        }
        for f in found
    ]


def _runs(lines: list[int | None]) -> list[list[int]]:
    out: list[list[int]] = []
    for line in lines:
        value = line or 0
        if out and out[-1][0] == value:
            out[-1][1] += 1
        else:
            out.append([value, 1])
    return out


def variant_data(variant: Variant, paths: SharedPaths, found: list[Finding] | None = None) -> dict[str, Any]:
    """One variant on its own (a notebook's display): no table, no chart; ``found``: findings already made
    (an Annotation's), else the variant's PTX findings."""
    variant = paths.variant(variant)
    stages = stages_of([variant])
    listings = variant_listings(variant, stages, with_findings=found is None)
    if found is not None:
        listings["findings"] = findings_data(found)
    return {
        "kernel": variant.kernel.name,
        "source": variant.listings.get(Stage.SOURCE, ""),
        "stages": [s.value for s in stages],
        "lexers": web_lexers(stages, variant.kernel.file),
        "columns": [],
        "runtime_note": "",
        "variants": [
            {"id": variant.identity(), "label": variant.config.label(), "status": variant.status.value, "cells": []}
            | listings
        ],
    }


def session_data(session: Session, paths: SharedPaths, sample_gpu: str | None = None) -> dict[str, Any]:
    """A session's variants table, runtime chart and every variant's stages and findings."""
    entries = list(session.entries)
    names = varying(entries)
    facts = shown(FACT_COLUMNS, (e.arch for e in entries)) + RUNTIME_COLUMNS
    columns = [{"title": n, "numeric": True} for n in names]
    columns += [{"title": c.title, "numeric": c.numeric} for c in facts]
    columns.append({"title": "note", "numeric": False})
    variants, runtime_sources = [], set()
    read: list[Variant | Exception] = []
    for entry in entries:
        try:
            read.append(session.variant(entry, partial=True))
        except Exception as exc:  # damage in one variant is that row's, the rest still show
            read.append(exc)
    stages = stages_of([v for v in read if isinstance(v, Variant)])
    for entry, variant in zip(entries, read):
        measurement = entry.measurement or _sample(session, entry, sample_gpu)
        if entry.measurement is None and measurement is not None:
            entry = _with(entry, measurement)
        if measurement is not None and measurement.median_us is not None:
            runtime_sources.add(measurement.source or "measured")
        cells = [text(cell(entry, n)) for n in names]  # cell: "arch" is the entry's, not a config value
        cells += [text(cell(entry, c.key)) for c in facts]
        cells.append(note(entry))
        if isinstance(variant, Variant):
            listings = variant_listings(variant, stages)
        else:
            listings = {"listings": {}, "own": {}, "errors": {s.value: str(variant) for s in stages}, "findings": []}
        variants.append(
            {
                "id": entry.id,
                "label": entry.config.label(),
                "status": entry.status.value,
                "cells": cells,
                "median_us": cell(entry, "median_us"),
                **listings,
            }
        )
    data = {
        "kernel": session.kernel.name,
        "source": session.source(),
        "stages": [s.value for s in stages],
        "lexers": web_lexers(stages, session.kernel.file),
        "columns": columns,
        "variants": variants,
        "runtime_note": ("Median kernel time per variant; " + "; ".join(sorted(runtime_sources)))
        if runtime_sources
        else "",
    }
    return paths.data(data)


def _sample(session: Session, entry, gpu: str | None):
    from ..measure.samples import sample_measurement

    try:
        return sample_measurement(session.kernel, entry.config, entry.arch, gpu)
    except Exception:
        return None


def _with(entry, measurement):
    from dataclasses import replace

    return replace(entry, measurement=measurement)
