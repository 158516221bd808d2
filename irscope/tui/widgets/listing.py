"""A listing view that stays fast at tens of thousands of lines.

It uses Textual's line API: only the rows on screen are rendered, each line is
highlighted the first time it is shown and kept, and switching to another
listing only swaps a list of strings. A cursor line, a set of linked lines
(what the other pane points at) and search matches are drawn as backgrounds.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...ir.highlight import build_lexer, highlight_line, lexer_built
from ...types import Stage

CURSOR = Style(bgcolor="#2a3f5f")
LINKED = Style(bgcolor="#3b3a1f")
MATCH = Style(bgcolor="#5a3d1a")
GUTTER = Style(color="grey42")
WIDTH = 240  # columns the listing can scroll across
DIFF_STYLES = {"+": Style(color="#9ece6a"), "-": Style(color="#f7768e"), "@": Style(color="#7dcfff", bold=True)}
CHANGED_TOKEN = Style(bold=True, underline=True, bgcolor="#45283c")  # the tokens of a line that changed
# Where a kernel's time goes (Nsight Compute's samples): the gutter of a hot line, cooler to hotter
HEAT = [Style(color="black", bgcolor=c) for c in ("#5c4b1e", "#8a6d1c", "#b8861b", "#e0a21c", "#ff6b3d")]


def heat_style(share: float) -> Style | None:
    """The gutter's style for a line with ``share`` of the samples (None below 0.5%)."""
    if share < 0.005:
        return None
    for limit, style in zip((0.02, 0.05, 0.10, 0.25), HEAT):
        if share < limit:
            return style
    return HEAT[-1]


@dataclass
class LineMessage(Message):
    view: ListingView
    index: int

    @property
    def control(self) -> ListingView:
        return self.view


@functools.cache
def _style(text: str) -> Style | None:
    return Style.parse(text) if text else None


