"""irscope: see what the compiler did with your GPU kernel.

The Python API (api.py, docs/python-api.md)::

    import irscope
    v = irscope.capture("square_kernel", {"BLOCK_SIZE": 256}, arch="sm_90")
    v.listings["ptx"]
    d = irscope.diff(v, irscope.capture("square_kernel", {"BLOCK_SIZE": 1024}, arch="sm_90"))

The core (capturing, ir, diffing, annotating, measure, session) imports neither textual
nor torch at module level; the TUI and the GPU paths bring them in when used.
"""

from .api import annotate, bench, capture, diff, html, open, sweep

__version__ = "0.1.0"
__all__ = ["annotate", "bench", "capture", "diff", "html", "open", "sweep"]
