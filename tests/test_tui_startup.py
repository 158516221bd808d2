"""`irscope tui` paints its first frame without importing what that frame does not show.

The chart (plotext), the help (markdown), the diff screen, the annotations, capture and the other
importers (Inductor's, a run's, tritonparse's) are imported when first used, not before the first paint: a
fresh interpreter opens the session recorded in samples/ under Textual's pilot and lists the modules
loaded at the first frame that shows the variants table and a listing (the command runs as typed,
but for the terminal: the app it builds runs under the pilot). Then the keys that need each
one are pressed, and each must load then (the check above would mean nothing if they never did).
Two costs wait for that frame too: pygments' Python lexer (the source pane shows plain, then in colour)
and the garbage collector (``irscope tui`` turns it back on once the frame is out).
The time itself is measured in tests/perf/bench_scale.py and bench_tui.py, not here.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# What the first frame must not have imported: module -> the key that first needs it.
DEFERRED = {
    "plotext": "the chart (7)",
    "textual_plotext": "the chart (7)",
    "irscope.tui.widgets.chart": "the chart (7)",
    "markdown_it": "the help (?)",
    "irscope.tui.screens.help": "the help (?)",
    "irscope.tui.screens.diff": "a diff (d)",
    "irscope.diffing": "a diff (d)",
    "irscope.annotating.explain": "the annotation pane, just after the first frame",
    "irscope.annotating.findings": "the findings, once a variant stays shown",
    "irscope.session.sweep": "a sweep (a kernel named instead of a session)",
    "irscope.capturing.pipeline": "a sweep (a kernel named instead of a session)",
    "irscope.interop.inductor.capture": "an Inductor capture named instead of a session",
    "irscope.interop.run.collect": "a run named instead of a session",
    "irscope.interop.tritonparse.events": "a trace named instead of a session",
    "pygments.lexers.c_like": "a CUDA C++ kernel's source (its lexer)",
    "torch": "never, in the TUI of a session",
    "triton": "never, in the TUI of a session",
}

PROBE = r"""
import asyncio, json, sys

from click.testing import CliRunner

from irscope.cli import main as irscope
from irscope.ir.highlight import lexer_built
from irscope.tui.app import IrscopeApp
from irscope.types import Stage

watched = json.loads(sys.argv[1])
seen = {}


def loaded():
    return sorted(m for m in watched if m in sys.modules)


async def main():
    # `irscope tui SESSION` itself, all but the terminal: the app it builds runs under the pilot below.
    built = []
    IrscopeApp.run = lambda app, *args, **kwargs: built.append(app)
    result = CliRunner().invoke(irscope, ["tui", "samples/sessions/square_kernel"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (app,) = built

    def display(screen, renderable):  # every frame the app writes; the first with rows and a listing counts
        IrscopeApp._display(app, screen, renderable)
        if "first" not in seen and renderable is not None and app._shown is not None:
            if app.query_one("#variants").row_count:
                seen["first"] = loaded()
                seen["first_frame"] = {
                    "source_lexer": lexer_built(Stage.SOURCE, app.query_one("#source").suffix),
                    "waiting_for_it": [f.__name__ for f in app.after_first_paint],
                    "source_line": [[g.text, str(g.style or "")] for g in app.query_one("#source")._segments(0)[1:]],
                }

    app._display = display
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        while any(w.is_running for w in app.workers):
            await asyncio.sleep(0.02)
        await pilot.pause(0.3)  # the findings wait for the variant to stay shown
        seen["settled"] = loaded()
        seen["settled_frame"] = {
            "source_lexer": lexer_built(Stage.SOURCE, app.query_one("#source").suffix),
            "waiting_for_it": [f.__name__ for f in app.after_first_paint],
            "source_line": [[g.text, str(g.style or "")] for g in app.query_one("#source")._segments(0)[1:]],
        }
        for name, keys in (("chart", ["7"]), ("help", ["question_mark", "escape"]), ("diff", ["m", "down", "m", "d"])):
            await pilot.press(*keys)
            await pilot.pause()
            seen[name] = loaded()
    print(json.dumps(seen))


asyncio.run(main())
"""


@functools.cache
def _started() -> dict:
    """What the probe saw, started once for the tests below."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(sorted(DEFERRED))],
        cwd=REPO,  # the sample's paths are relative to the repository
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_first_frame_imports_none_of_what_it_does_not_show():
    seen = _started()
    early = {m: DEFERRED[m] for m in seen["first"]}
    assert early == {}, f"imported before the first frame, though first needed by: {early}"
    # ...and each is there once what needs it is shown.
    assert {"irscope.annotating.explain", "irscope.annotating.findings"} <= set(seen["settled"])
    assert {"plotext", "textual_plotext", "irscope.tui.widgets.chart"} <= set(seen["chart"])
    assert {"markdown_it", "irscope.tui.screens.help"} <= set(seen["help"])
    assert {"irscope.tui.screens.diff", "irscope.diffing"} <= set(seen["diff"])
    assert not {"torch", "triton"} & set(seen["diff"])


def test_the_source_is_coloured_and_the_collector_back_once_the_first_frame_is_out():
    seen = _started()
    first, settled = seen["first_frame"], seen["settled_frame"]
    assert not first["source_lexer"] and first["waiting_for_it"] == ["_collect_from_now_on"]
    assert len(first["source_line"]) == 1 and first["source_line"][0][1] == ""  # the line, plain
    assert settled["source_lexer"] and settled["waiting_for_it"] == []
    assert "".join(text for text, _ in settled["source_line"]) == first["source_line"][0][0]
    assert any(style for _, style in settled["source_line"])  # the same line, in colour
