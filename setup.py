"""The build's compiled part: the diff's native core, optional.

Everything else is declared in pyproject.toml. Each extension is ``optional``: where no C
compiler is at hand the build goes on without it, and irscope runs the same algorithms in
Python (irscope/diff/native.py chooses), with the same output, only slower."""

from setuptools import Extension, setup


def native(name: str) -> Extension:
    return Extension(f"irscope.diff.{name}", [f"irscope/diff/{name}.c"], optional=True,
                     extra_compile_args=["-O2", "-std=c99"])


setup(ext_modules=[native("_native_tokens"), native("_native_pairs"), native("_native_align")])
