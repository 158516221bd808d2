"""What pip and a package index see of irscope (issue 47, point 6): the extras, the Project-URLs, a README whose
links and images work on an index page, and the resolve .ci/resolve_check.py runs in CI.

The resolves themselves (the built wheel beside the newest torch the registry serves; every dependency at its
floor) need the registry and take a minute or two of pip: CI runs .ci/resolve_check.py, not this file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SOURCE = "https://github.com/irscope/irscope"
RAW = "https://raw.githubusercontent.com/irscope/irscope/main/"

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_the_all_extra_holds_every_extra_a_user_may_want():
    extras = PROJECT["optional-dependencies"]
    (requirement,) = extras["all"]
    named = set(re.fullmatch(r"irscope\[([a-z,]+)\]", requirement)[1].split(","))
    assert named == set(extras) - {"all", "test"}


def test_torch_is_never_pinned_by_irscope():
    """irscope[torch] and irscope[all] name torch with no version: an installed torch always satisfies them."""
    for extra, requirements in PROJECT["optional-dependencies"].items():
        if extra != "test":
            assert not [r for r in requirements if re.match(r"torch\b", r) and r != "torch"], extra
    assert not [r for r in PROJECT["dependencies"] if r.startswith("torch")]


def test_every_dependency_has_a_floor_the_ci_resolve_can_check():
    sys.path.insert(0, str(REPO / ".ci"))
    try:
        from resolve_check import floors
    finally:
        sys.path.pop(0)
    assert floors() == [
        "triton==3.5",
        "click==8.1",
        "pygments==2.18",
        "rich==13.3.3",  # textual 0.86.2's own floor for rich
        "textual==0.86.2",  # textual-plotext 1.0's floor for textual
        "textual-plotext==1.0",
    ]


def test_the_project_urls_name_the_source_and_the_issues():
    urls = PROJECT["urls"]
    assert urls["Source"] == SOURCE and urls["Issues"] == f"{SOURCE}/issues"
    assert all(u.startswith("https://") for u in urls.values())


def _targets(text: str) -> list[tuple[bool, str]]:
    return [(bool(bang), target) for bang, target in re.findall(r"(!?)\[[^\]]*\]\(([^)\s]+)\)", text)]


def test_the_readmes_links_and_images_are_absolute_and_name_files_of_the_repository():
    """On a package index page the README's relative links went nowhere and its images did not show."""
    targets = _targets((REPO / "README.md").read_text())
    assert len(targets) > 30
    for image, target in targets:
        assert re.match(r"https://", target), target
        if image:
            assert target.startswith(RAW) and (REPO / target.removeprefix(RAW)).is_file(), target
        elif target.startswith(SOURCE + "/"):
            kind, _, path = target.removeprefix(SOURCE + "/").partition("/main/")
            assert kind in ("blob", "tree") and (REPO / path.partition("#")[0]).exists(), target
