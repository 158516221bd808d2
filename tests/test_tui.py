"""The TUI driven by Textual's pilot: what the user does, and what the app then shows."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from irscope.tui.app import IrscopeApp, stage_tabs
from irscope.tui.factory import make_app
from irscope.tui.widgets.passes import NO_PASSES
from irscope.types import Stage

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "sessions" / "square_kernel"


def session_app() -> IrscopeApp:
    os.chdir(REPO)  # the sample's paths are relative to the repository
    return make_app(str(SAMPLE.relative_to(REPO)))


async def settle(pilot, timeout: float = 60.0) -> None:
    """Until no worker runs (findings, diffs, sweeps) and the screen has caught up."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while any(w.is_running for w in pilot.app.workers) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    await pilot.pause()


async def cursor_to_first(pilot, matches) -> int:
    """Put the listing's cursor on its first line for which ``matches(line)`` holds; return its index."""
    listing = pilot.app.query_one("#listing")
    target = next(i for i, line in enumerate(listing.lines) if matches(line))
    listing.focus()
    listing.move_to(target)
    await settle(pilot)
    return target


async def test_selecting_a_variant_shows_its_listing():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        listing = app.query_one("#listing")
        first = list(listing.lines)
        assert listing.stage is Stage.PTX and any(".reqntid" in line for line in first)
        await pilot.press("down", "down", "down")
        await settle(pilot)
        row = app.current_row()
        assert row.index == 3
        assert listing.lines != first
        assert f".reqntid {32 * row.config.options['num_warps']}" in "\n".join(listing.lines)


async def test_number_keys_switch_stages():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        listing = app.query_one("#listing")
        for key, stage, needle in (
            ("2", Stage.TTIR, "tt.func"),
            ("3", Stage.TTGIR, "#blocked"),
            ("4", Stage.LLIR, "define"),
            ("6", Stage.SASS, "LDG"),
            ("1", Stage.SOURCE, "def square_kernel"),
            ("5", Stage.PTX, "ld.global"),
        ):
            await pilot.press(key)
            await settle(pilot)
            assert listing.stage is stage
            assert any(needle in line for line in listing.lines), stage


async def test_the_source_pane_and_annotation_follow_the_cursor():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        source = app.query_one("#source")
        target = await cursor_to_first(pilot, lambda line: "ld.global" in line)
        row = app.current_row()
        py = row.source_map().source_line(Stage.PTX, target)
        assert "tl.load" in source.lines[py - 1]
        assert source.linked == {py - 1}
        explanation = app.query_one("#annotation").text
        assert "Load from memory" in explanation and f"Python line {py}" in explanation


async def test_the_annotation_pane_decodes_sass_as_annotate_does():
    # The pane once had its own copy of the SASS decoder, which called kernel-parameter loads
    # "driver-provided constants"; it must say exactly what `irscope annotate --stage sass` says.
    from irscope.annotating import explain_lines

    app = session_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        listing = app.query_one("#listing")
        assert listing.stage is Stage.SASS
        param = re.compile(r"c\[0x0\]\[0x2[1-9a-f][0-9a-f]\]")  # sm_90 kernel parameters start at 0x210
        target = await cursor_to_first(pilot, lambda line: param.search(line) is not None)
        shown = app.query_one("#annotation").text
        expected = explain_lines(app.model.variant(app.current_row()), Stage.SASS)[target]
        assert "kernel parameter" in expected.describe()
        assert expected.summary in shown and "kernel parameter" in shown
        assert "driver-provided" not in shown


async def test_selecting_a_python_line_highlights_every_line_it_became():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        source = app.query_one("#source")
        line = next(i for i, text in enumerate(source.lines) if "square_output = row * row" in text)
        source.focus()
        source.move_to(line)
        await pilot.press("enter")
        await settle(pilot)
        listing = app.query_one("#listing")
        expected = set(app.current_row().source_map().lines_for(Stage.PTX, line + 1))
        assert expected and listing.linked == expected
        assert all(
            "mul.f32" in listing.lines[i]
            or ".loc" in listing.lines[i]
            or not listing.lines[i].strip()
            or "//" in listing.lines[i]
            for i in expected
        )


async def test_marking_two_variants_opens_their_diff():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("m", "down", "down", "m", "d")
        await settle(pilot)
        from irscope.tui.screens.diff import DiffScreen

        assert isinstance(app.screen, DiffScreen)
        body = app.screen.query_one("#diff-body")
        text = "\n".join(body.lines)
        assert text.startswith("A  square_kernel BLOCK_SIZE=128 num_warps=1")
        assert "B  square_kernel BLOCK_SIZE=1024 num_warps=1" in text
        assert "runtime (median)" in text and "B/A =" in text
        assert "--- A" in text and "+++ B" in text
        await pilot.press("y")
        await settle(pilot)
        body = app.screen.query_one("#diff-body")
        assert any(" | " in line or " < " in line or " > " in line for line in body.lines)
        # Across from each other, a replaced pair of lines: only the tokens that changed are marked
        marked = [(n, spans) for n, spans in body.emphasis.items() if " | " in body.lines[n]]
        assert marked
        n, spans = marked[0]
        tokens = [body.lines[n][x:y] for x, y in spans]
        assert tokens and all(t.strip() and " " not in t for t in tokens)
        await pilot.press("escape")
        assert not isinstance(app.screen, DiffScreen)


