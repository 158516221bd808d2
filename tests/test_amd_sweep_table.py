"""The variants table of AMD variants: AMDGCN line counts, VGPRs, SGPRs, scratch and LDS where NVIDIA's
shows PTX lines, registers, spills and shared memory; one rule (session/table.py: ``shown``) for the
CLI's sweep table, the report's and the TUI's, on a kernel written for the tests swept for gfx942 and,
into the same session, for sm_90."""

from __future__ import annotations

import json
import re

import pytest
from written_kernels import SCALED_ADD

from irscope.report.payload import session_data
from irscope.report.shared_paths import SharedPaths
from irscope.session import Session
from irscope.session.table import FACT_COLUMNS, shown
from irscope.stages import Stage

SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32"
AMD_TITLES = ["status", "vgprs", "sgprs", "scratch B", "LDS B", "ld/st B", "amdgcn lines", "compile s"]
NVIDIA_TITLES = ["status", "regs", "spill B", "shared B", "ld/st B", "ptx lines", "compile s"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """Sessions of scaled_add, BLOCK 256 and 1024: for gfx942 and then sm_90 (``both``), for gfx942 only
    (``amd``); and each sweep's table."""
    folder = tmp_path_factory.mktemp("amd-table")
    path = folder / "scaled_add.py"
    path.write_text(SCALED_ADD)
    from click.testing import CliRunner

    from irscope.cli import main

    tables = {}
    for arch in ("gfx942", "sm_90"):
        args = ["sweep", f"{path}:scaled_add", "-S", SIGNATURE, "-s", "BLOCK=256,1024", "--arch", arch]
        out = CliRunner().invoke(main, [*args, "-o", str(folder / "both")], catch_exceptions=False)
        assert out.exit_code == 0, out.stderr
        if arch == "gfx942":
            alone = CliRunner().invoke(main, [*args, "-o", str(folder / "amd")], catch_exceptions=False)
            assert alone.exit_code == 0, alone.stderr
        rows = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
        tables[arch] = (out.stdout, [json.loads(line) for line in rows.stdout.splitlines()])
    return {name: Session.open(folder / name) for name in ("both", "amd")}, tables


def test_an_amd_sweep_shows_amdgcn_lines_and_its_registers_not_blank_nvidia_columns(swept):
    sessions, tables = swept
    session = sessions["amd"]
    text, rows = tables["gfx942"]
    header, *lines = text.splitlines()[:3]
    assert re.split(r"\s{2,}", header.strip()) == ["BLOCK", *AMD_TITLES, "note"]
    variants = {e.config.constexprs["BLOCK"]: session.variant(e) for e in session.entries if e.arch == "gfx942"}
    for line, row in zip(lines, rows):
        variant = variants[row["BLOCK"]]
        r, listing = variant.resources, variant.listings[Stage.AMDGCN]
        assert "ptx_lines" not in row and "spills" not in row
        assert row["amdgcn_lines"] == len(listing.splitlines()) > 100
        assert (row["registers"], row["sgprs"], row["scratch"], row["shared"]) == (r.registers, r.sgprs, 0, 0)
        # the widest global load and store per lane, as the listing spells them
        widest = 16 if row["BLOCK"] == 1024 else 4
        assert row["ldst"] == f"{widest}/{widest}"
        spelled = {4: "dword", 16: "dwordx4"}[widest]
        assert re.search(rf"^\t(global|buffer)_load_{spelled} ", listing, re.M) and re.search(
            rf"^\t(global|buffer)_store_{spelled} ", listing, re.M
        )
        cells = re.split(r"\s{2,}", line.strip())
        assert cells[1:8] == [
            "ok",
            str(r.registers),
            str(r.sgprs),
            "0",
            "0",
            row["ldst"],
            str(row["amdgcn_lines"]),
        ]
    nvidia_header = tables["sm_90"][0].splitlines()[0]
    assert re.split(r"\s{2,}", nvidia_header.strip()) == ["BLOCK", *NVIDIA_TITLES, "note"]  # as it always was


def test_a_session_of_both_vendors_shows_each_vendors_columns_blank_on_the_others_rows(swept):
    session = swept[0]["both"]
    assert [c.title for c in shown(FACT_COLUMNS, {"gfx942", "sm_90"})] == [
        "status", "regs", "sgprs", "spill B", "scratch B", "shared B", "ld/st B", "ptx lines", "amdgcn lines",
        "compile s",
    ]  # fmt: skip
    data = session_data(session, SharedPaths(str(session.kernel.file)))
    titles = [c["title"] for c in data["columns"]]
    assert titles[:2] == ["BLOCK", "arch"] and "ptx lines" in titles and "amdgcn lines" in titles
    for variant in data["variants"]:
        cells = dict(zip(titles, variant["cells"]))
        amd = cells["arch"] == "gfx942"
        assert (cells["ptx lines"] == "—") == amd and (cells["amdgcn lines"] == "—") != amd
        assert (cells["sgprs"] == "—") != amd and (cells["spill B"] == "—") == amd


async def test_the_tui_takes_its_columns_from_the_same_rule(swept, tmp_path):
    from irscope.tui.factory import make_app

    sessions, _ = swept
    app = make_app(str(sessions["both"].path))
    async with app.run_test(size=(220, 40)) as pilot:
        await pilot.pause(0.5)
        table = app.query_one("#variants")
        labels = [str(column.label) for column in table.columns.values()]
        assert {"sgprs", "scratch B", "spill B", "regs"} <= set(labels)
        vendors = []
        for i in range(table.row_count):
            row = [str(cell) for cell in table.get_row_at(i)]
            sgprs, spills = row[labels.index("sgprs")], row[labels.index("spill B")]
            assert (sgprs == "—") != (spills == "—")  # each row fills its own vendor's column only
            vendors.append("amd" if spills == "—" else "nvidia")
        assert sorted(vendors) == ["amd", "amd", "nvidia", "nvidia"]
    async with make_app(str(sessions["amd"].path)).run_test(size=(220, 40)) as pilot:
        await pilot.pause(0.5)
        labels = [str(column.label) for column in pilot.app.query_one("#variants").columns.values()]
        assert labels[labels.index("status") :] == [
            "status", "median us", "GB/s", "% copy", "vgprs", "sgprs", "scratch B", "LDS B", "ld/st B", "note"
        ]  # fmt: skip
