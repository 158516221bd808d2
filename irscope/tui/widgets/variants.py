"""The variants table: one row per variant, sortable, the fastest highlighted, failures explained."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.widgets import DataTable
from textual.widgets._data_table import Row as TableRow
from textual.widgets._data_table import RowKey

from ...session.table import FACT_COLUMNS, RUNTIME_COLUMNS, Column, shown
from ...session.table import text as fmt
from ...types import Status
from ..model import Model, Row

DAMAGED = "damaged"  # the status of a row whose variant's files could not be read (Row.damage says why)
STATUS_STYLE = {
    "ok": "green",
    "failed": "red",
    "wrong": "bold red",
    "crashed": "bold red",
    "timeout": "red",
    DAMAGED: "bold red",
}
# the sweep table's columns (session/table.py), runtime first, without the line counts and compile time
COLUMNS = [
    Column("status", "status", numeric=False),
    *RUNTIME_COLUMNS,
    *(c for c in FACT_COLUMNS if c.key not in ("status", "ptx_lines", "amdgcn_lines", "compile_s")),
    Column("note", "note", numeric=False),
]
# Rows whose texts give the column widths before the first paint: those around the cursor. A longer
# table's other rows are measured just after it is painted, CHUNK at a time between keypresses.
FIRST_ROWS = 100
CHUNK = 500


def row_values(model: Model, row: Row) -> dict[str, object]:
    f, m = row.facts, row.measurement
    status = row.runtime_status
    settings = row.settings()
    return {
        "kernel": row.kernel,
        **{name: settings.get(name) for name in model.varying()},
        "status": DAMAGED if row.damage else "…" if status is None else status.value,
        "median_us": None if m is None else m.median_us,
        "gbps": None if m is None else m.gbps,
        "pct_copy": None if m is None else m.pct_copy,
        "registers": f.registers,
        "sgprs": f.sgprs,
        "spills": f.spills,
        "scratch": f.scratch,
        "shared": f.shared,
        "ldst": f.ldst,
        "note": row.damage_note() if row.damage else row.why(),
    }


class VariantsTable(DataTable):
    """Rows keyed by the row index, so sorting never loses track of which variant is which.

    Textual's DataTable paints only the rows in view, but ``add_row`` stores and measures every
    cell of every row up front (seconds for a session of thousands). Here the rows are handed to
    it all at once, each cell made only when its row is first painted (``_LazyCells``), and the
    column widths come from the cells' plain text (``_column_widths``): opening or sorting costs
    one pass over the index, whatever the session's size, and the rendering is DataTable's own.
    Of a table longer than FIRST_ROWS only the rows around the cursor are measured before it is
    painted; the rest are measured right after (``_measure_rest``), widening a column if needed.
    """

    def __init__(self, model: Model, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.model = model
        self.sort_key: str | None = None
        self._fastest: Row | None = None
        # row index -> each column's text and value, kept until update_row: a sort or a mark
        # rebuilds the table from these, not from the rows again
        self._texts_of: dict[int, dict[str, tuple[str, object]]] = {}
        self._texts_keys: list[str] = []
        self._shown: list[Column] | None = None
        self._archs: set[str] = set()
        self._rebuilt = 0  # which rebuild the rows still being measured belong to
        self.unmeasured = 0  # rows whose texts the column widths do not count yet (see _measure_rest)

    def on_mount(self) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        """All columns and rows from the model, in sort order (keeps the cursor on the same variant)."""
        current = self.current_index()
        self._shown = None  # rows may have come: their vendors say the columns again
        self.clear(columns=True)
        self.add_column(" ", key="mark", width=1)
        if self.model.multi_kernel:
            self.add_column("kernel", key="kernel")
        for name in self.model.varying():
            self.add_column(name, key=name)
        for column in self._columns():
            self.add_column(column.title, key=column.key)
        ordered = self._ordered()
        keys = [RowKey(str(row.index)) for row in ordered]
        by_key = dict(zip(keys, ordered))
        self._row_locations = TwoWayDict({key: i for i, key in enumerate(keys)})
        self.rows = {key: TableRow(key, 1) for key in keys}
        self._data = _LazyCells(by_key, lambda key: dict(zip(self._keys(), self._cells(by_key[key]))))
        self._fastest = self.model.fastest()
        self._rebuilt += 1
        at = (self._row_locations.get(RowKey(str(current))) if current is not None else None) or 0
        rest = self._measure_first(ordered, at)
        self.unmeasured = len(rest)
        if rest:
            self.call_after_refresh(self._measure_rest, self._rebuilt, rest)
        self._resized()
        if current is not None:
            self.select_index(current)  # the variant shown stays shown: nothing to read
        elif keys:  # as add_row says when the cursor, at (0, 0), first has a row under it
            self._highlight_cursor()

    def _measure_first(self, ordered: list[Row], at: int) -> list[Row]:
        """Widen the columns to the rows around position ``at`` and every row measured before; the rows left."""
        start = max(at - FIRST_ROWS // 2, 0)
        for row in ordered[start : start + FIRST_ROWS]:
            self._texts(row)
        known = self._texts_of
        self._widen([row for row in ordered if row.index in known])
        return [row for row in ordered if row.index not in known]

    def _measure_rest(self, rebuilt: int, rows: list[Row]) -> None:
        """Measure CHUNK more of ``rows`` (a table painted before all its rows were measured), then yield."""
        if rebuilt != self._rebuilt:  # rebuilt since: that rebuild measures its own rows
            return
        if self._widen(rows[:CHUNK]):
            self._resized()
        self.unmeasured = len(rows[CHUNK:])
        if rows[CHUNK:]:
            self.call_later(self._measure_rest, rebuilt, rows[CHUNK:])

    def _widen(self, rows: list[Row]) -> bool:
        """Widen each column to its widest text in ``rows``; whether one was widened."""
        wider = False
        for column, width in zip(self.ordered_columns, self._column_widths(rows)):
            if width > column.content_width:
                column.content_width, wider = width, True
        return wider

    def _resized(self) -> None:
        self._require_update_dimensions = True  # the table's size, from its columns, when it is next idle
        self._update_count += 1
        self.check_idle()

    def update_row(self, row: Row) -> None:
        """Refresh one row's cells, and the fastest row's (the fastest may have moved)."""
        if row.arch and row.arch not in self._archs and shown(COLUMNS, self._archs | {row.arch}) != self._columns():
            self.rebuild()  # the first row of a vendor the columns do not show yet (a live capture's first)
            return
        fastest = self.model.fastest()
        for other in {id(r): r for r in (row, fastest, self._fastest) if r is not None}.values():
            self._texts_of.pop(other.index, None)
            for key, value in zip(self._keys(), self._cells(other)):
                self.update_cell(str(other.index), key, value)
        self._fastest = fastest

    def _keys(self) -> list[str]:
        kernel = ["kernel"] if self.model.multi_kernel else []
        return ["mark", *kernel, *self.model.varying(), *(c.key for c in self._columns())]

    def _columns(self) -> list[Column]:
        """The columns the rows' vendors have (session/table.py's rule): SGPRs and scratch for AMD's. Asked for
        each row's texts, so worked out once per rebuild, not once per row."""
        if self._shown is None:
            self._archs = {row.arch for row in self.model.rows if row.arch}  # a row still compiling has none
            self._shown = shown(COLUMNS, self._archs)
        return self._shown

    def _cells(self, row: Row) -> list[object]:
        return [self._cell(key, value, row) for key, value in self._texts(row).items()]

    def _texts(self, row: Row) -> dict[str, tuple[str, object]]:
        """Each column's plain text for ``row`` and the value it shows (what widths, cells and the sort use)."""
        keys = self._keys()
        if keys != self._texts_keys:
            self._texts_of, self._texts_keys = {}, keys
        texts = self._texts_of.get(row.index)
        if texts is None:
            texts = self._texts_of[row.index] = self._make_texts(row, keys)
        return {"mark": ("●" if row.marked else " ", None), **texts}

    def _make_texts(self, row: Row, keys: list[str]) -> dict[str, tuple[str, object]]:
        values = row_values(self.model, row)
        out: dict[str, tuple[str, object]] = {}
        for key in keys[1:]:
            value = values[key]
            if key == "status":
                shown = fmt(value) if value != "…" else "…"
            elif key == "kernel":
                shown = str(value)
            elif key == "note":
                shown = str(value)[:60]
            else:
                shown = fmt(value)
            out[key] = (shown, value)
        return out

    def _cell(self, key: str, shown: tuple[str, object], row: Row) -> Text:
        text, value = shown
        if key == "mark":
            return Text(text, style="bold #c792ea")
        if key == "status":
            return Text(text, style=STATUS_STYLE.get(str(value), "grey50"))
        if key == "kernel":
            return Text(text)
        if key == "note":
            bad = row.damage or row.runtime_status not in (None, Status.OK)
            return Text(text, style="red" if bad else "grey50")
        return Text(text, style="bold green" if self.model.fastest() is row else "", justify="right")

    def _column_widths(self, rows: list[Row]) -> list[int]:
        """The widest plain text of each column over ``rows``: their texts, none of their cells."""
        texts = [self._texts(row) for row in rows]
        return [
            max((cell_len(text) for text in {row_texts[key][0] for row_texts in texts}), default=0)
            for key in self._keys()
        ]

    # ------------------------------------------------------------ selection and sorting

    def current_index(self) -> int | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:
            return None
        return int(str(key.value))

    def select_index(self, index: int) -> None:
        try:
            self.move_cursor(row=self.get_row_index(str(index)))
        except Exception:
            pass

    def cycle_sort(self) -> str:
        """Sort by the next column: runtime, then each config column, registers, then sweep order."""
        order = ["median_us", *self.model.varying(), "registers", None]
        self.sort_key = order[(order.index(self.sort_key) + 1) % len(order)] if self.sort_key in order else order[0]
        self.rebuild()
        return self.sort_key or "sweep order"

    def _ordered(self) -> list[Row]:
        if self.sort_key is None:
            return list(self.model.rows)

        def key(row: Row) -> tuple:
            value = self._texts(row)[str(self.sort_key)][1]
            number = isinstance(value, (int, float))
            return (value is None, not number, value if number else str(value))

        return sorted(self.model.rows, key=key)


class _LazyCells(dict):
    """DataTable's store of cells (row key -> column key -> cell), each row's made on first use.

    It answers for every row from the start (``len``, ``in``, ``get``, iteration), as the
    table's own dict does once every row is added; a row's cells are built when the table
    first paints, reads or updates that row.
    """

    def __init__(self, rows: dict, build: Callable[[RowKey], dict]) -> None:
        super().__init__()
        self._rows = rows
        self._build = build

    def __missing__(self, key: RowKey) -> dict:
        if key not in self._rows:
            raise KeyError(key)
        cells = self[key] = self._build(key)
        return cells

    def __len__(self) -> int:
        return len(self._rows)

    def clear(self) -> None:  # DataTable.clear: no rows any more
        super().clear()
        self._rows = {}

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self):
        return iter(self._rows)

    def get(self, key, default=None):
        return self[key] if key in self._rows else default

    def keys(self):
        return self._rows.keys()

    def items(self):
        return ((key, self[key]) for key in self._rows)

    def values(self):
        return (self[key] for key in self._rows)
