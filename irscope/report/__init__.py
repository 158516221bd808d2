"""Shareable reports and notebook displays: one page for every view (page.py, report/assets/).

``payload.py`` turns a variant or a session into the page's data (stages, each line's Python line,
findings, the variants table); ``diff_html.py`` writes a diff, side by side and unified; ``html.py`` is
``irscope report`` of a session, ``run.py`` of a run folder (its kernels and trace.json); ``display.py``
shows a Variant, VariantDiff, Session, Annotation or findings in a notebook, the page in a sandboxed
frame. ``shared_paths.py`` rewrites the author's paths (relative to the kernel's folder, home folders as ``~``).
"""
