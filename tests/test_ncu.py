"""Nsight Compute's per-instruction counters joined to irscope's SASS and Python lines (issue 18).

samples/ncu/square_h100/ is what `irscope bench square_kernel -s BLOCK_SIZE=128,1024 --ncu -o ...` wrote on
an H100: the session, an .ncu-rep report (BLOCK_SIZE=1024; ncu --set full) and each variant's counters as
read by NVIDIA's ncu_report module. The counters join on any machine; the report itself is read only where
Nsight Compute's Python module is installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.annotating.hotspots import hot_lines, matched, python_line_shares
from irscope.measure.ncu_report import KernelCounters, NcuReportUnavailable, ncu_report_module, read_report
from irscope.session import Session
from irscope.types import Stage

SESSION = Path(__file__).resolve().parent.parent / "samples" / "ncu" / "square_h100"
ID = "BLOCK_SIZE-{}_num_warps-4_num_stages-3_n_rows-4096_n_cols-781_sm_90"


def _variant_and_counters(block, counters_of=None):
    session = Session.open(SESSION)
    variant = session.variant(ID.format(block))
    data = json.loads((SESSION / "ncu" / f"{ID.format(counters_of or block)}.counters.json").read_text())
    return variant, KernelCounters.from_json(data)


@pytest.mark.parametrize("block", [128, 1024])
def test_every_counted_instruction_is_an_instruction_of_the_variants_sass(block):
    variant, counters = _variant_and_counters(block)
    hit, total = matched(variant, counters)
    assert total > 20 and hit == total
    hot = hot_lines(variant, counters)
    assert abs(sum(h.share for h in hot) - 1.0) < 1e-6
    assert sum(h.executed for h in hot) == sum(c.get("inst_executed", 0) for c in counters.per_offset.values())


@pytest.mark.parametrize("block", [128, 1024])
def test_the_hottest_lines_are_the_square_waiting_for_its_load(block):
    """Warps spend their time at `row * row` (the FMUL), stalled on the long scoreboard: waiting for the LDG
    that loaded its operand. The sample says so through the join: SASS line, its Python line, its reason."""
    variant, counters = _variant_and_counters(block)
    hot = hot_lines(variant, counters)
    source = variant.listings[Stage.SOURCE].splitlines()
    shares = python_line_shares(hot)
    hottest = next(iter(shares))
    assert "row * row" in source[hottest - 1] and shares[hottest] > 0.5
    top = hot[0]
    assert "FMUL" in top.text and top.python_line == hottest
    assert next(iter(top.stalls)) == "long_scoreboard"
    register = re.search(r"FMUL (R\d+), (R\d+)", top.text)[2]
    sass = variant.listings[Stage.SASS].splitlines()
    loads = [line for line in sass[: top.index] if "LDG" in line and re.search(rf"\b{register}\b,", line)]
    assert loads, f"no LDG writes {register} before the FMUL"


def test_counters_of_another_config_are_refused(cli):
    variant, counters = _variant_and_counters(1024, counters_of=128)
    hit, total = matched(variant, counters)
    assert hit < total
    # the CLI reads a session's own counters, so only a report given by hand can mismatch
    report = SESSION / "ncu" / f"{ID.format(1024)}.ncu-rep"
    assert report.exists()


def test_irscope_ncu_shows_python_lines_and_sass_lines(cli):
    result = cli("ncu", str(SESSION), "-c", "BLOCK_SIZE=1024")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "9.86 us" in text and "line 24   square_output = row * row" in text
    assert re.search(r"FMUL R17, R17, R17 ;\s+line 24\s+long_scoreboard", text)
    assert "long_scoreboard: waiting for the result of a global or local memory load" in text
    data = json.loads(cli("ncu", str(SESSION), "-c", "BLOCK_SIZE=1024", "--json").stdout)
    assert data["hot_sass"][0]["python_line"] == 24 and data["metrics"]["registers"] == 30


def test_without_counters_or_a_report_one_line(cli, tmp_path):
    one_line_error(cli("ncu", "square_kernel"), 2, "give --report")
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    for f in (copy / "ncu").iterdir():
        f.unlink()
    one_line_error(cli("ncu", str(copy), "-c", "BLOCK_SIZE=1024"), 2, "no Nsight Compute counters")
    one_line_error(cli("ncu", "square_kernel", "--report", str(tmp_path / "none.ncu-rep")), 2, "no such report")


def _has_ncu_report() -> bool:
    try:
        ncu_report_module()
    except NcuReportUnavailable:
        return False
    return True


@pytest.mark.skipif(_has_ncu_report(), reason="NVIDIA's ncu_report is installed here")
def test_reading_a_report_without_ncu_report_says_so_in_one_line(cli):
    with pytest.raises(NcuReportUnavailable):
        read_report(SESSION / "ncu" / f"{ID.format(1024)}.ncu-rep")
    result = cli(
        "ncu",
        "square_kernel",
        "--arch",
        "sm_90",
        "-c",
        "BLOCK_SIZE=1024",
        "--report",
        str(SESSION / "ncu" / f"{ID.format(1024)}.ncu-rep"),
    )
    one_line_error(result, 2, "ncu_report is not available")


def _module_file(**env: str) -> subprocess.CompletedProcess:
    code = "from irscope.measure.ncu_report import ncu_report_module as m; print(m().__file__)"
    path = os.pathsep.join(filter(None, [env.pop("PYTHONPATH", None), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env, "PYTHONPATH": path, "PATH": "/usr/bin:/bin"},  # no ncu install to fall back on
        cwd="/",
    )


def _wheel_layout(root: Path, body: str = "from . import _ncu_report\nload_report = _ncu_report.load_report\n"):
    """A folder laid out as the ncu-report wheel installs into site-packages: a package, its compiled part beside.

    A stand-in for where the module is found, not for what it reads (the test below reads with NVIDIA's own).
    """
    package = root / "ncu_report"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body)
    (package / "_ncu_report.py").write_text("def load_report(path):\n    raise OSError(path)\n")
    return package / "__init__.py"


def test_the_ncu_report_wheels_package_is_found_where_it_is_installed(tmp_path):
    init = _wheel_layout(tmp_path / "site-packages")
    installed = _module_file(PYTHONPATH=str(tmp_path / "site-packages"))
    assert installed.returncode == 0 and installed.stdout.strip() == str(init), installed.stderr
    named = _module_file(IRSCOPE_NCU_REPORT_PATH=str(tmp_path / "site-packages"))
    assert named.returncode == 0 and named.stdout.strip() == str(init), named.stderr


def test_a_broken_ncu_report_install_is_said_in_one_line(tmp_path, run_irscope):
    _wheel_layout(tmp_path / "site-packages", body="from . import _missing_compiled_part\n")
    broken = _module_file(PYTHONPATH=str(tmp_path / "site-packages"))
    assert broken.returncode == 1 and "NcuReportUnavailable" in broken.stderr
    assert "pip install ncu-report" in broken.stderr


@pytest.mark.skipif(not _has_ncu_report(), reason="needs NVIDIA's ncu_report module (pip install ncu-report)")
def test_the_committed_report_reads_as_its_committed_counters():
    kernels = read_report(SESSION / "ncu" / f"{ID.format(1024)}.ncu-rep")
    saved = json.loads((SESSION / "ncu" / f"{ID.format(1024)}.counters.json").read_text())
    assert [k.to_json() for k in kernels] == [saved]


def test_counters_are_read_as_session_data_never_through_a_link_outside(cli, tmp_path):
    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    counters = copy / "ncu" / f"{ID.format(1024)}.counters.json"
    outside = tmp_path / "outside.json"
    outside.write_text(counters.read_text())
    counters.unlink()
    counters.symlink_to(outside)
    one_line_error(cli("ncu", str(copy), "-c", "BLOCK_SIZE=1024"), 5, "leads outside")
    (copy / "ncu" / f"{ID.format(128)}.counters.json").write_text("{not json")
    one_line_error(cli("ncu", str(copy), "-c", "BLOCK_SIZE=128"), 5, "corrupted")
