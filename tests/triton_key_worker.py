"""A process run as irscope runs its workers, asking for Triton's key (tests of frontends/triton/source_key.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# What a worker does before its first compile, then the key Triton's compile would use, and the kept file.
WORKER = """
import json, sys
from irscope.frontends.triton import source_key
if sys.argv[1:] == ["computed"]:  # as in a fork of a resident parent, which computed it (processes/resident.py)
    import triton.runtime.cache
    triton.runtime.cache.triton_key()
source_key.remember()
import triton.runtime.cache
print(json.dumps({"key": triton.runtime.cache.triton_key(), "file": str(source_key.kept_file())}))
"""


def as_worker(cache: Path, *, worker: bool = True, path: str | None = None, computed: bool = False) -> dict:
    env = {**os.environ, "IRSCOPE_CACHE_DIR": str(cache)}
    env.pop("IRSCOPE_WORKER", None)
    if worker:
        env["IRSCOPE_WORKER"] = str(os.getpid())
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", WORKER, *(["computed"] if computed else [])],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
