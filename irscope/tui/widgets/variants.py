"""The variants table: one row per variant, sortable, the fastest highlighted, failures explained."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

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
COLUMNS = [
    ("status", "status"),
    ("median_us", "median us"),
    ("gbps", "GB/s"),
    ("pct_copy", "% copy"),
    ("registers", "regs"),
    ("spills", "spill B"),
    ("shared", "shared B"),
    ("ldst", "ld/st B"),
    ("note", "note"),
]


def row_values(model: Model, row: Row) -> dict[str, object]:
    f, m = row.facts, row.measurement
    status = row.runtime_status
    return {
        "kernel": row.kernel,
        **{name: row.value(name) for name in model.varying()},
        "status": DAMAGED if row.damage else "…" if status is None else status.value,
        "median_us": None if m is None else m.median_us,
        "gbps": None if m is None else m.gbps,
        "pct_copy": None if m is None else m.pct_copy,
        "registers": f.registers,
        "spills": f.spills,
        "shared": f.shared,
        "ldst": f.ldst,
        "note": row.damage_note() if row.damage else row.why(),
    }


class VariantsTable(DataTable):
    """Rows keyed by the row index, so sorting never loses track of which variant is which."""

    def __init__(self, model: Model, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.model = model
        self.sort_key: str | None = None
        self._fastest: Row | None = None

    def on_mount(self) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        """All columns and rows from the model, in sort order (keeps the cursor on the same variant)."""
        current = self.current_index()
        self.clear(columns=True)
        self.add_column(" ", key="mark", width=1)
        if self.model.multi_kernel:
            self.add_column("kernel", key="kernel")
        for name in self.model.varying():
            self.add_column(name, key=name)
        for key, title in COLUMNS:
            self.add_column(title, key=key)
        for row in self._ordered():
            self.add_row(*self._cells(row), key=str(row.index))
        self._fastest = self.model.fastest()
        if current is not None:
            self.select_index(current)

    def update_row(self, row: Row) -> None:
        """Refresh one row's cells, and the fastest row's (the fastest may have moved)."""
        fastest = self.model.fastest()
        for other in {id(r): r for r in (row, fastest, self._fastest) if r is not None}.values():
            for key, value in zip(self._keys(), self._cells(other)):
                self.update_cell(str(other.index), key, value)
        self._fastest = fastest

    def _keys(self) -> list[str]:
        kernel = ["kernel"] if self.model.multi_kernel else []
        return ["mark", *kernel, *self.model.varying(), *(k for k, _ in COLUMNS)]

    def _cells(self, row: Row) -> list[object]:
        values = row_values(self.model, row)
        fastest = self.model.fastest()
        style = "bold green" if fastest is row else ""
        out: list[object] = [Text("●" if row.marked else " ", style="bold #c792ea")]
        for key in self._keys()[1:]:
            value = values[key]
            if key == "status":
                out.append(Text(fmt(value) if value != "…" else "…", style=STATUS_STYLE.get(str(value), "grey50")))
            elif key == "kernel":
                out.append(Text(str(value)))
            elif key == "note":
                bad = row.damage or row.runtime_status not in (None, Status.OK)
                out.append(Text(str(value)[:60], style="red" if bad else "grey50"))
            else:
                out.append(Text(fmt(value), style=style, justify="right"))
        return out

    # ------------------------------------------------------------ selection and sorting

    def current_index(self) -> int | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:
            return None
        return int(key.value)

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
            value = row_values(self.model, row).get(self.sort_key)
            number = isinstance(value, (int, float))
            return (value is None, not number, value if number else str(value))

        return sorted(self.model.rows, key=key)
