"""irscope's objects shown in a notebook: a variant, a diff, a session and findings, each as the report's
own page (page.py), not a second renderer.

``html(obj)`` is a notebook output: the whole page inside ``<iframe sandbox="allow-scripts" srcdoc=...>``.
A frame of its own keeps the page's styles and element ids from meeting the notebook's (or another
output's), and sandboxed without ``allow-same-origin`` its script runs in an origin of its own, with no
reach into the notebook. ``srcdoc`` is one attribute, escaped with ``html.escape(quote=True)``: no
quote, ``<`` or ``&`` of a listing can end it. ``page(obj)`` is the page alone, to save as a file.
"""

from __future__ import annotations

import html as _html
from typing import Any

from ..annotating import Annotation
from ..annotating.findings import Finding
from ..diffing import VariantDiff
from ..session import Session
from ..types import Variant, plural
from .diff_html import diff_section
from .html import SESSION_PARTS, session_title
from .page import Parts, render_page
from .payload import findings_data, session_data, variant_data
from .shared_paths import SharedPaths

DISPLAYED = (Variant, VariantDiff, Session, Annotation, list)  # a list: of Findings
VARIANT_PARTS = Parts(stages=True, findings=True)
HEIGHTS = {"variant": 900, "session": 1500, "findings_row": 110, "diff_line": 18}


def page(obj: Any) -> str:
    """The full self-contained page for a Variant, VariantDiff, Session, Annotation or list of Findings."""
    if isinstance(obj, Variant):
        return _variant_page(obj)
    if isinstance(obj, Annotation):
        return _variant_page(obj.variant, obj.findings, f"annotated {obj.stage.value.upper()}")
    if isinstance(obj, VariantDiff):
        return _diff_page(obj)
    if isinstance(obj, Session):
        paths = SharedPaths(obj.kernel.file)
        title, about = session_title(obj, paths)
        return render_page(title, about, session_data(obj, paths), SESSION_PARTS)
    if isinstance(obj, (list, tuple)) and all(isinstance(f, Finding) for f in obj):
        data: dict[str, Any] = {
            "kernel": "",
            "source": "",
            "stages": [],
            "columns": [],
            "variants": [],
            "runtime_note": "",
        }
        data["findings"] = findings_data(list(obj))
        return render_page(f"irscope · {plural(len(obj), 'finding')}", "", data, Parts(findings=True))
    raise TypeError(
        f"irscope displays a Variant, VariantDiff, Session, Annotation or list of Findings, not {type(obj).__name__}"
    )


def html(obj: Any) -> str:
    """A notebook output: ``page(obj)`` in a sandboxed frame of a height that suits it."""
    text = page(obj)
    return (
        f'<iframe sandbox="allow-scripts" srcdoc="{_html.escape(text, quote=True)}" '
        f'style="width:100%;height:{_height(obj)}px;border:0"></iframe>'
    )


def _height(obj: Any) -> int:
    if isinstance(obj, VariantDiff):
        removed, added = obj.counts()
        return max(360, min(1100, 420 + HEIGHTS["diff_line"] * (removed + added)))
    if isinstance(obj, Session):
        return HEIGHTS["session"]
    if isinstance(obj, (list, tuple)):
        return max(200, min(900, 120 + HEIGHTS["findings_row"] * len(obj)))
    findings = obj.findings if isinstance(obj, Annotation) else None
    return HEIGHTS["variant"] + HEIGHTS["findings_row"] * min(len(findings or ()), 4)


def _variant_page(variant: Variant, found: list[Finding] | None = None, what: str = "") -> str:
    paths = SharedPaths(variant.kernel.file)
    data = variant_data(variant, paths, found)
    title = f"irscope · {variant.kernel.name} · {variant.config.label() or 'default config'} · {variant.arch}"
    facts = [variant.status.value]
    if variant.resources is not None and variant.resources.registers is not None:
        facts.append(f"{variant.resources.registers} registers")
    if variant.compile_info is not None:
        facts.append(variant.compile_info.compiler)
    if what:
        facts.append(what)
    about = f"{variant.kernel.name} ({paths.file_label(variant.kernel.file)}) · {' · '.join(facts)}"
    return render_page(title, about, data, VARIANT_PARTS)


def _diff_page(d: VariantDiff) -> str:
    paths = SharedPaths(d.a.kernel.file)
    removed, added = d.counts()
    title = f"irscope · diff · {d.a.kernel.name} · {d.stage.value}"
    about = f"{d.a.config.label()} vs {d.b.config.label()}: {plural(removed, 'line')} removed, {added} added"
    return render_page(
        title,
        about,
        {"stages": [], "columns": [], "variants": [], "source": "", "kernel": ""},
        Parts(),
        after=diff_section(paths.diff(d)),  # the text rewritten, then escaped: never the other way round
    )
