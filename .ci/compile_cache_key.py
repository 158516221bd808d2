"""The name of the compile cache CI keeps between runs: a hash of everything that can change what a capture stores.

irscope's own cache key (capturing/cache.py) covers the kernel's source, Triton's dependency hash and
version, the config, the target and the environment that steers Triton; it leaves out irscope's own
code (CACHE_VERSION is bumped by hand) and the CUDA tools on PATH. A cache kept between CI runs must
never let a test pass on an entry an older irscope or another toolchain wrote, so its folder is named
by a hash of:

- irscope's capture code: every file of the package but those of the rooms above ``capturing`` in the
  layers contract (pyproject.toml, checked by lint-imports in .ci/static): a capture imports nothing
  from them (the faces, sessions, measurement, the importers), so they cannot change a variant, and
  whatever else the package holds (its data, a room added tomorrow) counts;
- the built-in kernels (their source is in the entry's key too: this is belt and braces);
- every installed distribution and its version (Triton, torch, numba-cuda, the NVRTC wheel ...), and
  the other Tritons the cross-version tests import ($IRSCOPE_TRITONS);
- the Python that runs the compiles, and ``--version`` of nvcc, ptxas, nvdisasm and cuobjdump on PATH.

Prints the hash (hex, 24 characters). Run from the repository root.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("nvcc", "ptxas", "nvdisasm", "cuobjdump")


def rooms_above_capture() -> set[str]:
    """The rooms (modules or packages of irscope) above ``capturing`` in the layers contract."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c.get("type") == "layers" and c.get("containers") == ["irscope"])
    names = [name.strip() for layer in layers for name in layer.split("|")]
    return set(names[: names.index("capturing")])


def capture_files() -> list[Path]:
    package = ROOT / "irscope"
    above = rooms_above_capture()
    return sorted(
        p
        for p in package.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.relative_to(package).parts[0].removesuffix(".py") not in above
    )


def main() -> None:
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    files = capture_files()
    files += sorted(p for p in (ROOT / "kernels").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        add(str(path.relative_to(ROOT)), path.read_bytes())
    installed = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    add("distributions", "\n".join(installed).encode())
    tritons = Path(os.environ.get("IRSCOPE_TRITONS", "/nonexistent"))
    add("other tritons", "\n".join(sorted(p.name for p in tritons.glob("*/triton-*.dist-info"))).encode())
    add("python", sys.version.encode())
    for tool in TOOLS:
        found = shutil.which(tool)
        version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout if found else "absent"
        add(tool, version.encode())
    print(digest.hexdigest()[:24])


if __name__ == "__main__":
    main()
