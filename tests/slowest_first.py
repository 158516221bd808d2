"""Hand pytest-xdist's workers the slowest scopes first, by the seconds their tests took in a full run.

With ``--dist loadscope`` a worker takes one scope (a module, or a class of one) at a time, and
xdist's own order is by number of tests: a class of two knowledge-base sweeps (~70 s) went last,
and one core sat idle for its last minute and a half while the other ran it (the main suite of
2026-12-06: 258 of its 1,904 core-seconds idle). Ordered by time instead (the longest first, as a
greedy scheduler wants), the run ends on short scopes. Only the order changes: every test still
runs, each scope on one worker, its tests in their own order.

The seconds are ``tests/durations.json``: each scope's tests' setup, call and teardown summed, with
their number, as the last ``--record-durations`` run measured them. A run that ran fewer of a scope's
tests than the file counts (-k, -x) keeps the file's figure; a scope that lost tests keeps its old,
higher one until the file is written anew by a full run (remove it first). A scope it does not know
(a new file) counts as its number of tests times the mean seconds of a test. A stale file only makes
the order worse, never a test wrong. The controlling process reads it once and hands it to its
workers, whose collections xdist requires to be the same, in the same order.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

DURATIONS = Path(__file__).resolve().parent / "durations.json"
HANDED = "irscope_test_seconds"  # the key of the seconds in each xdist worker's workerinput


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write the seconds each test took to {DURATIONS.name} (for the order xdist hands scopes out in)",
    )


def scope_of(nodeid: str) -> str:
    """The unit ``--dist loadscope`` hands a worker (xdist's LoadScopeScheduling._split_scope)."""
    return nodeid.rsplit("::", 1)[0]


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "loadscope":  # the controller (on its workers, dist is "no")
        # xdist would sort the scopes by their number of tests again (--loadscope-reorder); ours is by time.
        config.option.loadscopereorder = False
        config.pluginmanager.register(_HandOut(_known()), "irscope-hand-out-durations")
    if config.getoption("record_durations") and not os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(_Recorder(), "irscope-record-durations")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is None or HANDED not in workerinput:
        return  # one process runs them all, in pytest's own order (and --ff's)
    known: dict[str, list[float]] = workerinput[HANDED]
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[scope_of(item.nodeid)] += 1
    tests = sum(n for _, n in known.values())
    per_test = sum(s for s, _ in known.values()) / tests if tests else 1.0
    cost = {scope: known[scope][0] if scope in known else count * per_test for scope, count in counts.items()}
    # sorted() is stable: each scope's tests keep their order, and equal costs keep collection order.
    items[:] = sorted(items, key=lambda item: -cost[scope_of(item.nodeid)])


def _known() -> dict[str, list[float]]:
    """scope -> [seconds, tests], as the last ``--record-durations`` run measured them."""
    try:
        scopes = json.loads(DURATIONS.read_text())["scopes"]
        return {str(scope): [float(s), int(n)] for scope, (s, n) in scopes.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no file, or a damaged one: every scope costs its number of tests


class _HandOut:
    """In the controller: the same seconds to every worker, read once (xdist's hook, so a plugin of its own)."""

    def __init__(self, known: dict[str, list[float]]) -> None:
        self.known = known

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[HANDED] = self.known


class _Recorder:
    """In the controlling process (the only one that sees every worker's reports): each scope's seconds."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.tests: dict[str, set[str]] = defaultdict(set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        scope = scope_of(report.nodeid)
        self.seconds[scope] += report.duration  # setup, call and teardown
        self.tests[scope].add(report.nodeid)

    def pytest_sessionfinish(self) -> None:
        if not self.seconds:
            return
        known = _known()
        for scope, seconds in self.seconds.items():
            ran = len(self.tests[scope])
            if ran >= known.get(scope, [0.0, 0])[1]:  # fewer: part of the scope (-k, -x); its figure stays
                known[scope] = [round(seconds, 2), ran]
        # One scope a line: a diff of two runs reads as such.
        rows = ",\n".join(f"  {json.dumps(scope)}: {json.dumps(known[scope])}" for scope in sorted(known))
        fd, tmp = tempfile.mkstemp(dir=DURATIONS.parent, prefix=".durations.", suffix=".json")
        try:
            with os.fdopen(fd, "w") as out:
                out.write('{"scopes": {\n' + rows + "\n}}\n")
            os.replace(tmp, DURATIONS)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
