"""Sweeps into sessions: the table, resuming after an interrupt, and every bad input."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from expect import one_line_error

from irscope.frontends import resolve_kernel
from irscope.frontends.config import parse_sweep, sweep_configs
from irscope.session import Session, run_sweep
from irscope.session.store import Entry
from irscope.types import Stage, Status

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)


def _sweep(tmp_path, name, sweep, fixed=None, arch="sm_90"):
    ref = resolve_kernel(name)
    configs = sweep_configs(ref.parameter_table(), ref.name, parse_sweep(sweep), fixed or {})
    session = Session.create(tmp_path / "session", ref.identity(), open(ref.file).read(), ref.parameter_table())
    results = sorted(run_sweep(ref, configs, arch, session), key=lambda r: r.index)
    return ref, configs, session, results


def test_default_sweep_is_the_declared_ranges():
    ref = resolve_kernel("square_kernel")
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
    assert len(configs) == 21
    assert {c.constexprs["BLOCK_SIZE"] for c in configs} == {128, 256, 512, 1024, 2048, 4096, 8192}
    assert {c.options["num_warps"] for c in configs} == {1, 4, 8}


def test_matmul_shared_memory_grows_with_num_stages(tmp_path):
    _, _, session, results = _sweep(tmp_path, "matmul_kernel", ["num_stages=2,3,4"])
    shared = [r.entry.facts.shared for r in results]
    assert shared == sorted(shared) and shared[0] < shared[1] < shared[2]
    reopened = Session.open(session.path)
    assert [e.facts.shared for e in sorted(reopened.entries, key=lambda e: e.config.options["num_stages"])] == shared


def test_a_failing_variant_is_a_failed_row_and_the_sweep_goes_on(tmp_path):
    _, configs, session, results = _sweep(tmp_path, "square_kernel", ["BLOCK_SIZE=256,1000,512"])
    assert [r.variant.status for r in results] == [Status.OK, Status.FAILED, Status.OK]
    failed = Session.open(session.path).find(configs[1])
    assert failed.status is Status.FAILED and "power of 2" in failed.error
    assert len(Session.open(session.path).entries) == 3


def test_session_variants_read_back_equal_what_was_captured(tmp_path):
    _, _, session, results = _sweep(tmp_path, "add_kernel", ["BLOCK_SIZE=256,512"])
    for r in results:
        back = Session.open(session.path).variant(r.entry.id)
        assert back.listings == r.variant.listings
        assert back.resources == r.variant.resources and back.config == r.variant.config


def test_resuming_a_sweep_compiles_only_what_is_missing(tmp_path):
    ref, configs, session, results = _sweep(tmp_path, "gelu_kernel", ["BLOCK_SIZE=256,512"])
    more = sweep_configs(ref.parameter_table(), ref.name, parse_sweep(["BLOCK_SIZE=256,512,1024"]), {})
    again = list(run_sweep(ref, more, "sm_90", Session.open(session.path)))
    assert sum(r.reused for r in again) >= 2
    assert {r.variant.config.constexprs["BLOCK_SIZE"] for r in again if not r.reused} <= {1024}
    assert len(Session.open(session.path).entries) == 3


# Alone: on a loaded machine the compile worker runs ahead of the SASS batches, and all 21 variants may be compiled
# (and then saved, exit 0) before the interrupt lands - seen under Triton 3.7-3.9 beside the other xdist worker,
# and once in seven runs alone. That outcome misses the window rather than breaking the claim (the work was done):
# the sweep is interrupted again from empty caches, three tries at most.
@pytest.mark.serial
def test_an_interrupted_sweep_keeps_finished_variants_and_running_again_resumes(tmp_path):
    for attempt in range(3):
        out = tmp_path / f"interrupted-{attempt}"
        env = {
            **os.environ,
            "IRSCOPE_CACHE_DIR": str(tmp_path / f"cache-{attempt}"),
            "TRITON_CACHE_DIR": str(tmp_path / f"triton-{attempt}"),
        }
        cmd = [sys.executable, "-m", "irscope", "sweep", "square_kernel", "-o", str(out), "--jobs", "1"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 240
        saved = 0
        while time.time() < deadline and proc.poll() is None:
            try:
                saved = len(json.loads((out / "session.json").read_text())["variants"])
            except (OSError, ValueError, KeyError):
                saved = 0
            if saved >= 1:  # the first variant is saved alone, the next six together: interrupt with most to go
                break
            time.sleep(0.05)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0 and "21 variants" in err:  # every variant done before the interrupt landed
            continue
        break
    assert proc.returncode == 130, err
    assert "run again to resume" in err and "Traceback" not in err
    kept = Session.open(out)
    assert 1 <= len(kept.entries) < 21
    for entry in kept.entries:  # every saved variant is complete on disk
        assert Stage.SASS in kept.variant(entry).listings
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    reused = int(re.search(r"(\d+) reused", done.stderr).group(1))
    assert reused >= len(kept.entries)  # plus any the cache finished before the interrupt
    assert len(Session.open(out).entries) == 21


# ---------------------------------------------------------------- CLI and bad input


@pytest.fixture
def session_dir(cli, tmp_path):
    out = tmp_path / "s"
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,1024", "-c", "n_cols=1024", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return out


def test_sweep_prints_a_row_per_variant(cli, session_dir):
    result = cli("sweep", str(session_dir), "--json")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["BLOCK_SIZE"] for r in rows] == [128, 1024]
    assert [r["ldst"] for r in rows] == ["4/4", "16/16"]
    assert all(r["status"] == "ok" and r["registers"] > 0 for r in rows)
    assert "2 reused" in result.stderr


def test_commands_take_a_session_directory(cli, session_dir):
    dumped = cli("dump", str(session_dir), "-c", "BLOCK_SIZE=1024", "--stage", "ptx")
    assert dumped.exit_code == 0 and "ld.global.v4.b32" in dumped.stdout
    diffed = cli("diff", str(session_dir), "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024")
    assert diffed.exit_code == 0
    assert "ld.global.b32 x1  ->  ld.global.v4.b32 x2" in diffed.stdout


def test_diff_mixes_a_session_variant_with_a_fresh_compile(cli, session_dir):
    result = cli(
        "diff",
        "square_kernel",
        "-a",
        f"session={session_dir}",
        "-a",
        "BLOCK_SIZE=1024",
        "-b",
        "BLOCK_SIZE=1024",
        "-c",
        "n_cols=1024",
    )
    assert result.exit_code == 0 and "no differences in ptx" in result.stdout


def test_diff_json(cli):
    result = cli("diff", "square_kernel", "-a", "num_warps=4", "-b", "num_warps=8", "--json")
    data = json.loads(result.stdout)
    assert data["changed"] and data["stage"] == "ptx" and data["normalised"]
    assert data["stats"]["ptx"]["instructions"][0] > 0 and data["hunks"]


def test_unknown_sweep_parameter(cli):
    one_line_error(cli("sweep", "square_kernel", "-s", "BLOCK=1,2"), 2, "unknown parameter 'BLOCK'")


def test_session_without_the_requested_variant(cli, session_dir):
    one_line_error(
        cli("diff", str(session_dir), "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=512"),
        5,
        "has no variant BLOCK_SIZE=512",
        "it has: BLOCK_SIZE=128",
    )


def test_stage_that_was_not_captured(cli, tmp_path):
    out = tmp_path / "f"
    assert cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=1000,128", "-o", str(out)).exit_code == 1  # one failed
    one_line_error(
        cli("diff", str(out), "-a", "BLOCK_SIZE=1000", "-b", "BLOCK_SIZE=128", "--stage", "sass"),
        2,
        "variant A",
        "did not compile",
    )


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("{not json", "is corrupted"),
        (json.dumps({"format": "something-else/2", "variants": []}), "not an irscope session file"),
        (json.dumps([1, 2, 3]), "not an irscope session file"),
    ],
)
def test_corrupted_or_foreign_session_file_is_refused_and_left_alone(cli, session_dir, content, fragment):
    index = session_dir / "session.json"
    index.write_text(content)
    for args in (
        ("diff", str(session_dir), "-a", "BLOCK_SIZE=128", "-b", "BLOCK_SIZE=1024"),
        ("sweep", "square_kernel", "-s", "BLOCK_SIZE=256", "-o", str(session_dir)),
        ("dump", str(session_dir)),
    ):
        one_line_error(cli(*args), 5, fragment)
        assert index.read_text() == content


def test_corrupted_variant_file(cli, session_dir):
    session = Session.open(session_dir)
    entry = session.find(session.entries[0].config)
    (session_dir / "variants" / entry.id / "variant.json").write_text("garbage")
    one_line_error(
        cli("dump", str(session_dir), "-c", f"BLOCK_SIZE={entry.config.constexprs['BLOCK_SIZE']}"), 5, "is corrupted"
    )


def test_sweeping_another_kernel_into_a_session_is_refused(cli, session_dir):
    before = (session_dir / "session.json").read_text()
    one_line_error(
        cli("sweep", "add_kernel", "-s", "BLOCK_SIZE=256", "-o", str(session_dir)),
        5,
        "holds a session of square_kernel",
    )
    assert (session_dir / "session.json").read_text() == before


def test_the_table_shows_a_name_only_a_later_config_sets():
    from irscope.session.table import varying
    from irscope.types import Config

    first = Entry("a", Config({"BLOCK": 64}, {"num_warps": 4, "num_stages": 3}, {}), "sm_90", Status.OK)
    later = Entry(
        "b", Config({"BLOCK": 1024}, {"num_warps": 4, "num_stages": 3, "maxnreg": 128}, {}), "sm_90", Status.OK
    )
    assert varying([first, later]) == ["BLOCK", "maxnreg"]


# ---------------------------------------------------------------- the table where it is read: a terminal, a log

ASSERTED_SWEEP = ("-s", "BLOCK_SIZE=32,64,128", "-s", "num_warps=1,4", "-c", "FLOOR=64")


def _sweep_table(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess:
    from written_kernels import ASSERTED_COPY, ASSERTED_COPY_SIGNATURE

    path = tmp_path / "asserted.py"
    path.write_text(ASSERTED_COPY)
    return subprocess.run(
        [sys.executable, "-m", "irscope", "sweep", f"{path}:asserted_copy", "-S", ASSERTED_COPY_SIGNATURE, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
    )


def test_a_table_written_to_a_file_keeps_every_header_and_value_whole(tmp_path):
    # BLOCK_SIZE=32 fails its static_assert: a note far longer than the other columns together.
    rows = [json.loads(line) for line in _sweep_table(tmp_path, *ASSERTED_SWEEP, "--json").stdout.splitlines()]
    piped = _sweep_table(tmp_path, *ASSERTED_SWEEP, COLUMNS="200")
    assert piped.returncode == 1, piped.stderr  # two variants failed
    header, *lines = piped.stdout.splitlines()
    titles = ["BLOCK_SIZE", "num_warps", "status", "regs", "spill B", "shared B", "ld/st B", "ptx lines", "compile s"]
    assert re.split(r"\s{2,}", header.strip()) == [*titles, "note"]
    assert len(lines) == len(rows) == 6  # one line a variant, however long its note
    keys = ["BLOCK_SIZE", "num_warps", "status", "registers", "spills", "shared", "ldst", "ptx_lines"]
    for line, row in zip(lines, rows):
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=len(titles))
        assert cells[:8] == ["—" if row[k] is None else str(row[k]) for k in keys], line
        assert cells[-1] == (row["note"] or cells[-1]) and "…" not in line
    assert sum(row["status"] == "failed" for row in rows) == 2


def test_on_a_narrow_terminal_the_note_gives_way_and_the_figures_stay_whole(tmp_path):
    shown = _sweep_table(tmp_path, *ASSERTED_SWEEP, FORCE_COLOR="1", COLUMNS="100")
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in shown.stdout.splitlines()]
    assert lines and all(len(line) <= 100 for line in lines)
    assert re.split(r"\s{2,}", lines[0].strip())[:9] == [
        "BLOCK_SIZE", "num_warps", "status", "regs", "spill B", "shared B", "ld/st B", "ptx lines", "compile s"
    ]  # fmt: skip
    assert sum(" ok " in line for line in lines) == 4


def test_a_variant_refused_by_a_static_assert_keeps_the_failing_line_in_its_session(tmp_path):
    from written_kernels import ASSERTED_COPY

    swept = _sweep_table(tmp_path, "-s", "BLOCK_SIZE=32,128", "-c", "FLOOR=64", "-o", str(tmp_path / "s"))
    assert swept.returncode == 1, swept.stderr
    line = ASSERTED_COPY.splitlines().index("    tl.static_assert(BLOCK_SIZE % 64 == 0)") + 1
    errors = {e.config.constexprs["BLOCK_SIZE"]: e.error for e in Session.open(tmp_path / "s").entries}
    assert errors[128] is None
    assert errors[32].endswith(
        f"asserted.py:{line}:4: static assertion failed in `tl.static_assert(BLOCK_SIZE % 64 == 0)`"
    )
