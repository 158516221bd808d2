"""Artifacts recorded on real GPUs, shipped as the package ``irscope.samples`` (data only).

This file exists only so that the folder is a regular package: setuptools' editable
install finds a folder mapped into ``irscope`` (pyproject.toml's package-dir) only
through an ``__init__.py``.
"""
