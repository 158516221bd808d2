"""The built-in example kernels, shipped as the package ``irscope.builtin_kernels``.

This file exists only so that the folder is a regular package: setuptools' editable
install finds a folder mapped into ``irscope`` (pyproject.toml's package-dir) only
through an ``__init__.py``. The kernel loader skips files that start with ``_``.
"""
