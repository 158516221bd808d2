"""The core stays headless and light: no textual, and no torch unless a function needs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE_MODULES = [
    "irscope",
    "irscope.types",
    "irscope.stages",
    "irscope.arch",
    "irscope.paths",
    "irscope.errors",
    "irscope.spec",
    "irscope.frontends.config",
    "irscope.storage.files",
    "irscope.storage.variants",
    "irscope.nvidia.device",
    "irscope.capturing",
    "irscope.nvidia.sass",
    "irscope.ir.elf",
    "irscope.nvidia.ptxas",
    "irscope.frontends",
    "irscope.frontends.triton",
    "irscope.frontends.triton.kernel",
    "irscope.frontends.triton.kernel_files",
    "irscope.frontends.triton.listen",
    "irscope.measure.worker",
    "irscope.frontends.triton.compile",
    "irscope.frontends.triton.specialize",
    "irscope.capturing.cache",
    "irscope.capturing.worker",
    "irscope.processes.workers",
    "irscope.ir.locations",
    "irscope.ir.sourcemap",
    "irscope.ir.interleave",
    "irscope.cli",
    "irscope.ir.highlight",
    "irscope.diffing",
    "irscope.annotating",
    "irscope.session",
    "irscope.measure.bench",
    "irscope.measure.samples",
    "irscope.records",
    "irscope.measure.runtimes",
    "irscope.processes.executors",
    "irscope.processes.executors.ray_executor",
    "irscope.processes.executors.ray_pools",
]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_imports_neither_textual_nor_torch(module):
    code = f"import sys, {module}; print('textual' in sys.modules, 'torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"], out


def test_the_local_executor_never_imports_ray():
    """Ray (an optional extra, and seconds to import) is imported only where --executor ray asks for it."""
    code = "import sys, irscope.cli, irscope.capturing, irscope.measure.bench; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"], out


def test_capturing_a_builtin_kernel_ahead_of_time_does_not_import_torch(tmp_path):
    code = (
        "import sys\nfrom irscope.capturing import capture\n"
        "v = capture('add_kernel', arch='sm_90', use_cache=False)\n"
        "print(v.ok, 'torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**__import__("os").environ, "IRSCOPE_CACHE_DIR": str(tmp_path)},
    ).stdout
    assert out.split() == ["True", "False"]
