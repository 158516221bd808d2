"""The stage registry is the one place a stage is declared: every spec must be complete,
and the CLI, the TUI and the help derive their stage lists from it."""

from __future__ import annotations

import pickle

import pytest

from irscope.stages import Stage, StageSpec, specs

SAMPLE = {
    Stage.SOURCE: "import triton\n",
    Stage.TTIR: "module {\n  tt.func public @k() {\n    tt.return loc(#loc1)\n  } loc(#loc)\n} loc(#loc)\n"
    '#loc = loc("/k.py":1:0)\n#loc1 = loc("/k.py":2:4)\n',
    Stage.TTGIR: "#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], "
    "order = [0]}>\nmodule {\n}\n",
    Stage.LLIR: "define void @k() !dbg !3 {\n  ret void, !dbg !5\n}\n",
    Stage.PTX: ".version 8.7\n.target sm_90a\n\tld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];\n",
    Stage.SASS: "        /*0000*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n",
    Stage.AMDGCN: '\t.file\t1 "/" "k.py"\n\t.loc\t1 2 4 prologue_end ; k.py:2:4\n'
    "\tglobal_load_dwordx4 v[2:5], v[0:1], off\n",
}


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.key)
def test_every_stage_spec_is_complete_and_every_table_of_work_holds_the_stage(spec: StageSpec):
    from irscope.annotating.explain import EXPLAINERS
    from irscope.ir.highlight import LEXERS
    from irscope.ir.locations import LOCATIONS
    from irscope.ir.normalize import NORMALISERS
    from irscope.ir.stats import STATS

    assert spec.key and spec.label and spec.comment and spec.description and spec.provided_by
    assert spec.file_extension("/k/square.py")
    stage = spec.stage
    for name, table in {"LOCATIONS": LOCATIONS, "NORMALISERS": NORMALISERS, "STATS": STATS, "LEXERS": LEXERS}.items():
        assert callable(table.get(stage)), f"{name} has nothing for the stage {spec.key}"
    assert (stage in EXPLAINERS) == spec.explained, f"EXPLAINERS and {spec.key}'s `explained` disagree"


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.key)
def test_every_stage_parses_highlights_normalises_and_counts_a_listing(spec: StageSpec):
    from irscope.ir.highlight import highlight_line
    from irscope.ir.locations import locations
    from irscope.ir.normalize import normalize
    from irscope.ir.stats import stage_stats

    stage = spec.stage
    text = SAMPLE[stage]
    assert len(locations(stage, text, "/k.py")) == len(text.splitlines())
    assert normalize(stage, text)
    assert stage_stats(stage, text).stage is stage
    first = text.splitlines()[0]
    assert "".join(part for _, part in highlight_line(stage, first)) == first


def test_a_stage_is_its_name_interned_and_survives_pickling():
    assert Stage("ptx") is Stage.PTX and Stage.PTX == "ptx"
    assert pickle.loads(pickle.dumps(Stage.SASS)) is Stage.SASS
    assert Stage("python") is Stage.SOURCE  # what sessions written before the rename call it
    with pytest.raises(ValueError):
        Stage("no-such-stage")


def test_the_source_stage_is_stored_with_the_kernel_files_own_extension():
    assert Stage.SOURCE.file_name("/x/square.py") == "source.py"
    assert Stage.SOURCE.file_name("/x/kernels.cu") == "source.cu"
    assert Stage.LLIR.file_name("/x/square.py") == "llir.ll"


def test_cli_choices_tui_tabs_and_help_come_from_the_registry():
    from irscope.cli.options import ALL_STAGES, EXPLAINED_STAGES, STAGE_CHOICES
    from irscope.tui.app import STAGE_TABS
    from irscope.tui.screens.help import help_text

    keys = [spec.key for spec in specs()]
    assert ALL_STAGES == keys and STAGE_CHOICES == keys[1:]
    assert EXPLAINED_STAGES == ["ptx", "sass", "amdgcn"]
    assert [k for k, _ in STAGE_TABS] == keys + ["chart", "passes"]
    assert ", ".join(spec.label for spec in specs()) in help_text()
