"""A worker main loop that misbehaves on request, for the worker pool tests (and says who it is, for resident.py's)."""

from __future__ import annotations

import os
import pickle
import sys
import time


def serve() -> None:
    from irscope.processes.workers import protocol_channel

    requests, channel = protocol_channel()
    while True:
        try:
            job = pickle.load(requests)
        except EOFError:
            return
        if job == "crash":
            print("about to crash", file=sys.stderr, flush=True)
            os._exit(3)
        if job == "abort":
            os.abort()
        if job == "hang":
            print(f"hanging in {os.getpid()}", file=sys.stderr, flush=True)
            time.sleep(3600)
        if isinstance(job, tuple) and job[0] == "crash-after":  # a job longer than an idle parent stays, then a crash
            time.sleep(job[1])
            os._exit(3)
        if job == "who":  # for the resident-parent tests: which process this is, and what its parent did
            pickle.dump(_who(), channel)
            channel.flush()
            continue
        print("this line goes to stderr, not into the protocol")
        pickle.dump(("done", job), channel)
        channel.flush()


def _who() -> dict:
    marker = sys.modules.get("resident_marker")
    return {
        "pid": os.getpid(),
        "parent": os.getppid(),
        "marker_imported_by": getattr(marker, "IMPORTED_BY", None),
        "marker_called_in": getattr(marker, "CALLED_IN", None),
        "env": os.environ.get("IRSCOPE_TEST_VALUE"),
        "tmpdir": os.environ.get("TMPDIR"),
        "cwd": os.getcwd(),
    }
