"""Helion's autotune log (``HELION_AUTOTUNE_LOG``'s CSV) opens as a session of its configs: each compiled, the
winner marked, two of them diffed; a sweep over Helion config fields from ``-s``.

Helion cannot time a config without a GPU (docs/helion.md), so the log with results is written here in the format
Helion's own source defines, with its own names: ``_AUTOTUNE_CSV_FIELDS`` of helion/autotuner/logger.py and
``str(helion.Config)`` for the config column. tests/fixtures/helion/ holds a log Helion itself wrote on this
machine (interpreted, no driver: ``started`` and ``timeout`` rows), read the same way.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("helion", reason="needs helion (pip install irscope[helion])")

from irscope.frontends.helion.autotune_log import FIELDS, read_log

KERNELS = Path(__file__).with_name("helion_kernels.py")
WRITTEN_BY_HELION = Path(__file__).with_name("fixtures") / "helion" / "row_sum_tune.csv"
SOFTMAX = ("float16[128,512]",)


def test_irscope_reads_the_columns_helion_writes():
    from helion.autotuner.logger import _AUTOTUNE_CSV_FIELDS

    assert FIELDS == _AUTOTUNE_CSV_FIELDS


def test_a_log_helion_wrote_itself_reads_as_its_configs_without_a_winner():
    tried = read_log(WRITTEN_BY_HELION)
    assert [t.fields for t in tried] == [
        {"block_sizes": [1], "num_warps": 4},
        {"block_sizes": [4], "num_warps": 8},
        {"block_sizes": [16], "num_warps": 4},
    ]
    assert {t.status for t in tried} == {"timeout"} and all(t.perf_ms is None for t in tried)


@pytest.fixture(scope="module")
def log_base(tmp_path_factory):
    """A log in Helion's format: config b is the fastest ``ok``, c failed; a's ``started`` row is superseded."""
    import helion

    base = tmp_path_factory.mktemp("helion_log") / "tune"
    a, b, c = (str(helion.Config(block_sizes=[s], num_warps=w)) for s, w in ((1, 4), (4, 8), (16, 4)))
    rows = [
        ("old", "0.1", "z", 0, "ok", "0.001", "0.2", str(helion.Config(block_sizes=[2], num_warps=2))),  # a run before
        ("r1", "0.10", "a", 0, "started", "", "", a),
        ("r1", "0.50", "a", 0, "ok", "0.031250", "0.40", a),
        ("r1", "0.60", "b", 0, "ok", "0.012500", "0.42", b),
        ("r1", "0.70", "c", 0, "error", "", "0.10", c),
    ]
    with base.with_suffix(".csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        writer.writerows(rows)
    return base


@pytest.fixture(scope="module")
def tuned_session(log_base, tmp_path_factory):
    import subprocess
    import sys

    session = tmp_path_factory.mktemp("helion_session") / "tuned"
    env = {**__import__("os").environ, "HELION_AUTOTUNE_LOG": str(log_base)}
    made = subprocess.run(
        [sys.executable, "-m", "irscope", "sweep", f"{KERNELS}:helion_softmax", "-S", *SOFTMAX, "-o", str(session), "--json"],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    return session, made


def test_the_autotune_log_opens_as_a_session_of_its_configs_with_the_winner_marked(tuned_session):
    session, made = tuned_session
    assert made.returncode == 0, made.stderr
    rows = [json.loads(line) for line in made.stdout.splitlines() if line.startswith("{")]
    assert [(r["block_sizes"], r["num_warps"]) for r in rows] == [("[1]", "4"), ("[4]", "8"), ("[16]", "4")]
    assert [r["autotune_status"] for r in rows] == ["ok", "ok", "error"]
    assert [r["autotune_winner"] for r in rows] == [False, True, False]
    assert [r["autotune_ms"] for r in rows] == [0.03125, 0.0125, None]
    assert all(r["status"] == "ok" for r in rows), rows  # Helion's error was its GPU's; here each compiles


def test_two_configs_of_the_log_diff(cli, tuned_session):
    session, made = tuned_session
    assert made.returncode == 0, made.stderr
    result = cli("diff", str(session), "-a", "block_sizes=[1]", "-b", "block_sizes=[16]", "--stage", "helion_triton")
    assert result.exit_code == 0, result.stderr
    assert "_BLOCK_SIZE_0 = tl.constexpr(1)" in result.stdout and "_BLOCK_SIZE_0 = tl.constexpr(16)" in result.stdout


def test_the_log_helion_wrote_opens_as_the_kernels_configs(tmp_path, monkeypatch):
    """The Helion-written log, named as Helion names it (``HELION_AUTOTUNE_LOG``, read when the kernel's file is
    imported), makes the kernel list its three configs: a sweep without -s is exactly those, marked timeout."""
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs

    kernels = tmp_path / "tuned_kernels.py"
    kernels.write_text(KERNELS.read_text())
    monkeypatch.setenv("HELION_AUTOTUNE_LOG", str(WRITTEN_BY_HELION.with_suffix("")))
    kernel = resolve_kernel(f"{kernels}:helion_row_sum", "float32[128,512]")
    configs = sweep_configs(kernel.parameter_table(), kernel.name, {}, {}, "helion")
    assert [(c.options["block_sizes"], c.options["num_warps"]) for c in configs] == [
        ("[1]", "4"), ("[4]", "8"), ("[16]", "4"),
    ]  # fmt: skip
    assert [(c.sizes["autotune_status"], c.sizes["autotune_winner"]) for c in configs] == [("timeout", False)] * 3
