"""The help screen: what every key does."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ...stages import specs

HELP = """\
# irscope

**Variants** (top): one row per variant. The fastest correct one is green; failed,
wrong or crashed rows say why in *note*. Runtimes come from this GPU, the session,
or the samples recorded on real GPUs (the note says which device).

| key | does |
|---|---|
| `1`-`{last_stage}` | stage: {stage_labels} |
| `{chart_key}` | chart of runtime (or GB/s) per variant |
| `{passes_key}` | every compiler pass (`sweep --passes`): the IR after each; `d` on the list: its diff |
| `tab` | move between the variants table, the listing and the source pane |
| `↑` `↓` `pgup` `pgdn` | move the cursor; the source pane follows |
| `enter` (source pane) | highlight every line that Python line became |
| `m` | mark the variant for diffing (two at most) |
| `d` | diff the two marked variants (or the marked one and the current one) |
| `o` | sort by the next column |
| `g` | chart: runtime or GB/s |
| `s` | show or hide the source/annotation pane |
| `/` | search the listing; `n` / `N` next / previous match |
| `escape` | cancel the capture or measurement running in the background |
| `ctrl+p` | command palette |
| `?` | this help |
| `q` | quit |

In the diff: `y` side by side or unified, `r` raw or normalised, `escape` back. On the SASS tab of a
session benched with `--ncu`, the line numbers are coloured by where Nsight Compute found the warps,
and the source pane's by Python line.
"""


def help_text(tabs: list[tuple[str, str]] | None = None) -> str:
    """The help, with the stage keys of ``tabs`` (the app's: key, label), or the whole stage registry's."""
    labels = [label for key, label in tabs if key not in ("chart", "passes")] if tabs else [s.label for s in specs()]
    return HELP.format(
        last_stage=len(labels), stage_labels=", ".join(labels), chart_key=len(labels) + 1, passes_key=len(labels) + 2
    )


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "close")]

    def __init__(self, tabs: list[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.tabs = tabs

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(help_text(self.tabs))
