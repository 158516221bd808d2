"""Shareable reports: a session as one self-contained HTML file (html.py)."""
