"""One CUDA C++ compile with nvcc: PTX, the cubin and ptxas's report, for one kernel's config.

``nvcc -cubin --keep`` runs the whole device pipeline once (cudafe, cicc to PTX, ptxas
to the cubin) and leaves the PTX it made behind; ``-lineinfo`` puts ``.loc`` lines in
the PTX and a line table in the cubin, so both map back to the ``.cu`` file; ``-Xptxas
-v`` prints registers, spills and stack per function. A config is the file's tunable
macros and the compiler flags irscope sweeps.

nvcc hands its sub-tools their arguments through a shell, so nothing that comes from
a file or a config goes on its command line: it compiles a ``kernel.cu`` of irscope's
own that ``#include``s the kernel's file, with the macros in a header it writes
(``-include config.h``, tokens.py), all under fixed names in its own temporary folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import ParameterError
from ...ir.ptx_module import entries, kernel_slice
from ...nvidia.demangle import demangle
from ...types import CaptureError
from ..base import Compiled
from .names import entry_for
from .tokens import config_header, flag_values

# Compiler flags a config may set (kind "constexpr" in the table: compile-time, like the macros).
# name -> (default, default sweep, what it does)
# name -> (default, the values a sweep takes, what it does)
FLAGS: dict[str, tuple[Any, list[Any], str]] = {
    "fast_math": (
        False,
        [False, True],
        "--use_fast_math: approximate division, sqrt and transcendentals, flush denormals",
    ),
    "maxrregcount": (0, [0], "-maxrregcount=N: registers per thread (0: no limit)"),
    "opt": (3, [3], "-Xptxas -O<N>: ptxas optimisation level, 0 to 3"),
}
NVCC_TIMEOUT = 300.0
WRAPPER = "kernel.cu"  # what nvcc is given: it includes the kernel's file
CONFIG_HEADER = "config.h"


def nvcc_path() -> str | None:
    """nvcc on the PATH, else under $CUDA_HOME or $CUDA_PATH; /usr/local/cuda only where neither is set
    (a toolkit the user named is the one they want, not another one found behind it)."""
    found = shutil.which("nvcc")
    if found:
        return found
    named = [r for r in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")) if r]
    for root in named or ["/usr/local/cuda"]:
        if os.access(Path(root) / "bin" / "nvcc", os.X_OK):
            return str(Path(root) / "bin" / "nvcc")
    return None


def nvcc_version() -> str:
    tool = nvcc_path()
    if tool is None:
        return "nvcc missing"
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return "nvcc unreadable"
    m = re.search(r"release ([\d.]+), (V[\d.]+)", out)
    return f"nvcc {m.group(2)}" if m else "nvcc"


def command(values: Mapping[str, Any], capability: int) -> list[str]:
    """The nvcc command line for one config, run in the folder ``sources`` wrote; only checked tokens vary."""
    flags = flag_values(values)
    tool = nvcc_path() or "nvcc"
    cmd = [
        tool,
        f"-arch=sm_{int(capability)}",
        "-lineinfo",
        "-cubin",
        "-Xptxas",
        "-v",
        "--keep",
        "--keep-dir",
        ".",
        "-o",
        "kernel.cubin",
        "-include",
        CONFIG_HEADER,
    ]
    if flags.get("fast_math"):
        cmd.append("--use_fast_math")
    if flags.get("maxrregcount", 0) > 0:
        cmd.append(f"-maxrregcount={flags['maxrregcount']}")
    if flags.get("opt", 3) != 3:
        cmd += ["-Xptxas", f"-O{flags['opt']}"]
    return cmd + [WRAPPER]


def sources(file: str, values: Mapping[str, Any], macros: Mapping[str, Any], out_dir: str) -> None:
    """Write the wrapper that includes ``file`` and the header that sets its macros into ``out_dir``.

    The ``#include`` keeps the file's own path, so ``.loc`` lines and the cubin's line
    table name it, and its own ``#include "..."`` lines resolve beside it.
    """
    if any(c in file for c in '"\n\r'):
        raise ParameterError(
            f"cannot compile {file!r}: nvcc cannot include a path holding a quote or a newline; rename it"
        )
    header = config_header(values, macros)
    Path(out_dir, CONFIG_HEADER).write_text(header, encoding="utf-8")
    Path(out_dir, WRAPPER).write_text(f'#include "{file}"\n', encoding="utf-8")


def compile_cuda(
    file: str, kernel: str, values: Mapping[str, Any], macros: Mapping[str, Any], capability: int
) -> Compiled:
    """Compile ``file`` for ``sm_<capability>``: ``kernel``'s own PTX (its part of the file's module) and ptxas's
    report on it; the cubin holds every kernel of the file, as nvcc made it (a launch finds the entry in it)."""
    from ...stages import Stage

    start = time.perf_counter()
    if nvcc_path() is None:
        return Compiled(
            error=CaptureError(
                "environment", "nvcc (the CUDA toolkit) is not installed here: put it on PATH or set CUDA_HOME"
            )
        )
    file = os.path.abspath(file)
    with tempfile.TemporaryDirectory(prefix="irscope-nvcc-") as tmp:
        try:
            sources(file, values, macros, tmp)
            cmd = command(values, capability)
        except ParameterError as exc:  # a value that is not a token: this config's failure, never run
            return Compiled(error=CaptureError("config", str(exc)))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=NVCC_TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            return Compiled(error=CaptureError("timeout", f"nvcc ran past {NVCC_TIMEOUT:.0f} s"))
        except OSError as exc:
            return Compiled(error=CaptureError("environment", f"cannot run nvcc: {exc.strerror or exc}"))
        log = proc.stderr + proc.stdout
        ptx_files = sorted(Path(tmp).glob("*.ptx"))
        ptx = ptx_files[0].read_text() if ptx_files else None
        cubin_path = Path(tmp, "kernel.cubin")
        cubin = cubin_path.read_bytes() if proc.returncode == 0 and cubin_path.is_file() else None
    seconds = time.perf_counter() - start
    stages = {Stage.PTX: ptx} if ptx else {}
    if proc.returncode != 0:
        return Compiled(
            stages=stages,
            seconds=seconds,
            compiler=nvcc_version(),
            error=CaptureError("nvcc" if ptx is None else "cubin (ptxas)", _first_error(log, file)),
        )
    entry, function = kernel_entry(ptx or "", kernel)
    if entry is None:
        return Compiled(stages=stages, seconds=seconds, compiler=nvcc_version(), error=CaptureError("nvcc", function))
    # The entry is what a launch looks the function up by (C++ names are mangled).
    options = {**{k: values[k] for k in FLAGS if k in values}, "entry": entry}
    if function != kernel:  # a template named bare, settled by nvcc's entries: which instantiation it was
        options["function"] = function
    return Compiled(
        # the kernel's own part of the file's module: every fact counted on it is this kernel's (ptx_module.py)
        stages={Stage.PTX: kernel_slice(ptx or "", entry)},
        cubin=cubin,
        shared=0,
        options=options,
        compiler=nvcc_version(),
        ptxas_log=_function_report(log, entry),
        seconds=round(seconds, 4),
    )


def kernel_entry(ptx: str, kernel: str) -> tuple[str | None, str]:
    """The PTX entry nvcc made for ``kernel`` (``v1::norm``, ``scale<float>``) and its C++ name, or None and
    why not (names.py)."""
    found = entries(ptx)
    tool = nvcc_path()
    readable = demangle(found, str(Path(tool).parent) if tool else None)
    return entry_for({entry: readable.get(entry, entry) for entry in found}, kernel)


def _first_error(log: str, file: str) -> str:
    """nvcc's first error, as ``file:line: error: ...`` on one line."""
    for line in log.splitlines():
        if " error" in line or line.startswith("error") or "fatal" in line:
            return line.strip().replace(file, Path(file).name)[:500]
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    return lines[0][:500] if lines else "nvcc failed"


def _function_report(log: str, entry: str) -> str:
    """ptxas's ``-v`` lines for one function (its report lists every function of the file)."""
    out, mine = [], False
    for line in log.splitlines():
        if "Compiling entry function" in line or "Function properties for" in line:
            mine = f"'{entry}'" in line or line.rstrip().endswith(f" {entry}")
        if mine:
            out.append(line)
    return "\n".join(out)
