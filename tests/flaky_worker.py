"""A worker main loop that misbehaves on request, for the worker pool test."""

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
        if job == "crash":
            print("about to crash", file=sys.stderr, flush=True)
            os._exit(3)
        if job == "abort":
            os.abort()
        if job == "hang":
            time.sleep(3600)
        print("this line goes to stderr, not into the protocol")
        pickle.dump(("done", job), channel)
        channel.flush()
