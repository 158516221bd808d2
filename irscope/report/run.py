"""A run folder (``irscope run -o DIR``) as one report: the run's kernels, each linked to its session's part
of the page, and its timeline, ``trace.json`` (torch.profiler's Chrome trace), linked for Perfetto with each
kernel's events counted and summed from the trace itself.

run.json is read as the TUI reads it (``interop.run.collect.read_index``: damage is exit 5). The trace and
each session are parts of the page: a trace that is missing, too large, damaged or a link out of the run,
and a session that cannot be read, are shown as such in their row, and the rest of the page still renders.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import SessionError
from ..interop.run.collect import read_index
from ..interop.run.hook import TRACE
from ..interop.run.index import RunKernelRow
from ..interop.run.timeline import SESSION_ARG
from ..session import Session
from ..storage.files import contained, read_json
from ..types import json_number
from .page import Parts, render_page
from .payload import session_data
from .shared_paths import SharedPaths

RUN_PARTS = Parts(table=True, chart=True, stages=True, findings=True)
PERFETTO = "https://ui.perfetto.dev"


def trace_totals(run_dir: Path) -> tuple[dict[str, tuple[int, float]], str | None]:
    """Per session (as the trace's events name it): its kernel events and their summed duration (us), and
    why the trace could not be read (None when it was; "" when the run has none)."""
    if not os.path.lexists(run_dir / TRACE):
        return {}, ""
    try:
        trace = read_json(contained(run_dir, TRACE))
    except SessionError as exc:
        return {}, str(exc)
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        return {}, f"{run_dir / TRACE} has no traceEvents list: not a Chrome trace"
    totals: dict[str, tuple[int, float]] = {}
    for event in events:
        if not isinstance(event, dict) or event.get("cat") != "kernel" or not isinstance(event.get("args"), dict):
            continue
        session = event["args"].get(SESSION_ARG)
        if not isinstance(session, str):
            continue
        us = json_number(event.get("dur")) or 0.0  # a duration that is no finite number (10**400, a string): none
        count, total = totals.get(session, (0, 0.0))
        totals[session] = (count + 1, total + (us if us > 0 else 0.0))
    return totals, None


def build_run(run_dir: Path, out: Path, sample_gpu: str | None = None, absolute_paths: bool = False) -> str:
    """The run's page; ``out``: where it will be written (the trace's link is relative to it)."""
    run_dir = Path(run_dir)
    index = read_index(run_dir)
    paths = SharedPaths("", keep=absolute_paths)
    totals, trace_damage = trace_totals(run_dir)
    sessions: list[dict[str, Any]] = []
    rows = []
    for kernel in index.kernels:
        name, folder = kernel.name, kernel.session
        where, link = "", None
        if folder is not None:
            try:
                session = Session.open(contained(run_dir, folder))
                sessions.append(
                    session_data(session, SharedPaths(session.kernel.file, keep=absolute_paths), sample_gpu)
                )
                link = len(sessions) - 1
                where = folder
            except SessionError as exc:
                where = f"damaged: {paths(str(exc))}"
        else:
            where = kernel.why or "no session (not a kernel irscope keeps)"
        events, traced_us = totals.get(folder, (0, 0.0)) if folder is not None else (0, 0.0)
        rows.append(_row(name, link, where, kernel, events, traced_us, trace_damage is None))
    program = " ".join(index.command)
    device = index.where
    title = f"irscope · run · {program[:80]}"
    about = f"{len(sessions)} kernel session{'s' if len(sessions) != 1 else ''} of `{program[:200]}` {device}"
    before = (
        '<section class="run"><h2>Run</h2>'
        f"{_trace_line(run_dir, out, trace_damage, paths)}"
        '<table class="variants run-kernels"><thead><tr><th class="text">kernel</th><th>variants</th><th>calls</th>'
        "<th>GPU total us (run.json)</th><th>trace events</th><th>trace GPU us</th><th>% GPU</th>"
        f'<th class="text">session</th></tr></thead><tbody>{"".join(rows)}</tbody></table></section>'
        '<h2 id="session-title" class="session-title"></h2>'
    )
    return render_page(title, about, {"sessions": sessions}, RUN_PARTS, before=before)


def _trace_line(run_dir: Path, out: Path, damage: str | None, paths: SharedPaths) -> str:
    if damage == "":
        return '<p class="note">This run has no trace.json: it was not profiled (no GPU, or --no-profile).</p>'
    if damage is not None:
        return f'<p class="damaged">trace.json is damaged and not linked: {html.escape(paths(damage))}</p>'
    href = quote(os.path.relpath(run_dir.resolve() / TRACE, out.resolve().parent).replace(os.sep, "/"))
    return (
        f"<p>The run's timeline: <a href=\"{html.escape(href)}\">trace.json</a> (torch.profiler's Chrome trace). "
        f"Open it in {PERFETTO} (Open trace file) or chrome://tracing: each kernel event irscope has a session "
        f"for names it in its args ({html.escape(SESSION_ARG)}).</p>"
    )


def _row(name: str, link: int | None, where: str, kernel: RunKernelRow, events: int, us: float, traced: bool) -> str:
    shown = html.escape(name)
    cell = f'<a href="#kernel={link}">{shown}</a>' if link is not None else shown
    numbers = [
        len(kernel.variants),
        kernel.gpu_calls,
        kernel.gpu_total_us,
        events if traced else None,
        round(us, 3) if traced else None,
        kernel.gpu_share_pct,
    ]
    cells = "".join(f"<td>{_number(n)}</td>" for n in numbers)
    return f'<tr><td class="text">{cell}</td>{cells}<td class="text">{html.escape(where)}</td></tr>'


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return "—"
    return f"{value:g}" if isinstance(value, float) else str(value)
