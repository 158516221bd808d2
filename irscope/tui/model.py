"""What the TUI shows, without the TUI: rows of variants, their runtimes, order and marks.

Kept free of textual so the logic (which row is fastest, how rows sort, what the
chart plots) is plain code that tests can call directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SessionError
from ..ir.sourcemap import SourceMap
from ..measure.runtimes import shown_measurement
from ..records import Facts, Measurement
from ..session.store import Entry, Session
from ..types import Config, KernelId, Stage, Status, Variant


@dataclass
class Row:
    """One variant in the table: its session entry (an in-memory one for a live capture), once captured."""

    index: int
    config: Config
    variant: Variant | None = None
    entry: Entry | None = None  # None: still being captured
    session: Session | None = None  # the row's own session (an Inductor capture has one per kernel)
    kernel: str = ""
    marked: bool = False
    damage: str | None = None  # why the variant's files could not be read (a SessionError's message)
    _source_map: SourceMap | None = None
    _shown: tuple | None = None  # (entry, its measurement, the measurement shown for them)
    _settings: tuple | None = None  # (entry, its settings)
    sample_gpu: str | None = None  # whose recorded runtime to show where none was measured (--sample-gpu)

    @property
    def ready(self) -> bool:
        return self.entry is not None

    @property
    def arch(self) -> str:
        return "" if self.entry is None else self.entry.arch

    @property
    def status(self) -> Status | None:
        return None if self.entry is None else self.entry.status

    @property
    def error(self) -> str | None:
        return None if self.entry is None else self.entry.error

    @property
    def facts(self) -> Facts:
        return Facts() if self.entry is None else self.entry.facts

    def settings(self) -> dict[str, Any]:
        """The config's settings, with what the kernel's heuristics set once the variant is captured."""
        entry = self.entry
        if entry is None:
            return self.config.values()
        if self._settings is None or self._settings[0] is not entry:  # asked per column, per row
            self._settings = (entry, entry.settings())
        return self._settings[1]

    def value(self, name: str) -> Any:
        return self.settings().get(name)

    @property
    def kernel_id(self) -> KernelId | None:
        if self.variant is not None:
            return self.variant.kernel
        return None if self.session is None else self.session.kernel

    @property
    def measurement(self) -> Measurement | None:
        """Measured into the entry, else the sample recorded for this variant (measure/runtimes.py)."""
        entry = self.entry
        if entry is None:
            return None
        # Asked for many times per table refresh; the answer changes only with the entry or its measurement.
        if self._shown is None or self._shown[0] is not entry or self._shown[1] is not entry.measurement:
            kernel = self.kernel_id
            shown = (
                None if kernel is None else shown_measurement(kernel, entry.config, entry.arch, entry, self.sample_gpu)
            )
            self._shown = (entry, entry.measurement, shown)
        return self._shown[2]

    @property
    def runtime_status(self) -> Status | None:
        """The status the row shows: a measurement's verdict (WRONG, CRASHED ...) wins over capture's OK."""
        if self.measurement is not None and self.measurement.status is not Status.OK:
            return self.measurement.status
        return self.status

    def why(self) -> str:
        if self.runtime_status not in (None, Status.OK):
            return (self.measurement.error if self.measurement and self.measurement.error else self.error) or ""
        if self.measurement is not None and self.measurement.source != "measured":
            return self.measurement.source
        return ""

    def damage_note(self) -> str:
        """``damage`` without the session's path in front of the file it names: the note column is narrow."""
        note = self.damage or ""
        if self.session is not None and self.entry is not None:
            for prefix in (self.session.path / "variants" / self.entry.id, self.session.path):
                note = note.replace(f"{prefix}/", "")
        return note

    def source_map(self) -> SourceMap | None:
        if self.variant is None:
            return None
        if self._source_map is None or self._source_map.variant is not self.variant:
            self._source_map = SourceMap(self.variant)
        return self._source_map


