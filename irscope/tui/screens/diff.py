"""Diff mode: the normalised diff of the current stage of two marked variants, with the summary."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...diffing import diff_variants, render
from ...diffing.summary import summary_lines
from ...records import Runtime
from ...types import Stage, Variant
from ..widgets.listing import ListingView


class DiffScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "back"),
        Binding("y", "toggle_layout", "side by side / unified"),
        Binding("r", "toggle_raw", "raw / normalised"),
    ]

    def __init__(self, a: Variant, b: Variant, stage: Stage, runtimes: tuple[Runtime | None, Runtime | None]) -> None:
        super().__init__()
        self.a, self.b, self.stage, self.runtimes = a, b, stage, runtimes
        self.side_by_side = False
        self.raw = False

    def compose(self) -> ComposeResult:
        yield Static(id="diff-title")
        yield ListingView(diff=True, id="diff-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#diff-body", ListingView).focus()
        self.refresh_diff()

    def action_toggle_layout(self) -> None:
        self.side_by_side = not self.side_by_side
        self.refresh_diff()

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self.refresh_diff()

    def refresh_diff(self) -> None:
        mode = "raw" if self.raw else "normalised"
        layout = "side by side" if self.side_by_side else "unified"
        self.query_one("#diff-title", Static).update(f"diff of {self.stage.value} ({mode}, {layout}) · computing…")
        self.compute(self.side_by_side, self.raw, self.size.width)

    @work(thread=True, exclusive=True, group="diff")
    def compute(self, side_by_side: bool, raw: bool, width: int) -> None:
        spans: dict[int, list[tuple[int, int]]] = {}
        if self.stage not in self.a.listings or self.stage not in self.b.listings:
            lines = [f"{self.stage.value} is missing in one of the variants (it did not compile)"]
        else:
            result = diff_variants(self.a, self.b, self.stage, raw=raw)
            result.runtimes = self.runtimes
            body, body_spans = (
                render.side_by_side(result, max(width - 8, 60)) if side_by_side else render.unified(result)
            )
            head = summary_lines(result) + [""]
            lines = head + (body if result.changed else [f"no differences in {self.stage.value}"])
            spans = {len(head) + n: s for n, s in body_spans.items()} if result.changed else {}
        self.app.call_from_thread(self._show, lines, side_by_side, raw, spans)

    def _show(
        self, lines: list[str], side_by_side: bool, raw: bool, spans: dict[int, list[tuple[int, int]]] | None = None
    ) -> None:
        mode = "raw" if raw else "normalised"
        layout = "side by side" if side_by_side else "unified"
        self.query_one("#diff-title", Static).update(
            f"diff of {self.stage.value} ({mode}, {layout}) · y: layout · r: raw · escape: back"
        )
        view = self.query_one("#diff-body", ListingView)
        view.show(lines, None)
        view.emphasis = spans or {}  # the tokens that changed within aligned lines
