"""The Passes tab: every compiler pass (Triton's MLIR, TileLang's TIR) of the selected variant, the IR after the selected one, or its diff
against the IR before it (``d`` toggles). Passes are there for variants captured with them
(``irscope sweep --passes``, ``irscope passes``); the others say how to get them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable

from ...types import Variant
from .listing import ListingView

NO_PASSES = [
    "No passes were kept for this variant.",
    "Sweep with `irscope sweep KERNEL --passes -o DIR` (or see one with `irscope passes KERNEL -c ...`),",
    "then open that session: every compiler pass, the IR after each, and what each one changed.",
]


class PassesView(Vertical):
    BINDINGS = [Binding("d", "toggle_diff", "IR / diff")]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.variant: Variant | None = None
        self.show_diff = False
        self._texts: list[str] | None = None  # the IR before the first pass, then after each

    def compose(self) -> ComposeResult:
        table: DataTable[str] = DataTable(id="pass-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("#", "pass", "stage", "-lines", "+lines", "ops")
        yield table
        yield ListingView(diff=True, id="pass-ir")

    def show(self, variant: Variant | None) -> None:
        """The passes of ``variant`` (the table, and the IR after its first pass that changed anything)."""
        if variant is self.variant and self._texts is not None:
            return
        self.variant, self._texts = variant, None
        table = self.query_one("#pass-table", DataTable)
        table.clear()
        view = self.query_one("#pass-ir", ListingView)
        log = variant.passes if variant is not None else None
        if log is None:
            view.show(NO_PASSES, None)
            return
        from ...ir.passes import ir_after_each, ops_text

        self._texts = ir_after_each(log)
        for step in log.steps:
            name = step.arg or step.name
            table.add_row(
                str(step.index),
                f"{name}{' (' + step.scope + ')' if step.scope else ''}",
                step.stage.value,
                str(step.lines_removed or ""),
                str(step.lines_added or ""),
                ops_text(step),
                key=str(step.index),
            )
        first = next((s.index for s in log.steps if s.changed), 1)
        table.move_cursor(row=first - 1)
        self.show_pass(first)

    def selected(self) -> int:
        table = self.query_one("#pass-table", DataTable)
        return table.cursor_row + 1

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if self._texts is not None:
            self.show_pass(int(str(event.row_key.value)))

    def action_toggle_diff(self) -> None:
        self.show_diff = not self.show_diff
        if self._texts is not None:
            self.show_pass(self.selected())

    def show_pass(self, index: int) -> None:
        """The IR after pass ``index`` (1-based), or its normalised diff against the IR before it."""
        log = self.variant.passes if self.variant is not None else None
        if log is None or self._texts is None:
            return  # nothing shown yet: no pass to show
        step = log.steps[index - 1]
        view = self.query_one("#pass-ir", ListingView)
        if not self.show_diff:
            view.show(self._texts[index].splitlines(), step.listing_stage)
            return
        from ...diffing.passes import pass_hunks
        from ...diffing.render import unified_hunks

        if not step.changed:
            view.show([f"pass {index} ({step.arg or step.name}) left the IR as it was"], None)
            return
        lines, spans = unified_hunks(
            pass_hunks(log, index, self._texts), f"before pass {index}", f"after pass {index} ({step.arg or step.name})"
        )
        view.show(lines, None)
        view.emphasis = spans
