"""Installing irscope never changes the user's torch, and its dependency floors install together (issue 47, point 6).

Two dry-run resolves against the registry pip is configured with (nothing is installed; pip's report is read):

1. torch alone, as a user who runs ``pip install torch`` gets it: the newest torch the registry serves here.
2. the wheel built from this checkout beside that torch, unpinned (``pip install irscope.whl torch``), as a fresh
   venv resolves the two: torch must come out the same. With ``triton<3.10``, pip went back to an older torch
   as soon as the newest one pinned Triton 3.10.
3. every dependency of irscope at its floor (``>=X`` read as ``==X``): the floors pyproject.toml states must
   install together (``textual>=0.80`` beside ``textual-plotext>=1.0``, which needs textual 0.86.2, did not).

Exit 1, with what pip chose, when a check fails; run by .ci/compat. ``--wheel`` takes a wheel already built.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]


def resolve(*requirements: str, deps: bool = True) -> dict[str, str]:
    """name -> version of what ``pip install`` would install for ``requirements`` in an empty environment."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        args = ["install", "--dry-run", "--ignore-installed", "-q", "--report", str(report)]
        done = subprocess.run(
            [*PIP, *args, *([] if deps else ["--no-deps"]), *requirements], capture_output=True, text=True
        )
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if not ln.startswith("WARNING: Location")]
            raise SystemExit(f"pip cannot resolve {' '.join(requirements)}:\n" + "\n".join(lines[-15:]))
        installed = json.loads(report.read_text())["install"]
    return {_name(item["metadata"]["name"]): item["metadata"]["version"] for item in installed}


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def build_wheel(out: Path) -> Path:
    """The wheel of this checkout, built from a copy (the build writes build/ and *.egg-info beside pyproject)."""
    source = out / "src"
    skip = shutil.ignore_patterns(".git", "tests", "build", "dist", ".venv", "*.egg-info", "__pycache__", ".*_cache")
    shutil.copytree(REPO, source, ignore=skip)
    args = ["wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out), str(source)]
    subprocess.run([*PIP, *args], check=True)
    (wheel,) = out.glob("irscope-*.whl")
    return wheel


def floors() -> list[str]:
    """irscope's own dependencies, each pinned at the floor pyproject.toml gives it."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    pinned = []
    for requirement in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)(?:\s*,.*)?", requirement.split(";")[0].strip())
        if match is None:
            raise SystemExit(f"pyproject.toml: {requirement!r} has no floor (>=X) to check")
        pinned.append(f"{match[1]}=={match[2]}")
    return pinned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="a wheel of irscope already built (default: build one)")
    given = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        wheel = given.wheel or build_wheel(Path(folder))
        newest = resolve("torch", deps=False)["torch"]
        beside = resolve(str(wheel), "torch")
        at_floors = resolve(*floors())
    took = time.monotonic() - started
    print(
        f"resolve check ({took:.0f} s): the registry's newest torch is {newest}; beside irscope pip picks torch "
        f"{beside.get('torch')} and triton {beside.get('triton')}; the floors resolve: {' '.join(floors())}"
    )
    if beside.get("torch") != newest:
        raise SystemExit(
            f"installing irscope beside torch would change torch: the newest is {newest}, but with irscope pip picks "
            f"{beside.get('torch')} (triton {beside.get('triton')}): irscope's requirements exclude the newest torch's Triton"
        )
    from packaging.version import Version

    for name, version in (r.split("==") for r in floors()):
        if Version(at_floors.get(_name(name), "0")) != Version(version):
            raise SystemExit(
                f"{name}'s floor {version} does not install beside the others' floors: pip picks {at_floors}"
            )


if __name__ == "__main__":
    main()
