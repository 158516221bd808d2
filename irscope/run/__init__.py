"""``irscope run``: every GPU kernel a running program compiles and launches, without changing the program.

``launch.py`` starts the program with ``bootstrap/`` first on its ``PYTHONPATH``: its
``sitecustomize`` starts ``hook.py`` inside the program before the program's own
code, which records Triton's compiles and launches (frontends/triton/listen.py,
through Triton's own hooks) and profiles the run with torch.profiler. When the
program has exited, ``collect.py`` turns what was recorded into one session per
kernel and ``run.json``, the run's index, ranked by GPU time.
"""

from __future__ import annotations

INDEX = "run.json"
INDEX_FORMAT = "irscope.run/1"
RAW = "raw"  # what the program's process wrote

__all__ = ["INDEX", "INDEX_FORMAT", "RAW"]
