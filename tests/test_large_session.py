"""A session of 5,000 variants: opening, sorting, listing and the TUI's table read its index, never every variant.

The session is made by tests/large_session.py: 4 variants of tests/scale_kernel.py:poly (a kernel written
for these tests) compiled for real, then their stored files written again under 4,996 other configs
through the session's own writer. Which files are read is seen through Python's audit hooks
(``sys.addaudithook``: every ``open`` and directory listing the interpreter makes), not a mock.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from large_session import KERNEL, make_large_session

from irscope.cli import main
from irscope.session import Session
from irscope.session.table import FACT_COLUMNS, cell, varying

COUNT = 5000
_watched: list[tuple[Path, list[str]]] = []  # (folder, what was opened under it) while a test watches
_lock = threading.Lock()


def _audit(event: str, args: tuple) -> None:
    if event not in ("open", "os.scandir", "os.listdir") or not _watched or not args:
        return
    path = args[0]
    if not isinstance(path, (str, bytes, Path)):
        return  # an open of a file descriptor
    text = str(path if not isinstance(path, bytes) else path.decode(errors="replace"))
    with _lock:
        for folder, seen in _watched:
            if text.startswith(str(folder)):
                seen.append(text)


sys.addaudithook(_audit)  # hooks cannot be removed: this one records only while a test watches


@contextmanager
def variant_reads(session: Path):
    """The variants (folder names under variants/) whose files or listing were opened meanwhile."""
    seen: list[str] = []
    watch = (session / "variants", seen)
    _watched.append(watch)
    read: set[str] = set()
    try:
        yield read
    finally:
        _watched.remove(watch)
        prefix = str(session / "variants")
        read.update(p[len(prefix) :].strip("/").split("/")[0] or "<variants/ listed>" for p in seen)


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("large") / "session"
    session = make_large_session(path, COUNT)
    assert len(session) == COUNT
    return path


def test_opening_a_session_of_5000_variants_reads_only_its_index(large):
    with variant_reads(large) as read:
        start = time.perf_counter()
        session = Session.open(large)
        opened = time.perf_counter() - start
    assert read == set(), sorted(read)[:5]
    assert len(session) == COUNT and len({e.id for e in session.entries}) == COUNT
    assert opened < 3.0, opened  # one JSON file; reading every variant's files takes tens of seconds here


def test_sorting_by_every_column_and_finding_each_variant_reads_no_variant(large):
    session = Session.open(large)
    with variant_reads(large) as read:
        start = time.perf_counter()
        for key in [*varying(session.entries), *(c.key for c in FACT_COLUMNS)]:
            ordered = sorted(session.entries, key=lambda e: (cell(e, key) is None, str(cell(e, key))))
            assert len(ordered) == COUNT
        found = [session.find(e.config, e.arch) for e in session.entries]
        elapsed = time.perf_counter() - start
    assert read == set(), sorted(read)[:5]
    assert found == session.entries  # each config finds its own entry
    assert elapsed < 5.0, elapsed  # a scan per find would be 25 million config keys


def test_resuming_the_sweep_on_the_cli_lists_1000_variants_from_the_index(large):
    # The kernel's declared sweep is BLOCK x num_warps x TERMS at num_stages 3: 1,000 of the session's variants.
    with variant_reads(large) as read:
        start = time.perf_counter()
        result = CliRunner().invoke(main, ["sweep", f"{KERNEL}:poly", "-o", str(large), "--json"])
        elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 1000 and all(r["status"] == "ok" for r in rows)
    assert {(r["BLOCK"], r["TERMS"], r["num_warps"]) for r in rows} == {
        (b, t, w) for b in (32, 64, 128, 256, 512) for t in range(1, 51) for w in (1, 2, 4, 8)
    }
    assert "1000 ok, 0 failed, 1000 reused" in result.stderr
    # Saving the sweep's request lists variants/ for a killed writer's leftovers (session/store.py: _recover):
    # names only, no variant opened.
    assert read <= {"<variants/ listed>"}, sorted(read)[:5]
    assert elapsed < 15.0, elapsed
    assert len(Session.open(large)) == COUNT


def test_the_tui_shows_the_first_rows_and_moves_and_sorts_reading_only_the_variant_shown(large):
    from irscope.tui.app import IrscopeApp
    from irscope.tui.factory import make_app
    from irscope.tui.widgets.variants import FIRST_ROWS, VariantsTable

    async def run() -> None:
        with variant_reads(large) as opening:
            start = time.perf_counter()
            app = make_app(str(large))
            first_frame: dict[str, int] = {}

            def display(screen, renderable) -> None:  # the first frame with rows and a listing: what it measured
                IrscopeApp._display(app, screen, renderable)
                if not first_frame and renderable is not None and app._shown is not None:
                    measured = app.query_one("#variants", VariantsTable)._texts_of
                    first_frame.update(measured=len(measured))

            app._display = display  # type: ignore[method-assign]  # the first frame, seen as it is painted
            async with app.run_test(size=(120, 36)) as pilot:
                await pilot.pause()
                painted = time.perf_counter() - start
                table = app.query_one("#variants", VariantsTable)
                # Painted from the rows around the cursor; the other rows are measured after it.
                assert 0 < first_frame["measured"] <= FIRST_ROWS, first_frame
                widths_at_first = [c.content_width for c in table.ordered_columns]
                deadline = time.perf_counter() + 60
                while table.unmeasured and time.perf_counter() < deadline:
                    await pilot.pause(0.05)
                assert table.unmeasured == 0 and len(table._texts_of) == COUNT
                # ... and then the columns are as wide as every row's text, as if all were measured first
                every_row = table._column_widths(app.model.rows)
                labels = [len(str(c.label)) for c in table.ordered_columns]
                assert [c.content_width for c in table.ordered_columns][1:] == [
                    max(w, label) for w, label in zip(every_row, labels)
                ][1:]  # (the mark column is one wide, whatever its text)
                assert all(a <= b for a, b in zip(widths_at_first, (c.content_width for c in table.ordered_columns)))
                first = app.model.rows[0]
                assert first.entry is not None
                assert table.row_count == COUNT and app.current_row() is first
                cells = [str(c) for c in table.get_row_at(0)]
                assert cells[1:4] == [str(first.entry.value(n)) for n in app.model.varying()[:3]]
                assert "ok" in cells
                built = dict.__len__(table._data)  # rows whose cells were made: those painted, not 5,000
                assert built <= 20, built
                with variant_reads(large) as moving:
                    await pilot.press("down", "down", "down")
                    await pilot.pause()
                assert (app.current_row() or first).index == 3
                assert moving <= {r.entry.id for r in app.model.rows[1:4] if r.entry}, (
                    moving
                )  # the listing shown, no more
                with variant_reads(large) as sorting:
                    start = time.perf_counter()
                    sorts = len(["median_us", *app.model.varying(), "registers", None])
                    for _ in range(sorts):
                        await pilot.press("o")
                        await pilot.pause()
                    sorted_in = (time.perf_counter() - start) / sorts
                assert sorting == set(), sorted(sorting)[:5]
                assert (app.current_row() or first).index == 3  # the cursor stayed on its variant through every sort
                assert table.sort_key is None  # round the whole cycle, back to sweep order
                assert dict.__len__(table._data) <= 20
        assert opening <= {e.id for e in (app.model.rows[i].entry for i in range(4)) if e}, opening
        assert painted < 10.0, painted  # on a quiet machine about 1 s: tests/perf/bench_scale.py
        assert sorted_in < 3.0, sorted_in

    asyncio.run(run())


def test_the_quick_type_check_of_an_index_entry_keeps_every_refusal():
    """typed_fields passes JSON's own types at a glance (5,000 entries open a session); the rest as before."""
    import enum

    import pytest

    from irscope.records import Facts, Measurement
    from irscope.types import typed_fields

    class Count(int):  # not what JSON gives, but an int all the same
        pass

    class Level(enum.IntEnum):
        HIGH = 3

    assert typed_fields(Facts, {"registers": 32, "shared": None, "not_a_field": "x"}) == {
        "registers": 32,
        "shared": None,
    }
    assert typed_fields(Facts, {"registers": Count(7)})["registers"] == 7
    assert typed_fields(Facts, {"registers": Level.HIGH})["registers"] == 3
    assert typed_fields(Measurement, {"median_us": 3})["median_us"] == 3  # an int where a float goes
    for field, value in (("registers", True), ("registers", 1.5), ("registers", "32"), ("registers", [32])):
        with pytest.raises(TypeError, match=f"Facts.{field} must be"):
            typed_fields(Facts, {field: value})
    with pytest.raises(TypeError, match="median_us must be"):
        typed_fields(Measurement, {"median_us": False})  # a bool is never a number here
    with pytest.raises(TypeError, match="must be an object"):
        typed_fields(Facts, [("registers", 32)])
