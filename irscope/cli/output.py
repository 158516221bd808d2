"""What the CLI writes to a terminal: text from data with its control characters made visible.

Kernel names, configs, error messages and listings come from sessions, logs and traces
that other people wrote. A terminal obeys the control sequences in them (a window title,
a cleared screen, a bell; bidi overrides reorder what is read), so every line the CLI
prints goes through ``echo`` or ``Console`` here, which show each control as its Python
escape (``\\x1b``, ``\\u202e``) instead of deleting it, so what was in the data stays in
sight. JSON output is escaped by ``json.dumps`` already.

Tables are read in two places: a terminal, where they fit its width, and a log or a CI
file, where nothing is gained by cutting them (``table_console``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console as _RichConsole

# C0 and C1 controls (tab and newline are layout, kept), DEL, and the bidi controls (Trojan Source).
_CONTROLS = [
    *range(0x00, 0x09),
    *range(0x0B, 0x20),
    *range(0x7F, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
_VISIBLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _CONTROLS}
_VISIBLE_ONE_LINE = {**_VISIBLE, 0x0A: "\\n"}


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character written as its escape; ``one_line`` escapes newlines too."""
    return text.translate(_VISIBLE_ONE_LINE if one_line else _VISIBLE)


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of text that may hold data."""
    click.echo(visible(message), err=err, nl=nl)


def error_line(message: str) -> None:
    """One diagnostic line on stderr, whatever the message holds."""
    click.echo(visible(message, one_line=True), err=True)


if TYPE_CHECKING:

    class Console(_RichConsole):
        def render_str(self, text: str, **kwargs: Any) -> Any: ...

else:

    def __getattr__(name: str) -> Any:
        # rich is a fifth of a cached `irscope dump`'s imports, and only tables and progress bars use it
        if name == "Console":
            return _console_class()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _console_class() -> type[Console]:
    from rich.console import Console as _RichConsole

    class VisibleConsole(_RichConsole):
        """rich's Console for tables of data: no markup read from it, its controls made visible.

        Every string a table cell or ``print`` holds becomes text through ``render_str``, before
        rich measures it, so the escapes are measured as the characters they are.
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("markup", False)  # a "[/]" in a kernel's note is text, not a style to close
            super().__init__(*args, **kwargs)

        def render_str(self, text: str, **kwargs: Any) -> Any:
            return super().render_str(visible(text), **kwargs)

        def _render_buffer(self, buffer) -> str:
            # Written to a pipe or a file (no colours), a table's rows were padded to its full width: each line
            # ended in spaces (up to 130 of them in `irscope list | cat -A`), which a diff or a grep then trips on.
            text = super()._render_buffer(buffer)
            if self.is_terminal or self.color_system is not None:
                return text
            return "\n".join(line.rstrip(" ") for line in text.split("\n"))

    VisibleConsole.__name__ = VisibleConsole.__qualname__ = "Console"
    VisibleConsole.__module__ = __name__
    return VisibleConsole  # type: ignore[return-value]  # the one class TYPE_CHECKING names Console


def table_console(table) -> Console:
    """A Console for printing ``table`` on stdout, and the lines that follow it.

    On a terminal: the terminal's width; columns made ``no_wrap`` (names, numbers) keep
    their width and the wrapping ones (a note, a path) take what is left. Written to a
    pipe or a file there is no width to fit, and a cut header ("BLOCK_SIZ…") or a kernel
    name folded over three lines is what a log keeps: the table gets its own natural
    width, each row one line, and the lines printed after it are never wrapped.
    """
    from rich.measure import Measurement

    console_class = _console_class()
    console = console_class()
    if console.is_terminal:
        return console
    natural = Measurement.get(console, console.options.update_width(_UNBOUNDED), table).maximum
    return console_class(width=max(natural, console.width), soft_wrap=True)


_UNBOUNDED = 1 << 20  # wider than any table: the measure of its widest row

CSV_KEY = "irscope.csv"  # ctx.meta: the command was given --csv


def csv_option(fn):
    """``--csv``: the command's table as CSV on stdout (a header row, then a row per table row), for a
    spreadsheet or pandas; what it prints after the table goes to stderr. Read by ``print_table``."""

    def remember(ctx: click.Context, _param, value: bool) -> None:
        if value:
            ctx.meta[CSV_KEY] = True

    return click.option(
        "--csv",
        is_flag=True,
        expose_value=False,
        callback=remember,
        help="Print the table as CSV (a header row, then one row each); the lines after it go to stderr.",
    )(fn)


def print_table(table) -> Console:
    """Print ``table`` (a rich Table) on stdout, as the terminal or a log reads it (``table_console``), or as CSV
    where the command was given ``--csv``; returns the Console for the lines that follow it (stderr under --csv,
    so that stdout is CSV alone)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or not ctx.meta.get(CSV_KEY):
        console = table_console(table)
        console.print(table)
        return console
    import csv
    import io

    from rich.text import Text

    columns = [[_plain(c, Text) for c in column.cells] for column in table.columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([_plain(column.header, Text) for column in table.columns])
    writer.writerows(zip(*columns))
    click.echo(visible(out.getvalue()), nl=False)
    return _console_class()(stderr=True, soft_wrap=True)


def _plain(cell, text_type) -> str:
    if isinstance(cell, text_type):
        return cell.plain
    return "" if cell is None else str(cell)
