"""The rules in pyproject.toml hold: lint-imports keeps every layer contract, mypy finds the typed part sound."""

from __future__ import annotations

import ast
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


def _module_names(package_dir: Path) -> dict[str, Path]:
    """Every module of the package by dotted name; a package is its ``__init__.py``."""
    out = {}
    for path in package_dir.rglob("*.py"):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _is_submodule(package_dir: Path, name: str) -> bool:
    """A module or package of that name, or a C extension (its ``.c`` source, or built) beside it."""
    return (
        (package_dir / f"{name}.py").exists()
        or (package_dir / name).is_dir()
        or (package_dir / f"{name}.c").exists()
        or any(package_dir.glob(f"{name}.*.so"))
    )


def _imports_run_at_import(body: list) -> list:
    """The import statements Python runs when the module is imported: not those in functions, nor
    under ``if TYPE_CHECKING`` (annotations only); class bodies and ``try``/``with`` blocks do run."""
    out = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                out += _imports_run_at_import(node.body)
            out += _imports_run_at_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                out += _imports_run_at_import(block)
        elif isinstance(node, (ast.With, ast.ClassDef)):
            out += _imports_run_at_import(node.body)
    return out


def _import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Each module -> the package's modules that importing it runs first (parent packages' ``__init__`` too)."""
    modules = _module_names(package_dir)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports_run_at_import(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = ".".join(filter(None, (package.rsplit(".", node.level - 1)[0] if node.level else "", node.module)))
            is_package = base in modules and modules[base].name == "__init__.py"
            for alias in node.names:  # `from pkg import name`: the submodule if there is one, else pkg itself
                targets.add(
                    f"{base}.{alias.name}" if is_package and _is_submodule(modules[base].parent, alias.name) else base
                )
        graph[name] = set()
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first, unless they are running already
                prefix = ".".join(parts[:i])
                running = i < len(parts) and name.startswith(prefix + ".")
                if prefix in modules and prefix != name and not running:
                    graph[name].add(prefix)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = [stack.pop()]
            while component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_of_irscope_imports_itself_back_at_import_time():
    assert _cycles(_import_graph(ROOT / "irscope")) == []


def test_the_cycle_check_counts_package_inits_and_leaves_out_annotations_and_function_bodies(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/diff/__init__.py": "from .core import diff\n",
        "pkg/diff/core.py": "from ..ir.normalize import normalize\n\ndef diff():\n    from . import later\n",
        "pkg/diff/later.py": "from .core import diff\n",
        "pkg/diff/native.py": "from . import _tokens\n",
        "pkg/diff/_tokens.c": "",
        "pkg/ir/__init__.py": "",
        "pkg/ir/normalize.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..diff import core\n"
        "from ..diff.native import tokens\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = _import_graph(tmp_path / "pkg")
    assert graph["pkg.diff.native"] == set()  # a C extension beside it, not the package
    assert graph["pkg.diff.core"] == {"pkg.ir", "pkg.ir.normalize"}  # not `later`: imported when diff() runs
    assert _cycles(graph) == [["pkg.diff", "pkg.diff.core", "pkg.ir.normalize"]]  # diff.native runs diff/__init__


def test_the_whole_tree_type_checks_for_the_oldest_python_declared():
    """mypy over the files [tool.mypy] names: irscope/ and tests/, for Python 3.10 (requires-python)."""
    if shutil.which("mypy") is None and not (Path(sys.executable).parent / "mypy").exists():
        pytest.fail("mypy is missing: install the test extras (pip install -e '.[test]')")
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_ruff_finds_nothing_to_lint_or_reformat():
    """ruff's lint rules and its formatter, as [tool.ruff] sets them, over the package and the tests."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.fail("ruff is missing: install the test extras (pip install -e '.[test]')")
    for command in (["check", "irscope", "tests"], ["format", "--check", "irscope", "tests"]):
        proc = subprocess.run([ruff, *command, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"ruff {' '.join(command)}:\n{proc.stdout}{proc.stderr}"