async def test_search_finds_lines_and_n_steps_through_them():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"ld.global")
        await pilot.press("enter")
        listing = app.query_one("#listing")
        assert listing.matches and listing.cursor in listing.matches
        first = listing.cursor
        await pilot.press("n")
        assert listing.cursor > first and listing.cursor in listing.matches


async def test_sorting_puts_the_fastest_first_and_it_is_highlighted():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        table = app.query_one("#variants")
        top = app.model.rows[int(table.coordinate_to_cell_key((0, 0)).row_key.value)]
        assert top is app.model.fastest()


async def test_the_chart_plots_runtime_per_block_size():
    app = session_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        x_name, series = app.model.chart_series()
        assert x_name == "BLOCK_SIZE" and set(series) == {"num_warps=1", "num_warps=4"}
        assert app.query_one("#switcher").current == "chart"


async def test_escape_cancels_a_running_sweep(tmp_path, monkeypatch):
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs

    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(tmp_path / "cache"))  # nothing cached: the sweep takes seconds
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    ref = resolve_kernel("square_kernel")
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
    app = make_app("square_kernel", arch="sm_90")
    assert [r.config for r in app.model.rows] == configs
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.3)
        assert app.busy
        await pilot.press("escape")
        await settle(pilot)
        assert not app.busy
        assert "cancelled" in app.status_text
        assert sum(r.ready for r in app.model.rows) < len(configs)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_usable_at_small_and_large_sizes(size):
    app = session_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        listing = app.query_one("#listing")
        assert listing.size.height >= 5 and listing.size.width >= 30
        assert app.query_one("#variants").size.height >= 3


# ------------------------------------------------ the Passes tab (issue 17), ncu's samples on SASS (issue 18)

PASSES_KEY = str([key for key, _ in stage_tabs({"nvidia"})].index("passes") + 1)


async def test_the_passes_tab_lists_passes_and_shows_the_ir_after_each_and_its_diff(cli, tmp_path):
    out = tmp_path / "s"
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,1024", "-c", "n_cols=1024", "--passes", "-o", str(out))
    assert result.exit_code == 0, result.output[-2000:]
    app = make_app(str(out))
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        table = app.query_one("#variants")
        table.select_index(next(r.index for r in app.model.rows if r.config.constexprs["BLOCK_SIZE"] == 1024))
        await settle(pilot)  # BLOCK_SIZE=1024: coalescing gives each thread 4 contiguous elements
        await pilot.press(PASSES_KEY)
        await settle(pilot)
        view = app.query_one("#passes")
        variant = view.variant
        assert variant.config.constexprs["BLOCK_SIZE"] == 1024
        log = variant.passes
        table = app.query_one("#pass-table")
        assert table.row_count == len(log.steps) > 20
        listing = app.query_one("#pass-ir")
        first = next(s for s in log.steps if s.changed)
        assert table.cursor_row == first.index - 1
        from irscope.ir.passes import ir_after

        assert listing.lines == ir_after(log, first.index).splitlines()
        coalesce = next(s for s in log.steps if s.arg == "tritongpu-coalesce")
        table.focus()
        table.move_cursor(row=coalesce.index - 1)
        await settle(pilot)
        assert listing.lines == ir_after(log, coalesce.index).splitlines()
        await pilot.press("d")  # its diff against the IR before it
        await settle(pilot)
        assert listing.lines[0].startswith("--- before pass") and any(line.startswith("+") for line in listing.lines)
        assert any("sizePerThread" in line for line in listing.lines if line.startswith(("+", "-")))


async def test_a_variant_without_passes_says_how_to_get_them():
    import os
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    os.chdir(repo)
    app = make_app("samples/sessions/square_kernel")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press(PASSES_KEY)
        await settle(pilot)
        assert app.query_one("#pass-ir").lines == NO_PASSES
        assert app.query_one("#pass-table").row_count == 0


async def test_the_sass_tab_colours_lines_by_where_nsight_computes_samples_fell():
    """samples/ncu/square_h100 kept each variant's counters: the SASS gutter and the Python source are coloured."""
    import os
    from pathlib import Path

    from irscope.tui.widgets.listing import heat_style

    repo = Path(__file__).resolve().parent.parent
    os.chdir(repo)
    app = make_app("samples/ncu/square_h100")
    keys = [key for key, _ in stage_tabs({"nvidia"})]
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        await pilot.press(str(keys.index("sass") + 1))
        await settle(pilot)
        listing, source = app.query_one("#listing"), app.query_one("#source")
        hottest = max(listing.heat, key=listing.heat.get)
        assert "FMUL" in listing.lines[hottest] and heat_style(listing.heat[hottest]) is not None
        assert abs(sum(listing.heat.values()) - 1.0) < 1e-6
        hot_python = max(source.heat, key=source.heat.get)
        assert "row * row" in source.lines[hot_python]
        await pilot.press(str(keys.index("ptx") + 1))  # only the SASS tab is coloured: the counters are SASS's
        await settle(pilot)
        assert listing.heat == {} and source.heat == {}
