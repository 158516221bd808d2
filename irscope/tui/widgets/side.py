"""The annotation pane: what the line under the cursor is, where it came from, and the findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

if TYPE_CHECKING:  # the pane shows them; the app imports annotating when it first explains a line
    from ...annotating.decode import Explanation
    from ...annotating.findings import Finding


class AnnotationPane(VerticalScroll):
    text = ""

    def compose(self):
        yield Static(id="explanation")
        yield Static(id="findings")

    def explain(self, title: str, explanation: Explanation | None, extra: str = "") -> None:
        parts: list[Text] = [Text(title, style="bold")]
        if explanation is not None and explanation.summary:
            style = "" if explanation.known else "yellow"
            parts.append(Text(explanation.summary, style=style))
            for part in explanation.parts:
                if part.role == "opcode" or not part.text:
                    continue
                parts.append(Text.assemble((f"  {part.token} ", "bold #82aaff"), (part.text, "")))
            if explanation.detail:
                parts.append(Text(explanation.detail, style="grey62 italic"))
        if extra:
            parts.append(Text(extra, style="grey70"))
        self.text = "\n".join(p.plain for p in parts)  # what is shown, as plain text
        self.query_one("#explanation", Static).update(Group(*parts))

    def show_findings(self, findings: list[Finding]) -> None:
        if not findings:
            self.query_one("#findings", Static).update("")
            return
        lines = [Text("\nfindings", style="bold")]
        for f in findings:
            mark, style = ("!", "bold yellow") if f.severity == "warn" else ("·", "cyan")
            lines.append(Text.assemble((f"{mark} ", style), (f.title, style)))
            lines.append(Text(f"  {f.detail}", style="grey62"))
        self.query_one("#findings", Static).update(Group(*lines))