class Model:
    """All rows of one kernel, plus where they come from (a session, or live captures)."""

    def __init__(
        self, title: str, configs: list[Config], session: Session | None = None, sample_gpu: str | None = None
    ) -> None:
        self.title = title
        self.session = session
        self.rows = [Row(i, c, sample_gpu=sample_gpu) for i, c in enumerate(configs)]
        self.mark_order: list[int] = []  # marked row indices, oldest first
        self._sources: dict[Path, tuple[str, str | None]] = {}  # session path -> (source, why it is unreadable)
        self._heat: dict[int, tuple[dict[int, float], dict[int, float]] | None] = {}  # row -> ncu's samples
        # What every row decides, kept until a row changes: the table asks per row, and thousands of rows
        # asking for a scan of all of them would be quadratic.
        self._varying: list[str] | None = None
        self._fastest: tuple[Row | None] | None = None
        self._multi_kernel: bool | None = None

    @classmethod
    def from_session(cls, session: Session, sample_gpu: str | None = None) -> Model:
        return cls.from_sessions(session.kernel.name, [session], sample_gpu)

    @classmethod
    def from_sessions(cls, title: str, sessions: list[Session], sample_gpu: str | None = None) -> Model:
        """Every variant of every session, e.g. the kernels of one Inductor capture."""
        pairs = [(s, e) for s in sessions for e in s.entries]
        model = cls(title, [e.config for _, e in pairs], sessions[0] if len(sessions) == 1 else None, sample_gpu)
        for row, (session, entry) in zip(model.rows, pairs):
            row.entry, row.session, row.kernel = entry, session, session.kernel.name
        return model

    @property
    def multi_kernel(self) -> bool:
        if self._multi_kernel is None:  # each row's kernel is set once, when the model is made
            self._multi_kernel = len({r.kernel for r in self.rows}) > 1
        return self._multi_kernel

    def set_variant(self, index: int, variant: Variant, entry: Entry | None = None) -> Row:
        """The row's variant is captured: ``entry`` is its session's, or None for a capture kept in memory."""
        row = self.rows[index]
        row.variant, row.entry = variant, entry if entry is not None else Entry.of(variant)
        row._source_map = None
        self._varying = self._fastest = None
        return row

    def set_measurement(self, index: int, measurement: Measurement) -> Row:
        """A measurement of the row's variant just came in (and is in its session, if it has one)."""
        row = self.rows[index]
        if row.entry is not None:
            row.entry.measurement = measurement
        self._fastest = None
        return row

    def heat(self, row: Row) -> tuple[dict[int, float], dict[int, float]] | None:
        """Where Nsight Compute's samples fell for the row's variant, if its session kept the counters
        (``irscope bench --ncu -o``): ``({SASS line: share}, {Python line - 1: share})``, 0-based lines."""
        if row.index in self._heat:
            return self._heat[row.index]
        found = None
        session = row.session or self.session
        variant = self.variant(row)
        if session is not None and row.entry is not None and variant is not None and variant.ok:
            from ..annotating.hotspots import hot_lines, python_line_shares
            from ..errors import SessionError
            from ..measure.ncu_report import session_counters

            try:
                counters = session_counters(session.path, row.entry.id)
            except SessionError:
                counters = None  # damaged counters: no colours, nothing else changes
            if counters is not None:
                hot = hot_lines(variant, counters)
                found = ({h.index: h.share for h in hot}, {line - 1: s for line, s in python_line_shares(hot).items()})
        self._heat[row.index] = found
        return found

    def variant(self, row: Row) -> Variant | None:
        """The row's variant, read from the session the first time it is needed.

        None while it is being captured, and for a variant whose files are damaged:
        ``row.damage`` then says why, and the files are not read again.
        """
        session = row.session or self.session
        if row.variant is None and row.damage is None and session is not None and row.entry is not None:
            try:
                row.variant = session.variant(row.entry, partial=True)
            except SessionError as exc:
                row.damage = str(exc)
        return row.variant

    def source(self, row: Row) -> tuple[str, str | None]:
        """``(text, damage)``: the Python source of the row's kernel, or why its session's copy cannot be read."""
        variant = self.variant(row)
        if variant is not None and Stage.SOURCE in variant.listings:
            return variant.listings[Stage.SOURCE], None
        session = row.session or self.session
        if session is None:
            return "", None
        if session.path not in self._sources:
            try:
                self._sources[session.path] = (session.source(), None)
            except SessionError as exc:
                self._sources[session.path] = ("", str(exc))
        return self._sources[session.path]

    # ------------------------------------------------------------ derived views

    def fastest(self) -> Row | None:
        if self._fastest is None:
            ranked = [
                r
                for r in self.rows
                if r.measurement is not None and r.measurement.ranked and r.runtime_status is Status.OK
            ]
            self._fastest = (min(ranked, key=_median) if ranked else None,)
        return self._fastest[0]

    def varying(self) -> list[str]:
        """Config names that differ between rows (constexprs first)."""
        if self._varying is None:
            self._varying = self._find_varying()
        return list(self._varying)

    def _find_varying(self) -> list[str]:
        if not self.rows:
            return []
        names = list(dict.fromkeys(n for r in self.rows for n in r.settings()))
        if len(self.rows) == 1 or self.multi_kernel:  # show each kernel's own launch config
            return [
                n
                for n in names
                if any(n in r.config.constexprs or n in (r.facts.heuristics or {}) for r in self.rows)
                or n == "num_warps"
            ]
        return [n for n in names if self._differs(n)]

    def _differs(self, name: str) -> bool:
        """Whether some row's value of ``name`` differs from the first row's: stops at the first that does
        (a sweep's settings differ within a few rows; a session of thousands need not be scanned for each)."""
        first = repr(self.rows[0].value(name))
        return any(repr(row.value(name)) != first for row in self.rows)

    def marked(self) -> list[Row]:
        return [self.rows[i] for i in self.mark_order]

    def toggle_mark(self, row: Row) -> None:
        """Mark or unmark ``row``; at most two rows stay marked (the oldest mark gives way)."""
        if row.index in self.mark_order:
            self.mark_order.remove(row.index)
            row.marked = False
            return
        if len(self.mark_order) >= 2:
            self.rows[self.mark_order.pop(0)].marked = False
        self.mark_order.append(row.index)
        row.marked = True

    def diff_pair(self, current: Row | None) -> tuple[Row, Row] | None:
        """The two rows to diff: the two marked (A first marked), or the marked one and ``current``."""
        marked = self.marked()
        if len(marked) == 2:
            return marked[0], marked[1]
        if len(marked) == 1 and current is not None and current is not marked[0]:
            return marked[0], current
        return None

    def chart_series(self, metric: str = "median_us") -> tuple[str, dict[str, list[tuple[float, float]]]]:
        """``(x name, {series label: [(x, y), ...]})``: runtime (or GB/s) against the first swept
        constexpr, one series per value of the other swept names (num_warps, say)."""
        names = self.varying()
        if not names:
            return "", {}
        x_name, group = names[0], [n for n in names[1:]]
        series: dict[str, list[tuple[float, float]]] = {}
        for row in self.rows:
            m = row.measurement
            value = getattr(m, metric, None) if m is not None and m.ranked else None
            x = row.config.values().get(x_name)
            if value is None or not isinstance(x, (int, float)):
                continue
            label = " ".join(f"{n}={row.config.values().get(n)}" for n in group) or x_name
            series.setdefault(label, []).append((float(x), float(value)))
        for points in series.values():
            points.sort()
        return x_name, series


def source_line_counts(row: Row, line: int) -> dict[Stage, int]:
    """How many lines of each stage a source line became (for the annotation pane)."""
    smap = row.source_map()
    if smap is None:
        return {}
    listings = row.variant.listings if row.variant is not None else {}
    return {stage: len(smap.lines_for(stage, line)) for stage in Stage.compiled() if stage in listings}


def _median(row: Row) -> float:
    """A ranked row's median time (``fastest`` ranks only rows measured with one)."""
    measurement = row.measurement
    return measurement.median_us if measurement is not None and measurement.median_us is not None else float("inf")
