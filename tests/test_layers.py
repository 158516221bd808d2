"""The rules in pyproject.toml hold: lint-imports keeps every layer contract, mypy finds the typed part sound."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_lint_imports_keeps_every_layer_contract():
    tool = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(tool).exists():
        pytest.fail("lint-imports is missing: install the test extras (pip install -e '.[test]')")
    proc = subprocess.run([tool, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_the_data_model_and_the_ir_half_type_check():
    """mypy over the files [tool.mypy] names: the base layer, ir/, diff/ and annotate/."""
    if shutil.which("mypy") is None and not (Path(sys.executable).parent / "mypy").exists():
        pytest.fail("mypy is missing: install the test extras (pip install -e '.[test]')")
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
