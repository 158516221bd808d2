"""The irscope TUI: a kernel's variants, each stage of each, linked to the Python source.

The app only shows; the work (capturing variants, measuring them) runs in a
thread worker over the same generators the CLI drives, posting a message per
result. The listing switches in constant time whatever its length (see
widgets/listing.py); findings are computed off the UI thread.

What the first frame does not show is imported when first shown, not at start: the
chart (plotext), the help (markdown), the diff screen and the annotations (the
pane fills just after the first frame). ``tests/test_tui_startup.py`` keeps it so.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, DataTable, Footer, Header, Input, Static, Tab, Tabs

from ..arch import vendor_of
from ..paths import shown_file
from ..records import Runtime
from ..stages import specs as stage_specs
from ..types import Stage, Variant, plural
from .jobs import Job
from .messages import BackgroundDone, Measured, Progress, VariantReady
from .model import Model, Row, source_line_counts
from .stopping import stop_signals_end
from .widgets.listing import ListingView
from .widgets.passes import PassesView
from .widgets.side import AnnotationPane
from .widgets.variants import DAMAGED, VariantsTable

if TYPE_CHECKING:
    from ..annotating.decode import Explanation
    from ..annotating.explain import LineExplainer
    from .widgets.chart import RuntimeChart


def all_stage_tabs() -> list[tuple[str, str]]:
    """One tab (and digit key) per registered stage, then the chart and the passes: read when a screen opens,
    after the session or kernel it shows has registered its frontend's own stages (CuTe DSL's IR)."""
    return [(spec.key, spec.label) for spec in stage_specs()] + [("chart", "Chart"), ("passes", "Passes")]


DIGIT_KEYS = 9  # 1..9 pick the tabs shown, in order


def stage_tabs(vendors: set[str], frontends: set[str] | None = None) -> list[tuple[str, str]]:
    """The tabs for variants of ``vendors``' GPUs ("nvidia", "amd") compiled by ``frontends``: only stages their
    compiles make, so that an NVIDIA session has no AMDGCN tab, a Triton one no Gluon IR tab, and its digit keys
    stay where they always were. No vendor known: NVIDIA's; no frontend known: Triton's."""
    vendors = vendors or {"nvidia"}
    kinds = frontends or {"triton"}
    return [
        (k, label)
        for k, label in all_stage_tabs()
        if k in VIEWS or any(Stage(k).spec.made_for(v, f) for v in vendors for f in kinds)
    ]


VIEWS = ("chart", "passes")  # tabs that are not a stage's listing


class IrscopeCommands(Provider):
    """Command palette entries for what the keys do."""

    async def search(self, query: str) -> Hits:
        app = cast("IrscopeApp", self.app)
        commands: list[tuple[str, Callable[[], object]]] = [
            (f"Show {label}", functools.partial(app.switch_stage, key)) for key, label in app.stage_tabs
        ]
        commands += [
            ("Diff the marked variants", app.action_diff),
            ("Mark the current variant", app.action_mark),
            ("Sort by the next column", app.action_sort),
            ("Cancel background work", app.action_cancel),
            ("Toggle the source pane", app.action_toggle_side),
            ("Help", app.action_help),
        ]
        matcher = self.matcher(query)
        for text, callback in commands:
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback)


class IrscopeApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "irscope"
    COMMANDS = App.COMMANDS | {IrscopeCommands}
    BINDINGS = [
        Binding("q", "quit", "quit"),
        Binding("question_mark", "help", "help"),
        *[Binding(str(n), f"stage_number({n})", f"tab {n}", show=False) for n in range(1, DIGIT_KEYS + 1)],
        Binding("m", "mark", "mark"),
        Binding("d", "diff", "diff"),
        Binding("o", "sort", "sort"),
        Binding("slash", "search", "search"),
        Binding("n", "next_match(1)", "next", show=False),
        Binding("N", "next_match(-1)", "previous", show=False),
        Binding("s", "toggle_side", "source pane"),
        Binding("g", "chart_metric", "GB/s", show=False),
        Binding("escape", "cancel", "cancel"),
    ]

    _app_loop: asyncio.AbstractEventLoop | None

    def run(self, *args, **kwargs):
        """Textual's ``run``, on a terminal only: without one, it waited forever for keys that never came.
        A headless run (the snapshot tests', a notebook's) needs none. On a terminal, a stop signal ends
        the app as ``q`` does (stopping.py)."""
        if kwargs.get("headless"):
            return super().run(*args, **kwargs)
        check_terminal()
        if os.environ.get("TEXTUAL_DRIVER"):  # another driver (web) takes the signals itself
            return super().run(*args, **kwargs)
        with stop_signals_end(self._stop_from_outside):
            return super().run(*args, **kwargs)

    async def run_async(self, *args, **kwargs):
        self._app_loop = asyncio.get_running_loop()
        try:
            if self._stopped_from_outside:
                return None  # a stop signal came before the app's loop did
            return await super().run_async(*args, **kwargs)
        finally:
            self._app_loop = None

    def _stop_from_outside(self, signum: int) -> None:
        """A stop signal's way out (called from stopping.py's thread): the app ends in its own loop."""
        self._stopped_from_outside = True
        self.cancel_event.set()
        if self._app_loop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has closed: it has ended already
                self._app_loop.call_soon_threadsafe(self.exit)

    def exit(self, *args, **kwargs) -> None:
        """Textual's ``exit``; the sweep in the background stops with the app (its thread would otherwise
        keep compiling, and the app's end wait for it)."""
        self.cancel_event.set()
        super().exit(*args, **kwargs)

    def __init__(
        self,
        model: Model,
        jobs: list[Job] | None = None,
        subtitle: str = "",
        initial_stage: str = "ptx",
        vendors: set[str] | None = None,
    ) -> None:
        """``vendors``: whose GPUs the variants are for (which stage tabs show); by default the rows' archs'."""
        super().__init__()
        # No animations: a tool's screen should change at once (and animated tabs cost frames).
        self.animation_level = "none"
        self.model = model
        self.jobs = jobs or []
        self.sub_title = subtitle
        self.stage_tabs = stage_tabs(vendors if vendors is not None else _vendors(model), _frontends(model))
        shown = [k for k, _ in self.stage_tabs]
        self.stage_key = initial_stage if initial_stage in shown else ("amdgcn" if "amdgcn" in shown else shown[0])
        self.cancel_event = threading.Event()
        self._app_loop = None  # set as it runs: where a stop signal ends it
        self._stopped_from_outside = False
        self._lines: dict[tuple[int, str], list[str]] = {}
        self._explainers: dict[tuple[int, str], LineExplainer | None] = {}
        self._findings: dict[tuple[int, Stage], list] = {}  # (row, PTX or SASS): each stage's own findings
        self._shown: tuple[int, str] | None = None
        self._source_file: str | None = None
        self.busy = False
        self.status_text = ""
        self.internal_error: Exception | None = None  # what escaped a handler (see _handle_exception)
        self.after_first_paint: list[Callable[[], None]] = []  # called once the first frame is out
        # IRSCOPE_TUI_TRACE=<file>: log key, listing-shown and screen-written times (tests/perf/bench_tui.py)
        trace = os.environ.get("IRSCOPE_TUI_TRACE")
        self._trace = open(trace, "a", buffering=1) if trace else None

    # ------------------------------------------------------------ latency trace

    async def on_event(self, event) -> None:
        if self._trace is not None and isinstance(event, events.Key):
            self._trace.write(f"key {event.key} {time.perf_counter():.6f}\n")
        await super().on_event(event)

    def _display(self, screen, renderable) -> None:
        super()._display(screen, renderable)
        if self._trace is not None and renderable is not None:
            self._trace.write(f"display - {time.perf_counter():.6f}\n")

    # ------------------------------------------------------------ internal errors

    def _handle_exception(self, error: Exception) -> None:
        # Damaged data never gets here (a SessionError is shown in its row): this is a bug in
        # irscope. The app still exits with return code 1 as Textual decides, but without
        # Textual's screenful of traceback and locals: whoever ran the app reports
        # internal_error (cli/tui.py: one line on stderr, the traceback under --debug).
        if self.internal_error is None:
            self.internal_error = error
        super()._handle_exception(error)
        self._exit_renderables.clear()

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield VariantsTable(self.model, id="variants")
        yield Tabs(
            *[Tab(label, id=f"tab-{key}") for key, label in self.stage_tabs],
            active=f"tab-{self.stage_key}",
            id="stages",
        )
        with Horizontal(id="main"):
            with ContentSwitcher(initial="listing", id="switcher"):
                yield ListingView(id="listing")
                yield PassesView(id="passes")  # and the chart, mounted when first shown (_chart)
            with Vertical(id="side"):
                yield ListingView(id="source")
                yield AnnotationPane(id="annotation")
        yield Input(placeholder="search the listing (enter: find, escape: close)", id="search")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self._first_frame_out)
        self.title = f"irscope · {self.model.title}"
        self.query_one("#variants", VariantsTable).focus()
        self.query_one("#search", Input).cursor_blink = False
        first = next((r for r in self.model.rows if r.ready), None)
        if first is not None:
            self.show_row(first)
        if self.jobs:
            self.busy = True
            self.run_jobs()
        else:
            self.set_status(self._summary())

    def _first_frame_out(self) -> None:
        for call in self.after_first_paint:
            call()
        self.after_first_paint.clear()

    # ------------------------------------------------------------ background work

    @work(thread=True, exclusive=True, group="background", exit_on_error=False)
    def run_jobs(self) -> None:
        error = None
        try:
            for job in self.jobs:
                if self.cancel_event.is_set():
                    break
                job(self.cancel_event, self.post_message)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        self.post_message(BackgroundDone(self.cancel_event.is_set(), error))

    def on_variant_ready(self, message: VariantReady) -> None:
        row = self.model.set_variant(message.index, message.variant, message.entry)
        table = self.query_one("#variants", VariantsTable)
        table.update_row(row)
        if self._shown is None or self.current_row() is row:
            if self._shown is None:
                table.select_index(row.index)
            self.show_row(row)
        self._refresh_chart()

    def on_measured(self, message: Measured) -> None:
        row = self.model.set_measurement(message.index, message.measurement)
        self.query_one("#variants", VariantsTable).update_row(row)
        self._refresh_chart()

    def on_progress(self, message: Progress) -> None:
        self.set_status(f"{message.phase} {message.done}/{message.total} · escape cancels")

    def on_background_done(self, message: BackgroundDone) -> None:
        self.busy = False
        if message.error:
            self.set_status(f"background work failed: {message.error}")
        elif message.cancelled:
            self.set_status(f"cancelled · {self._summary()}")
        else:
            self.set_status(self._summary())

    def action_cancel(self) -> None:
        if self.screen.query("#search.visible"):
            self._close_search()
            return
        if self.busy:
            self.cancel_event.set()
            self.set_status("cancelling…")

    # ------------------------------------------------------------ showing a variant

    def current_row(self) -> Row | None:
        index = self.query_one("#variants", VariantsTable).current_index()
        return None if index is None else self.model.rows[index]

    @on(DataTable.RowHighlighted, "#variants")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = self.model.rows[int(str(event.row_key.value))]
        if row.ready:
            self.show_row(row)

    @on(Tabs.TabActivated, "#stages")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        key = (event.tab.id or "").removeprefix("tab-")
        if key == self.stage_key and self._shown is not None and self._shown[1] == key:
            return
        self._show_stage(key)

    def _show_stage(self, key: str) -> None:
        self.stage_key = key
        switcher = self.query_one("#switcher", ContentSwitcher)
        if key == "chart":
            chart = self._chart()
            switcher.current = "chart"
            chart.redraw()
            return
        if key == "passes":
            switcher.current = "passes"
            row = self.current_row()
            self.query_one("#passes", PassesView).show(self._variant(row) if row is not None and row.ready else None)
            return
        switcher.current = "listing"
        row = self.current_row()
        if row is not None and row.ready:
            self.show_row(row)

    def switch_stage(self, key: str) -> None:
        # Show the stage now, in the frame that also moves the tab, rather than a message later.
        self.query_one("#stages", Tabs).active = f"tab-{key}"
        if key != self.stage_key or (key not in VIEWS and (self._shown is None or self._shown[1] != key)):
            self._show_stage(key)

    def action_stage(self, key: str) -> None:
        self.switch_stage(key)

    def action_stage_number(self, n: int) -> None:
        if 1 <= n <= len(self.stage_tabs):
            self.switch_stage(self.stage_tabs[n - 1][0])

    def show_row(self, row: Row) -> None:
        """Show ``row`` in the current stage: the listing, the source pane, the findings."""
        if self.stage_key == "chart":
            return
        if self.stage_key == "passes":
            self.query_one("#passes", PassesView).show(self._variant(row))
            return
        stage = Stage(self.stage_key)
        listing = self.query_one("#listing", ListingView)
        key = (row.index, stage.value)
        keep_cursor = listing.cursor if self._shown is not None and self._shown[1] == stage.value else 0
        lines = self._listing_lines(row, stage)
        listing.show(lines, None if row.damage is not None else stage, keep_cursor)
        self._shown = key
        if self._trace is not None:
            self._trace.write(f"show {stage.value}:{row.index} {time.perf_counter():.6f}\n")
        self._show_source(row)
        self._show_heat(row, stage)
        # The listing paints first; the source link and the explanation follow right after, and
        # findings only once the user has stayed on a variant (scrolling the table stays instant).
        self.call_after_refresh(self._explain_cursor, row, stage)
        found = (row.index, _findings_stage(stage))
        if found in self._findings:
            self.query_one("#annotation", AnnotationPane).show_findings(self._findings[found])
        else:
            self.set_timer(0.15, lambda: self._findings_if_still_shown(row, found[1]))

    def _show_heat(self, row: Row, stage: Stage) -> None:
        """On the SASS tab, where Nsight Compute's samples fell (``bench --ncu -o``): each SASS line's gutter,
        and each Python line's in the source pane; nothing elsewhere."""
        heat = self.model.heat(row) if stage == Stage.SASS else None
        self.query_one("#listing", ListingView).set_heat(heat[0] if heat else {})
        self.query_one("#source", ListingView).set_heat(heat[1] if heat else {})

    def _show_source(self, row: Row) -> None:
        kernel = row.kernel_id
        if kernel is None or kernel.file == self._source_file:  # each kernel has its own source
            return
        self._source_file = kernel.file
        text, damage = self.model.source(row)
        source = self.query_one("#source", ListingView)
        if damage is not None:
            source.show([f"{DAMAGED}: {damage}"], None)
        else:
            source.show(text.splitlines(), Stage.SOURCE, suffix=Path(kernel.file).suffix)

    def _variant(self, row: Row) -> Variant | None:
        """The row's variant (None if damaged or still capturing); a row found damaged now says so in the table."""
        known = row.damage
        variant = self.model.variant(row)
        if row.damage != known:
            self.query_one("#variants", VariantsTable).update_row(row)
        return variant

    def _explain_cursor(self, row: Row, stage: Stage) -> None:
        if self._shown == (row.index, stage.value):
            self._explain(row, stage, self.query_one("#listing", ListingView).cursor)

    def _findings_if_still_shown(self, row: Row, stage: Stage) -> None:
        if (
            self._shown is not None
            and self._shown[0] == row.index
            and _findings_stage(Stage(self._shown[1])) == stage
            and (row.index, stage) not in self._findings
        ):
            self.compute_findings(row, stage)

    def _listing_lines(self, row: Row, stage: Stage) -> list[str]:
        key = (row.index, stage.value)
        if key not in self._lines:
            variant = self._variant(row)
            if row.damage is not None:  # one line instead of a listing, in every stage
                return [f"{DAMAGED}: {row.damage}"]
            if variant is None:
                return ["(still capturing…)"]
            if stage not in variant.listings:
                reason = variant.stage_errors.get(stage) or str(variant.error or "not captured")
                return [f"{stage.value} is not available for this variant: {reason}"]
            self._lines[key] = variant.listings[stage].splitlines()
        return self._lines[key]

    @work(thread=True, exclusive=True, group="findings", exit_on_error=False)
    def compute_findings(self, row: Row, stage: Stage = Stage.PTX) -> None:
        variant = self.model.variant(row)
        from ..annotating.findings import findings

        result = findings(variant, stage) if variant is not None else []
        self.call_from_thread(self._show_findings, row, stage, result)

    def _show_findings(self, row: Row, stage: Stage, result: list) -> None:
        self._findings[(row.index, stage)] = result
        if self.current_row() is row and self._shown is not None and _findings_stage(Stage(self._shown[1])) == stage:
            self.query_one("#annotation", AnnotationPane).show_findings(result)

    # ------------------------------------------------------------ the source link

    @on(ListingView.CursorMoved, "#listing")
    def _listing_cursor(self, event: ListingView.CursorMoved) -> None:
        row = self.current_row()
        if row is None or not row.ready or self._shown is None:
            return
        self._explain(row, Stage(self._shown[1]), event.index)

    def _explain(self, row: Row, stage: Stage, index: int) -> None:
        smap = row.source_map()
        source = self.query_one("#source", ListingView)
        pane = self.query_one("#annotation", AnnotationPane)
        lines = self._listing_lines(row, stage)
        if row.damage is not None:
            source.set_linked(set())
            pane.explain(f"{row.config.label()} is damaged", None, row.damage)
            return
        text = lines[index] if 0 <= index < len(lines) else ""
        if stage is Stage.SOURCE:
            source.set_linked({index})
            counts = source_line_counts(row, index + 1)
            became = ", ".join(f"{s.value} {n}" for s, n in counts.items())
            pane.explain(f"line {index + 1}", None, f"became: {became}" if became else "")
            return
        py = smap.source_line(stage, index) if smap is not None else None
        source.set_linked({py - 1} if py else set())
        loc = smap.loc(stage, index) if smap is not None else None
        where = ""
        if loc is not None:
            chain = " ← ".join(f"{shown_file(c.file)}:{c.line}" for c in loc.callers)
            where = f"from {shown_file(loc.file)}:{loc.line}:{loc.column}" + (
                f" (inlined, called at {chain})" if chain else ""
            )
        pane.explain(
            f"{stage.value} line {index + 1}" + (f" · Python line {py}" if py else ""),
            self._decode(row, stage, text),
            where,
        )

    def _decode(self, row: Row, stage: Stage, text: str) -> Explanation | None:
        key = (row.index, stage.value)
        if key not in self._explainers:
            from ..annotating.explain import explainer

            variant = self.model.variant(row)
            self._explainers[key] = explainer(variant, stage) if variant is not None else None
        explain = self._explainers[key]
        return explain(text) if explain is not None else None

    @on(ListingView.Selected, "#source")
    def _source_selected(self, event: ListingView.Selected) -> None:
        row = self.current_row()
        if row is None or self._shown is None or self._shown[1] == Stage.SOURCE:
            return
        smap = row.source_map()
        if smap is None:
            return
        stage = Stage(self._shown[1])
        lines = smap.lines_for(stage, event.index + 1)
        listing = self.query_one("#listing", ListingView)
        listing.set_linked(set(lines))
        self.set_status(f"Python line {event.index + 1} became {plural(len(lines), f'{stage.value} line')}")

    @on(ListingView.CursorMoved, "#source")
    def _source_cursor(self, event: ListingView.CursorMoved) -> None:
        if self.focused is event.view:
            self._source_selected(ListingView.Selected(event.view, event.index))

    # ------------------------------------------------------------ actions

    def action_mark(self) -> None:
        row = self.current_row()
        if row is None:
            return
        self.model.toggle_mark(row)
        self.query_one("#variants", VariantsTable).rebuild()
        marked = self.model.marked()
        self.set_status("marked: " + "; ".join(r.config.label() for r in marked) + (" · d: diff" if marked else ""))

    def action_diff(self) -> None:
        pair = self.model.diff_pair(self.current_row())
        if pair is None:
            self.notify("mark two variants with m (or one, and move to another)", severity="warning")
            return
        a, b = (self._variant(r) for r in pair)
        damaged = next((r for r in pair if r.damage is not None), None)
        if damaged is not None:
            self.notify(f"cannot diff: {damaged.config.label()} is damaged: {damaged.damage}", severity="error")
            return
        if a is None or b is None:
            self.notify("both variants must be captured first", severity="warning")
            return
        stage = Stage(self.stage_key) if self.stage_key not in (*VIEWS, Stage.SOURCE) else Stage.PTX
        from .screens.diff import DiffScreen

        runtimes = (Runtime.of(pair[0].measurement), Runtime.of(pair[1].measurement))
        self.push_screen(DiffScreen(a, b, stage, runtimes))

    def action_sort(self) -> None:
        self.set_status(f"sorted by {self.query_one('#variants', VariantsTable).cycle_sort()}")

    def action_toggle_side(self) -> None:
        self.query_one("#side").toggle_class("hidden")

    def action_chart_metric(self) -> None:
        self.set_status(f"chart: {self._chart().toggle_metric()}")

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen(self.stage_tabs))

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.add_class("visible")
        search.focus()

    @on(Input.Submitted, "#search")
    def _search(self, event: Input.Submitted) -> None:
        listing = self.query_one("#listing", ListingView)
        needle = event.value.lower()
        hits = {i for i, line in enumerate(listing.lines) if needle and needle in line.lower()}
        listing.set_matches(hits)
        self._close_search()
        self.action_next_match(1)
        self.set_status(
            f"{plural(len(hits), 'line')} match{'es' if len(hits) == 1 else ''} {event.value!r} · n / N: next / previous"
        )

    def _close_search(self) -> None:
        search = self.query_one("#search", Input)
        search.remove_class("visible")
        self.query_one("#listing", ListingView).focus()

    def action_next_match(self, direction: int) -> None:
        listing = self.query_one("#listing", ListingView)
        if not listing.matches:
            return
        ordered = sorted(listing.matches)
        after = [i for i in ordered if (i > listing.cursor if direction > 0 else i < listing.cursor)]
        listing.move_to(
            (after[0] if direction > 0 else after[-1]) if after else (ordered[0] if direction > 0 else ordered[-1])
        )

    # ------------------------------------------------------------ status

    def set_status(self, text: str) -> None:
        self.status_text = text
        self.query_one("#status", Static).update(text)

    def _summary(self) -> str:
        ready = sum(r.ready for r in self.model.rows)
        fastest = self.model.fastest()
        best = (
            f" · fastest: {fastest.config.label()} {fastest.measurement.median_us:.1f} us ({fastest.why() or 'measured'})"
            if fastest and fastest.measurement
            else ""
        )
        return f"{ready}/{len(self.model.rows)} variants{best} · ? for help"

    def _refresh_chart(self) -> None:
        if self.stage_key == "chart":
            self._chart().redraw()

    def _chart(self) -> RuntimeChart:
        """The chart, mounted into the switcher the first time it is wanted (plotext is not needed before)."""
        from .widgets.chart import RuntimeChart

        found = self.query("#chart")
        if found:
            return found.first(RuntimeChart)

        chart = RuntimeChart(self.model, id="chart")
        switcher = self.query_one("#switcher", ContentSwitcher)
        chart.display = switcher.current == "chart"
        switcher.mount(chart, after="#listing")
        return chart


def _findings_stage(stage: Stage) -> Stage:
    """Findings come from PTX or SASS: the SASS view shows SASS findings, every other view PTX's."""
    return Stage.SASS if stage == Stage.SASS else Stage.PTX


def _frontends(model: Model) -> set[str]:
    found = {row.variant.frontend for row in model.rows if row.variant is not None and row.variant.frontend}
    return found | ({model.session.frontend} if model.session is not None else set())


def _vendors(model: Model) -> set[str]:
    return {vendor_of(arch).value for arch in {row.arch for row in model.rows} if arch}


def check_terminal() -> None:
    """A UsageError in one line unless textual can draw and read keys: its terminal driver reads stdin and
    draws on stderr (a stdout sent to a file or a pipe is not used). A driver named by ``TEXTUAL_DRIVER``
    (headless, web) needs neither."""
    import sys

    if os.environ.get("TEXTUAL_DRIVER"):
        return
    missing = [name for name in ("stdin", "stderr") if not _is_terminal(getattr(sys, f"__{name}__", None))]
    if missing:
        from ..errors import UsageError

        raise UsageError(
            f"irscope tui needs a terminal, and its {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
            "not one: run it in a terminal, or print what it shows with irscope sweep, dump or diff"
        )


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):  # closed
        return False
