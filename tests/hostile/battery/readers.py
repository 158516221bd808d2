"""Every command that reads a session, as one call each: the surfaces a damaged session is tried on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .case import Recorded
from .workspace import Outcome, Workspace, api, cli

# Refusals: 2 (bad input), 5 (the session is damaged); 3: the one variant asked for is stored as failed.
READ = frozenset({0, 2, 3, 5})


def _tui(session: Path) -> Callable[[], Outcome]:
    def build():
        from irscope.tui.factory import make_app

        make_app(str(session))

    return api(build)


def html_is_inert(page: Path) -> list[str]:
    """A report's page holds session text only as escaped data: nothing that opens a comment or a script."""
    if not page.is_file() or page.is_symlink():
        return []
    text = page.read_text(errors="replace")
    bad = [s for s in ("<!--<script", "<script>alert(1)", "</script><script") if s in text]
    return [f"raw markup in the report: {bad}"] if bad else []


# command -> (how it reads SESSION, the exit codes it documents, what to check afterwards)
READERS: dict[
    str,
    tuple[
        Callable[[Workspace, Path, Recorded], Callable[[], Outcome]],
        frozenset[int],
        Callable[[Workspace], list[str]] | None,
    ],
] = {
    "dump": (lambda ws, s, r: cli("dump", s, "-c", r.a, "--stage", "all", "--source"), READ, None),
    "diff": (lambda ws, s, r: cli("diff", s, "-a", r.a, "-b", r.b), READ, None),
    "annotate": (lambda ws, s, r: cli("annotate", s, "-c", r.a), READ, None),
    "passes": (lambda ws, s, r: cli("passes", s, "-c", r.a), READ, None),
    "ncu": (lambda ws, s, r: cli("ncu", s, "-c", r.a), READ, None),
    "report": (
        lambda ws, s, r: cli("report", s, "-o", ws.allow(ws.work / "report.html")),
        READ,
        lambda ws: html_is_inert(ws.work / "report.html"),
    ),
    "export": (lambda ws, s, r: cli("export", s, "-c", r.a, "-o", ws.allow(ws.work / "trace.ndjson")), READ, None),
    "bench": (lambda ws, s, r: cli("bench", s), frozenset({2, 4, 5}), None),
    "tui": (lambda ws, s, r: _tui(s), READ, None),
    "sweep": (lambda ws, s, r: cli("sweep", ws.allow(s), "-j", "1"), frozenset({0, 1, 2, 5}), None),
}
