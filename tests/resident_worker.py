"""A worker for the resident-parent tests: says which process it is, who forked it, and what its parent imported."""

from __future__ import annotations

import os
import pickle
import sys
import time


def serve() -> None:
    from irscope.workers import protocol_channel

    requests, channel = protocol_channel()
    while True:
        try:
            job = pickle.load(requests)
        except EOFError:
            return
        if job == "hang":
            print(f"hanging in {os.getpid()}", file=sys.stderr, flush=True)
            time.sleep(3600)
        marker = sys.modules.get("resident_marker")
        answer = {
            "pid": os.getpid(),
            "parent": os.getppid(),
            "marker_imported_by": getattr(marker, "IMPORTED_BY", None),
            "marker_called_in": getattr(marker, "CALLED_IN", None),
            "env": os.environ.get("IRSCOPE_TEST_VALUE"),
            "tmpdir": os.environ.get("TMPDIR"),
            "cwd": os.getcwd(),
        }
        pickle.dump(answer, channel)
        channel.flush()
