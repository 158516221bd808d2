"""A session as one self-contained HTML file: the variants table, the runtime chart, every stage of every
variant (highlighted in the page, each line linked to its Python line), the selected variant's findings
and the diffs asked for.

The page itself (page.py) is the one every display of irscope's shares: a notebook's display of a
variant, a diff or a session is this page in a sandboxed frame (display.py). Paths are shown as
shared_paths.py writes them (relative to the kernel's folder) unless kept absolute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..session import Session
from ..types import Stage, Variant, plural
from .diff_html import diff_section
from .page import Parts, render_page
from .payload import session_data
from .shared_paths import SharedPaths

SESSION_PARTS = Parts(table=True, chart=True, stages=True, findings=True)


@dataclass(frozen=True)
class DiffRequest:
    a: str  # entry ids
    b: str
    stage: Stage = Stage.PTX


def build(
    session: Session, diffs: Sequence[DiffRequest] = (), sample_gpu: str | None = None, absolute_paths: bool = False
) -> str:
    """The report's HTML text; ``absolute_paths``: keep the author's paths as the compilers wrote them."""
    paths = SharedPaths(session.kernel.file, keep=absolute_paths)
    data = session_data(session, paths, sample_gpu)
    title, about = session_title(session, paths)
    return render_page(title, about, data, SESSION_PARTS, after="".join(_diff_html(session, d, paths) for d in diffs))


def session_title(session: Session, paths: SharedPaths) -> tuple[str, str]:
    title = f"irscope · {session.kernel.name} · {plural(len(session.entries), 'variant')}"
    about = f"{session.kernel.name} ({paths.file_label(session.kernel.file)}) · written by irscope from the session {session.path.name}"
    return title, about


def _diff_html(session: Session, request: DiffRequest, paths: SharedPaths) -> str:
    from ..diffing import diff_variants

    a, b = paths.variant(_variant(session, request.a)), paths.variant(_variant(session, request.b))
    return diff_section(diff_variants(a, b, request.stage))


def _variant(session: Session, entry_id: str) -> Variant:
    entry = session.entry(entry_id)
    if entry is None:
        from ..errors import UsageError

        raise UsageError(f"session {session.path} has no variant {entry_id}")
    return session.variant(entry)
