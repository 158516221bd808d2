"""Where a command's time goes, across all its processes: ``IRSCOPE_TIMELINE=FILE`` logs one line per step.

Off unless the variable is set (then a mark costs one dictionary lookup). Each line is
``seconds pid step``, the seconds counted from the command's start (``IRSCOPE_TIMELINE_T0``,
set by the first process that marks and inherited by the workers it starts), so the main
process, its compile workers and its GPU workers read on one clock. One ``write`` per line on a
file opened for appending: lines of several processes never interleave. This is how
``tests/perf/probe_cli_timeline.py`` finds what a first result waits for.
"""

from __future__ import annotations

import os
import time

FILE_ENV = "IRSCOPE_TIMELINE"
START_ENV = "IRSCOPE_TIMELINE_T0"


def mark(step: str) -> None:
    """Note that ``step`` happened now (nothing unless ``IRSCOPE_TIMELINE`` is set)."""
    path = os.environ.get(FILE_ENV)
    if not path:
        return
    now = time.time()
    start = os.environ.get(START_ENV) or repr(_process_start(now))
    os.environ[START_ENV] = start  # the workers this process starts inherit the clock
    try:
        since = now - float(start)
    except ValueError:
        since = 0.0
    line = f"{since:9.3f} {os.getpid():>7} {step}\n".encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return  # a probe's log, never worth failing a command for
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def _process_start(now: float) -> float:
    """When this process began (Linux: /proc), so interpreter start-up and imports count; else ``now``."""
    try:
        with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
            started_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
            up = float(uptime.read().split()[0])
        return now - (up - started_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return now
