"""Snapshots of the main screens, opened on the session recorded in samples/ (no GPU, no compile)."""

from __future__ import annotations

from test_tui import session_app, settle

SIZE = (120, 36)


def _after(*keys):
    async def run_before(pilot) -> None:
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
        await settle(pilot)

    return run_before


def test_main_screen_on_ptx(snap_compare):
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=_after())


def test_sass_with_the_cursor_on_a_load(snap_compare):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        listing = pilot.app.query_one("#listing")
        listing.focus()
        listing.move_to(next(i for i, line in enumerate(listing.lines) if "LDG" in line))
        await settle(pilot)

    assert snap_compare(session_app(), terminal_size=SIZE, run_before=run_before)


def test_diff_screen(snap_compare):
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=_after("m", "down", "down", "m", "d"))


def test_chart(snap_compare):
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=_after("7"))


def test_help(snap_compare):
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=_after("question_mark"))


def test_small_terminal(snap_compare):
    assert snap_compare(session_app(), terminal_size=(80, 24), run_before=_after())
