"""A compile worker that answers a well-formed ``Compiled`` with one field made junk (the mode is
``IRSCOPE_TEST_JUNK``): a Ray node or a worker that cannot be trusted to answer what irscope asked."""

from __future__ import annotations

import os
import pickle
from dataclasses import replace

from irscope.frontends import Compiled
from irscope.processes.workers import protocol_channel
from irscope.stages import Stage

WELL_FORMED = Compiled(
    stages={Stage.TTIR: "module {}\n", Stage.PTX: "// ptx\n"}, options={"num_warps": 4}, compiler="triton", seconds=0.1
)
JUNK = {
    "stage": lambda c: replace(c, stages={**c.stages, "../../outside": "written outside"}),
    "option": lambda c: replace(c, options={**c.options, "num_warps": object()}),
    "seconds": lambda c: replace(c, seconds="soon"),
    "listing": lambda c: replace(c, stages={**c.stages, Stage.PTX: b"bytes, not text"}),
    "not-compiled": lambda c: {"stages": "nothing"},
}


def serve() -> None:
    requests, channel = protocol_channel()
    spoil = JUNK[os.environ["IRSCOPE_TEST_JUNK"]]
    while True:
        try:
            pickle.load(requests)  # the job: answered the same whatever it asks
        except EOFError:
            return
        pickle.dump(spoil(WELL_FORMED), channel)
        channel.flush()
