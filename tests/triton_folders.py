"""What Triton itself writes as a program compiles, for the tests that open it (tests/test_triton_folders.py,
tests/hostile/test_triton_folder_input.py): examples/triton_folders.py run as docs/inputs.md runs it, under the
Triton the tests run with (PYTHONPATH): its cache, TRITON_KERNEL_DUMP's folder and MLIR_ENABLE_DUMP's output."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "examples" / "triton_folders.py"
KERNELS = {"add_kernel": 2, "scale_kernel": 2}  # compiles of each


@dataclass(frozen=True)
class TritonFolders:
    cache: Path  # TRITON_CACHE_DIR
    dump: Path  # TRITON_DUMP_DIR
    mlir_log: Path  # the program's stderr with MLIR_ENABLE_DUMP=1


def triton_folders_in(folder: Path) -> TritonFolders:
    return TritonFolders(folder / "cache", folder / "dump", folder / "mlir.log")


def write_triton_folders(folder: Path) -> TritonFolders:
    """Run the program once with every one of Triton's own dump settings on; what it wrote, under ``folder``."""
    subprocess.run([sys.executable, str(PROGRAM), str(folder)], check=True, timeout=600, capture_output=True)
    return triton_folders_in(folder)
