"""``irscope run``: every GPU kernel a running program compiles and launches, without changing the program.

``launch.py`` starts the program with ``bootstrap/`` first on its
``PYTHONPATH``, whose ``sitecustomize`` starts ``hook.py`` inside it before its own code: each
frontend's recorder (``FrontendInfo.recorder``: Triton's listener, ``frontends/triton/listen.py``;
each ``load_inline`` call's CUDA sources, ``frontends/cuda/listen.py``; each ``cute.compile`` and TileLang
compile, compiled again through its frontend, ``frontends/compile_record.py``), Inductor's output code and
loaded kernels (``inductor/listen.py``) and torch.profiler over the run. Only the first Python process records. The program writes data under
``DIR/raw/``; ``collect.py``, in irscope's process afterwards, turns it into one session per kernel
(``DIR/kernels/NAME``: the stages the JIT wrote, byte for byte; a CuTe DSL or TileLang kernel's, what its
frontend compiled: compiles.py) and ``DIR/run.json``, ranked by GPU
time. Like ``inductor/``, ``run/`` is Triton-specific and may import ``irscope.frontends.triton``.
"""

from __future__ import annotations

INDEX = "run.json"
INDEX_FORMAT = "irscope.run/1"
RAW = "raw"  # what the program's process wrote

__all__ = ["INDEX", "INDEX_FORMAT", "RAW"]
