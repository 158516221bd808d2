"""``python -m irscope`` in a folder that shadows the standard library imports nothing from it.

``python -m`` puts the working directory first on ``sys.path``, and runpy imports the package
(irscope/__init__.py, then its API, then the standard library) before ``__main__`` runs. The folder
here holds a ``NAME.py`` for every module of the standard library, each a canary that notes its
name and then loads the real module (so everything still runs, and one shadow cannot hide the
next). What fires under ``python -m irscope`` must be exactly what fires under ``python -m`` of an
empty package: what Python and runpy import before any package's code runs, which no package can
prevent (docs/bad-input.md names it). Before irscope/__init__.py took the folder off first,
``dataclasses``, ``subprocess``, ``inspect``, ``ast`` and ten more fired here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CANARY = """\
import sys as _s, os as _o
with open({log!r}, "a") as _f:
    _f.write(__name__ + "\\n")
import importlib.machinery as _m, importlib.util as _u
_here = _o.path.dirname(_o.path.abspath(__file__))
_paths = [p for p in _s.path if p and _o.path.realpath(p) != _here]
_spec = _m.BuiltinImporter.find_spec(__name__) or _m.FrozenImporter.find_spec(__name__) or _m.PathFinder.find_spec(__name__, _paths)
_real = _u.module_from_spec(_spec)
_s.modules[__name__] = _real
_spec.loader.exec_module(_real)
"""


@pytest.fixture
def shadowed(tmp_path: Path) -> tuple[Path, Path]:
    """A folder shadowing every standard module that has a file (built-in ones cannot be shadowed), and its log."""
    folder, log = tmp_path / "download", tmp_path / "fired"
    folder.mkdir()
    for name in sys.stdlib_module_names:
        if name not in sys.builtin_module_names and name != "msvcrt":
            (folder / f"{name}.py").write_text(CANARY.format(log=str(log)))
    return folder, log


def _fired(log: Path) -> set[str]:
    fired = set(log.read_text().split()) if log.exists() else set()
    log.unlink(missing_ok=True)
    return fired


def test_python_m_irscope_imports_no_more_from_the_folder_than_python_m_itself(shadowed, tmp_path):
    folder, log = shadowed
    empty = tmp_path / "pkgs" / "emptypkg"
    empty.mkdir(parents=True)
    (empty / "__init__.py").write_text("")
    (empty / "__main__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(empty.parent), *(p for p in sys.path if p)])}
    subprocess.run([sys.executable, "-m", "emptypkg"], cwd=folder, env=env, capture_output=True, timeout=60)
    pythons_own = _fired(log)  # what Python and runpy import first: on 3.10 runpy and importlib, on 3.11 none here
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "list"], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert _fired(log) == pythons_own


def test_the_control_plain_python_imports_from_that_folder(shadowed):
    folder, log = shadowed
    subprocess.run(
        [sys.executable, "-c", "import dataclasses, subprocess"], cwd=folder, capture_output=True, timeout=60
    )
    assert {"dataclasses", "subprocess"} <= _fired(log)


def test_a_package_run_with_python_m_that_imports_irscope_keeps_its_folder(tmp_path):
    # Only `python -m irscope` drops the folder: another program run with -m imports its own modules from it.
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "__init__.py").write_text("import irscope\n")
    (tmp_path / "mine" / "__main__.py").write_text("import helper\nprint(helper.ANSWER)\n")
    (tmp_path / "helper.py").write_text("ANSWER = 42\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-m", "mine"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "42", done.stderr
