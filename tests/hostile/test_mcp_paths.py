"""``irscope mcp``: a path an agent's argument names is read only inside the server's roots (``--root``).

The check is the server's own (``Folders``, the same object its tools call before anything is read); the
stdio session in tests/test_mcp.py drives it end to end. Here: every spelling that leads outside - absolute,
``..``, ``~``, a link inside that points out, a ``FILE:NAME`` or a trace's ``FILE:KERNEL`` form - and the
spellings that stay inside.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from irscope.errors import UsageError


@pytest.fixture
def layout(tmp_path: Path, monkeypatch):
    from irscope.cli.mcp import Folders

    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "runs" / "s").mkdir(parents=True)
    outside.mkdir()
    (root / "k.py").write_text("# a kernel file\n")
    (outside / "k.py").write_text("# another\n")
    (root / "out.py").symlink_to(outside / "k.py")
    (root / "outdir").symlink_to(outside)
    (root / "in.py").symlink_to(root / "k.py")
    monkeypatch.chdir(root)
    return Folders([root]), root, outside


@pytest.mark.parametrize(
    "spelled",
    [
        "{outside}/k.py:kern",
        "{outside}/k.py",
        "../outside/k.py:kern",
        "runs/../../outside/k.py",
        "out.py:kern",
        "outdir/k.py:kern",
        "outdir",
        "/etc/passwd",
        "~/.bashrc:kern",
        "{root}/../outside",
    ],
)
def test_a_path_that_leads_outside_the_root_is_refused(layout, spelled):
    folders, root, outside = layout
    text = spelled.format(root=root, outside=outside)
    with pytest.raises(UsageError, match="outside the folders this server reads"):
        folders.check(text)


@pytest.mark.parametrize("spelled", ["square_kernel", "k.py:kern", "{root}/k.py:kern", "runs/s", "in.py", "./k.py"])
def test_a_path_inside_the_root_or_a_built_in_name_passes(layout, spelled):
    folders, root, _ = layout
    text = spelled.format(root=root)
    assert folders.check(text) == text


def test_a_name_that_is_also_a_path_is_taken_as_the_path(layout):
    """``outdir`` looks like a built-in kernel's name, but a folder (a link out) of that name is what irscope opens;
    a baseline is always a path."""
    folders, root, _ = layout
    with pytest.raises(UsageError, match="outside"):
        folders.check("outdir")
    os.chdir(root.parent)  # the root is now a folder below the working directory; "outside" its sibling
    assert folders.check("root", "baseline") == "root"
    with pytest.raises(UsageError, match="outside"):
        folders.check("outside", "baseline")
