"""irscope: see what the compiler did with your GPU kernel.

The core (capture, ir, diff, annotate, measure, session) imports neither textual
nor torch at module level; the TUI and the GPU paths bring them in when used.
"""

__version__ = "0.1.0"
