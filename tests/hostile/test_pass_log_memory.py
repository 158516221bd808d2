"""A stored pass log (``passes.json.gz``) bounds what rebuilding its IR makes, not only the bytes it unpacks to.

A stored line names a long LLVM type by a 3-character alias (``ir/passes.py``), so a crafted 147 KB log whose
lines each name one 60 KB alias, over 200 passes that each change one line, rebuilt to ~24 GB: ``passes --diff 2``
rebuilt the IR after every pass, and ended in a MemoryError (exit 70). A log whose IR would run past the limits
(``types.MAX_PASS_IR_*``) is damaged data now, refused as it is read (exit 5, one line), and ``--diff N`` rebuilds
the passes up to N alone.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from irscope.diffing.passes import pass_hunks
from irscope.errors import ExitCode
from irscope.types import MAX_PASS_IR_CHARS, MAX_PASS_IR_LINES, MAX_PASS_LOG_CHARS, PassLog, PassStep, Stage

from .damage import square_with_passes, store_passes, stored_passes

REPO = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 4 << 30  # the child's cap: before, it asked for ~24 GB; reading a real session takes ~1 GB


@pytest.fixture(scope="module")
def with_passes(tmp_path_factory):
    return square_with_passes(tmp_path_factory.mktemp("passes") / "s")


def _crafted(lines: int, alias: int, passes: int, real: dict) -> dict:
    """``lines`` lines each naming one alias ``alias`` characters long (none where 0: the lines are plain), then
    ``passes`` passes each changing a line."""
    line = "\x010\x01" if alias else "x"
    step = {k: v for k, v in real["steps"][0].items() if k not in ("delta", "rebase")}
    steps = [
        {**step, "index": n, "delta": [lines - 1, -1, [f"{line} {n}"]], "lines": [1, 1]} for n in range(1, passes + 1)
    ]
    aliases = ["!llvm.struct<(" + "f" * alias + ")>"] if alias else []
    return {"initial": f"{line}\n" * lines, "steps": steps, "aliases": aliases}


def _capped(*args: str) -> subprocess.CompletedProcess:
    """``python -m irscope ARGS`` in an address space of ADDRESS_SPACE, as a user runs it."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    return subprocess.run(
        [sys.executable, "-m", "irscope", *args], cwd=REPO, capture_output=True, text=True, preexec_fn=cap, timeout=300
    )


@pytest.mark.parametrize(
    ("make", "said"),
    [
        # the reviewer's log: 2,000 lines of a 60 KB alias (120 MB a pass), 200 passes: ~24 GB rebuilt
        (lambda real: _crafted(2000, 60_000, 200, real), "MB written out"),
        # each pass's IR under the one-pass limit, all of them past the log's
        (lambda real: _crafted(1000, MAX_PASS_IR_CHARS // 1000 - 64, MAX_PASS_LOG_CHARS // MAX_PASS_IR_CHARS + 2, real), "MB (at most"),
        # lines alone (no alias): one more than a pass's IR may hold
        (lambda real: _crafted(MAX_PASS_IR_LINES + 1, 0, 2, real), "lines (at most"),
    ],
    ids=["aliases in every line", "every pass together", "lines"],
)  # fmt: skip
def test_a_pass_log_that_would_rebuild_past_the_limits_is_refused_as_damaged(with_passes, tmp_path, make, said):
    session = tmp_path / "s"
    shutil.copytree(with_passes, session)
    variant, real = stored_passes(session)
    stored = store_passes(variant, json.dumps(make(real)))
    assert stored.stat().st_size < 200_000  # small as stored: the cost is in what it rebuilds to
    result = _capped("passes", str(session), "-c", "BLOCK_SIZE=128", "--diff", "2")
    assert result.returncode == ExitCode.SESSION_ERROR, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("irscope: error:")]
    assert len(errors) == 1 and "is not irscope's pass data" in errors[0] and said in errors[0], result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr


def test_the_real_log_still_reads_under_the_cap(with_passes):
    result = _capped("passes", str(with_passes), "-c", "BLOCK_SIZE=128", "--diff", "2")
    assert result.returncode == 0, result.stderr


def test_diff_of_one_pass_rebuilds_the_passes_up_to_it_alone():
    """150 passes after the first, each leaving a 1 MB IR: the first's diff rebuilds its two, not 151 (normalising
    and diffing the two take ~20 MB)."""
    alias = "!llvm.struct<(" + "f32, " * 200_000 + "f32)>"  # 1 MB, named in one comment line
    initial = "module {\n  tt.func public @k() {\n    tt.return\n  }\n}\n// \x010\x01\n"
    steps = [
        PassStep(n, "Canonicalizer", "canonicalize", Stage.TTIR, delta=(5, -1, (f"// \x010\x01 {n}",)))
        for n in range(1, 152)
    ]
    log = PassLog(initial, tuple(steps), (alias,))
    log.check()
    tracemalloc.start()
    try:
        hunks = pass_hunks(log, 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert hunks  # it changed a line: the diff is there
    assert peak < 40 * len(alias), peak  # before: 151 rebuilt texts, 151 MB
