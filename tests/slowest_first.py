"""Hand pytest-xdist's workers the slowest scopes first, by the seconds each took in a full run.

With ``--dist loadscope`` a worker takes one scope (a module, or a class of one) at a time, and
xdist's own order is by number of tests: a class of two knowledge-base sweeps (~70 s) went last,
and one core sat idle for its last minute and a half while the other ran it (the main suite of
2026-12-06: 258 of its 1,904 core-seconds idle). Ordered by time instead (the longest first, as a
greedy scheduler wants), the run ends on short scopes. Only the order changes: every test still
runs, each scope on one worker, its tests in their own order.

The seconds are ``tests/durations.json``, written by ``--record-durations`` (a full run's setup,
call and teardown of every test, summed per scope, with its number of tests). A scope it does not
know (a new test file) counts as its number of tests times the mean seconds of a test. A stale file
only makes the order worse, never a test wrong.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

DURATIONS = Path(__file__).resolve().parent / "durations.json"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write the seconds each test scope took to {DURATIONS.name} (for the order xdist hands them out in)",
    )


def scope_of(nodeid: str) -> str:
    """The unit ``--dist loadscope`` hands a worker (xdist's LoadScopeScheduling._split_scope)."""
    return nodeid.rsplit("::", 1)[0]


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "loadscope":  # the controller (on its workers, dist is "no")
        # xdist would sort the scopes by their number of tests again (--loadscope-reorder); ours is by time.
        config.option.loadscopereorder = False
    if config.getoption("record_durations") and not os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(_Recorder(), "irscope-record-durations")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # one process runs them all in any order: keep pytest's own (and --ff's)
    known = _known()
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[scope_of(item.nodeid)] += 1
    tests = sum(n for _, n in known.values())
    per_test = sum(s for s, _ in known.values()) / tests if tests else 1.0
    cost = {scope: known[scope][0] if scope in known else count * per_test for scope, count in counts.items()}
    # sorted() is stable: each scope's tests keep their order, and equal costs keep collection order.
    items[:] = sorted(items, key=lambda item: -cost[scope_of(item.nodeid)])


def _known() -> dict[str, tuple[float, int]]:
    """scope -> (seconds, tests), as the last ``--record-durations`` run measured them."""
    try:
        data = json.loads(DURATIONS.read_text())
        return {str(scope): (float(s), int(n)) for scope, (s, n) in data["scopes"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no file, or a damaged one: every scope costs its number of tests


class _Recorder:
    """In the controlling process (the only one that sees every worker's reports): sum each scope's seconds."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.tests: dict[str, set[str]] = defaultdict(set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        scope = scope_of(report.nodeid)
        self.seconds[scope] += report.duration
        self.tests[scope].add(report.nodeid)

    def pytest_sessionfinish(self) -> None:
        if not self.seconds:
            return
        merged = _known()
        for scope, seconds in self.seconds.items():
            ran = len(self.tests[scope])
            # A partial run (-k, -x) times part of a scope: it keeps the whole scope's earlier figure.
            if ran >= merged.get(scope, (0.0, 0))[1]:
                merged[scope] = (round(seconds, 2), ran)
        rows = ",\n".join(f"  {json.dumps(scope)}: {json.dumps(list(merged[scope]))}" for scope in sorted(merged))
        text = '{"scopes": {\n' + rows + "\n}}\n"  # one scope a line: a diff of two runs reads as such
        fd, tmp = tempfile.mkstemp(dir=DURATIONS.parent, prefix=".durations.", suffix=".json")
        try:
            with os.fdopen(fd, "w") as out:
                out.write(text)
            os.replace(tmp, DURATIONS)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
