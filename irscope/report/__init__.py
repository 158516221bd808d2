"""Shareable reports: a session as one self-contained HTML file (html.py).

Reporting (``report/``): ``html.py`` writes a session as one HTML file; its script and styles are
package data (``report/assets/``), inlined; the session travels as JSON inside the page.
``shared_paths.py`` rewrites the author's paths in it (relative to the kernel's folder, home folders
as ``~``).
"""