class ListingView(ScrollView, can_focus=True):
    """Lines of one listing with a cursor; posts CursorMoved and Selected."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "up", show=False),
        Binding("down", "cursor(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "jump(0)", "top", show=False),
        Binding("end", "jump(-1)", "bottom", show=False),
        Binding("enter", "select", "link", show=False),
    ]

    cursor = reactive(0, init=False)

    class CursorMoved(LineMessage):
        """The cursor is on line ``index`` (0-based) of ``view``."""

    class Selected(LineMessage):
        """Enter (or a double click) on line ``index``: follow it to the other pane."""

    def __init__(self, *, diff: bool = False, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines: list[str] = []
        self.stage: Stage | None = None
        self.suffix = ""
        self.diff = diff
        self.linked: set[int] = set()
        self.matches: set[int] = set()
        self._strips: dict[int, list[Segment]] = {}
        self._gutter = 4
        self.emphasis: dict[int, list[tuple[int, int]]] = {}  # diff mode: changed tokens per line
        self.heat: dict[int, float] = {}  # line -> its share of the kernel's samples (ncu), shown in the gutter

    # ------------------------------------------------------------ content

    def show(self, lines: list[str], stage: Stage | None, cursor: int = 0, suffix: str = "") -> None:
        """Replace the content; cheap, whatever the size (nothing is highlighted until drawn).

        ``suffix``: the kernel file's, where the source is not Python (``.cu``), for its highlighting.
        """
        self.lines = lines
        self.stage = stage
        self.suffix = suffix
        self.emphasis = {}
        self.heat = {}
        self.linked = set()
        self.matches = set()
        self._strips.clear()
        self._gutter = len(str(max(len(lines), 1))) + 1
        # A fixed width: measuring every line would cost time, and a width that changes with each
        # listing would re-layout the screen on every switch. Longer lines scroll horizontally.
        self.virtual_size = Size(WIDTH, len(lines))
        self.set_reactive(ListingView.cursor, min(max(cursor, 0), max(len(lines) - 1, 0)))
        self.scroll_to(0, max(self.cursor - 3, 0), animate=False, immediate=True)
        self.refresh()

    def set_heat(self, heat: dict[int, float]) -> None:
        """Colour the gutter by each line's share of the samples (``{line: share}``)."""
        if heat == self.heat:  # every row change asks; the drawn lines stay valid when nothing changed
            return
        self.heat = heat
        self._strips.clear()
        self.refresh()

    def set_linked(self, indices: set[int] | list[int], scroll: bool = True) -> None:
        self.linked = set(indices)
        if scroll and self.linked:
            first = min(self.linked)
            if not self._visible(first):
                self.scroll_to(0, max(first - 3, 0), animate=False)
        self.refresh()

    def set_matches(self, indices: set[int]) -> None:
        self.matches = indices
        self.refresh()

    # ------------------------------------------------------------ cursor

    def watch_cursor(self, old: int, new: int) -> None:
        if not self._visible(new):
            self.scroll_to_region(Region(0, new, 1, 1), animate=False, spacing=None, immediate=True)
        self.refresh()
        self.post_message(self.CursorMoved(self, new))

    def _visible(self, index: int) -> bool:
        top = int(self.scroll_offset.y)
        return top <= index < top + max(self.size.height, 1)

    def move_to(self, index: int) -> None:
        if self.lines:
            self.cursor = min(max(index, 0), len(self.lines) - 1)

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(self.size.height - 1, 1))

    def action_jump(self, where: int) -> None:
        self.move_to(len(self.lines) - 1 if where < 0 else where)

    def action_select(self) -> None:
        self.post_message(self.Selected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < len(self.lines):
            self.cursor = index
            if event.chain >= 2:
                self.action_select()

    # ------------------------------------------------------------ drawing

    def render_lines(self, crop):
        # The widget's base style walks the DOM; work it out once per frame, not once per line.
        self._base_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base_style = getattr(self, "_base_style", None) or self.rich_style
        if index >= len(self.lines):
            return Strip.blank(width, base_style)
        segments = self._segments(index)
        background = None
        if index == self.cursor:
            background = CURSOR
        elif index in self.linked:
            background = LINKED
        elif index in self.matches:
            background = MATCH
        base = base_style + background if background is not None else base_style
        return Strip(segments).crop(scroll_x, scroll_x + width).apply_style(base).extend_cell_length(width, base)

    def _colour_the_source(self, suffix: str) -> None:
        if not lexer_built(Stage.SOURCE, suffix):
            build_lexer(Stage.SOURCE, suffix)
            self._strips.clear()
            self.refresh()

    def _segments(self, index: int) -> list[Segment]:
        cached = self._strips.get(index)
        if cached is not None:
            return cached
        line = self.lines[index].expandtabs(4)
        segments = [Segment(f"{index + 1:>{self._gutter - 1}} ", heat_style(self.heat.get(index, 0.0)) or GUTTER)]
        if self.diff:
            style = DIFF_STYLES.get(line[:1])
            at = 0
            for start, end in sorted(self.emphasis.get(index, ())):
                if start < at:
                    continue
                segments += [
                    Segment(line[at:start], style),
                    Segment(line[start:end], (style or Style()) + CHANGED_TOKEN),
                ]
                at = end
            segments.append(Segment(line[at:], style))
        elif self.stage is Stage.SOURCE and not lexer_built(self.stage, self.suffix):
            # The source's lexer takes a twentieth of the first paint to build: the lines show plain in the
            # first frame, and in colour once it is built, just after (and are not kept plain).
            segments.append(Segment(line))
            self.call_after_refresh(self._colour_the_source, self.suffix)
            return segments
        elif self.stage is not None:
            segments.extend(
                Segment(text, _style(style)) for style, text in highlight_line(self.stage, line, self.suffix)
            )
        else:
            segments.append(Segment(line))
        if len(self._strips) > 4000:
            self._strips.clear()
        self._strips[index] = segments
        return segments
