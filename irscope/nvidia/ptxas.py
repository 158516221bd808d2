"""ptxas, the assembler from PTX to a cubin: what it reports about registers, spills and stack.

Every frontend that emits PTX (Triton, nvcc, Numba) goes through ptxas, and its
``-v`` report is the only source of register and spill counts without a GPU.
Triton bundles a ptxas; irscope uses it for any PTX.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

# Largest dynamic shared memory a block may opt into, per SM version (CUDA
# programming guide, "Technical Specifications per Compute Capability").
SHARED_MEMORY_LIMIT = {
    70: 98304,
    75: 65536,
    80: 166912,
    86: 101376,
    87: 166912,
    89: 101376,
    90: 232448,
    100: 232448,
    101: 232448,
    103: 232448,
    110: 232448,
    120: 101376,
    121: 101376,
}

# ptxas info    : Used 22 registers, used 0 barriers, 16 bytes smem
PTXAS_REGISTERS = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?")
#     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


PTXAS_SMEM = re.compile(r"Used \d+ registers[^\n]*?, (\d+) bytes smem")


def static_shared(log: str) -> int:
    """Bytes of static shared memory (``__shared__`` arrays) ptxas reports for the function, 0 if none."""
    m = PTXAS_SMEM.search(log)
    return int(m.group(1)) if m else 0


def parse_ptxas_log(log: str) -> dict[str, int]:
    out: dict[str, int] = {}
    m = PTXAS_REGISTERS.search(log)
    if m:
        out["registers"] = int(m.group(1))
        if m.group(2) is not None:
            out["barriers"] = int(m.group(2))
    m = PTXAS_FRAME.search(log)
    if m:
        out["stack_frame"], out["spill_stores"], out["spill_loads"] = map(int, m.groups())
    return out


def run_ptxas_report(ptx: str, capability: int, ptxas: str) -> str:
    """``ptxas -v`` on ``ptx`` (for variants whose compile we did not watch, e.g. cache hits).

    ``ptxas``: the tool's path, the one the frontend's compiler runs for ``capability`` (Triton's
    bundled one: ``frontends/triton/versions.ptxas_path``).
    """
    from triton.backends.nvidia.compiler import sm_arch_from_capability

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "k.ptx"
        src.write_text(ptx)
        proc = subprocess.run(
            [
                ptxas,
                "-v",
                f"--gpu-name={sm_arch_from_capability(capability)}",
                str(src),
                "-o",
                str(Path(tmp) / "k.cubin"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    return proc.stderr + proc.stdout
