"""On a GPU: the TUI captures a sweep and measures it in the background, and the runtimes are live."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")


async def test_the_tui_measures_in_the_background_and_shows_live_runtimes():
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.tui.factory import make_app
    from irscope.types import Status

    ref = resolve_kernel("square_kernel")
    configs = [resolve_config(ref, {"BLOCK_SIZE": b}) for b in (128, 1024, 4096)]
    app = make_app("square_kernel", sweeps=["BLOCK_SIZE=128,1024,4096"], bench=True)
    assert [r.config for r in app.model.rows] == configs
    async with app.run_test(size=(140, 40)) as pilot:
        for _ in range(600):
            await asyncio.sleep(0.1)
            if not app.busy:
                break
        await pilot.pause()
        assert not app.busy and "failed" not in app.status_text
        for row in app.model.rows:
            assert row.measurement is not None and row.measurement.source == "measured", row.measurement
            assert row.runtime_status is Status.OK and row.measurement.median_us > 0
        assert app.model.fastest() is not None
        assert "fastest" in app.status_text and "measured" in app.status_text
