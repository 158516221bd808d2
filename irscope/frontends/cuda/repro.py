"""``irscope repro`` for CUDA C++: one standalone Python file that rebuilds a stored variant with nvcc.

The file needs Python and nvcc only. It runs nvcc as ``compile.py`` does, in a temporary folder of
its own, on the same fixed names (``kernel.cu`` including the source, ``-include config.h``) and the
same flags (``-arch=sm_XX -lineinfo -cubin -Xptxas -v`` and the config's ``--use_fast_math``,
``-maxrregcount``, ``-Xptxas -O``), so nothing from the session reaches nvcc's command line, which
nvcc hands to a shell: every flag is an integer or a boolean checked here (``tokens.flag_values``) and
written with ``repr``. The source is the text irscope compiled (a torch extension's device side, as
``kernel.py`` takes it), written as ``source.cu`` behind a ``#line 1 "FILE"`` naming the kernel's file,
so the PTX's ``.file`` table names what irscope's ``#include`` named (equal, measured on nvcc 13.0).
``config.h`` is the one ``tokens.config_header`` writes (every macro value a checked C token). nvcc
makes the PTX of the whole file; the variant's listing is its kernel's slice (``ir/ptx_module.py``),
so the file carries that module's own code, copied from irscope's, to cut the same slice.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import ParameterError, SessionError, UsageError
from ...ir import ptx_module
from ...types import Variant
from ..info import reproducible
from .inline import HOST_ONLY_INCLUDE, InlineSource, device_side
from .source import tunable_macros
from .tokens import config_header, flag_values

ENTRY = re.compile(r"[A-Za-z_$][\w$]{0,1023}")
NVCC = re.compile(r"nvcc V[0-9][0-9.]{0,30}")
QUOTE_INCLUDE = re.compile(r'^\s*#\s*include\s*"', re.M)
# A path a C string literal (#line "...") holds as it is: no quote, backslash or control character.
C_PATH = re.compile(r'[^"\\\x00-\x1f\x7f]{1,4000}')

TEMPLATE = '''\
#!/usr/bin/env python3
"""Rebuilds {title} with nvcc, as irscope captured it.

Written by `irscope repro`; it needs Python and nvcc only (irscope captured it with {compiler}). It
compiles the kernel's source below with the flags irscope used and prints the kernel's PTX (its part
of the file's module), or writes it: python {{this file}} -o FILE.ptx; --module: the whole module.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

KERNEL = {kernel}
ENTRY = {entry}
ARCH = {capability}
FAST_MATH = {fast_math}
MAXRREGCOUNT = {maxrregcount}
PTXAS_OPT = {opt}
NVCC_VERSION = {version}
CONFIG_H = {config_h}
SOURCE = {source}


def nvcc() -> str:
    """nvcc on the PATH, else under $CUDA_HOME or $CUDA_PATH, else /usr/local/cuda (as irscope finds it)."""
    found = shutil.which("nvcc")
    if found:
        return found
    roots = [r for r in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")) if r] or ["/usr/local/cuda"]
    for root in roots:
        if os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
            return os.path.join(root, "bin", "nvcc")
    sys.exit("nvcc (the CUDA toolkit) is not installed here: put it on PATH or set CUDA_HOME")


def command(tool: str) -> list[str]:
    cmd = [tool, f"-arch=sm_{{ARCH}}", "-lineinfo", "-cubin", "-Xptxas", "-v", "--keep", "--keep-dir", ".",
           "-o", "kernel.cubin", "-include", "config.h"]
    if FAST_MATH:
        cmd.append("--use_fast_math")
    if MAXRREGCOUNT > 0:
        cmd.append(f"-maxrregcount={{MAXRREGCOUNT}}")
    if PTXAS_OPT != 3:
        cmd += ["-Xptxas", f"-O{{PTXAS_OPT}}"]
    return cmd + ["kernel.cu"]


def compile_module() -> str:
    """The PTX nvcc makes of the whole file, compiled as irscope compiled it."""
    tool = nvcc()
    version = re.search(r"release [\\d.]+, (V[\\d.]+)", subprocess.run([tool, "--version"], capture_output=True,
                        text=True).stdout)
    if version is None or f"nvcc {{version.group(1)}}" != NVCC_VERSION:
        print(f"warning: captured with {{NVCC_VERSION}}, running {{tool}} ({{version and version.group(1)}})",
              file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="repro-nvcc-") as tmp:
        for name, text in (("source.cu", SOURCE), ("kernel.cu", '#include "source.cu"\\n'), ("config.h", CONFIG_H)):
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        done = subprocess.run(command(tool), capture_output=True, text=True, cwd=tmp)
        ptx = sorted(name for name in os.listdir(tmp) if name.endswith(".ptx"))
        if done.returncode != 0 or not ptx:
            sys.stderr.write(done.stderr + done.stdout)
            sys.exit(f"nvcc failed (exit {{done.returncode}})")
        with open(os.path.join(tmp, ptx[0]), encoding="utf-8") as f:
            return f.read()


# --- irscope's ir/ptx_module.py, as it was when this file was written: the kernel's slice of the module ---
{slicer}
# --- end of ptx_module.py ---


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", dest="out", help="write the PTX here instead of printing it")
    parser.add_argument("--module", action="store_true", help="the whole file's PTX, not the kernel's slice")
    args = parser.parse_args()
    module = compile_module()
    if ENTRY not in entries(module):
        sys.exit(f"nvcc made no entry {{ENTRY}} for {{KERNEL}}")
    ptx = module if args.module else kernel_slice(module, ENTRY)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(ptx)
    else:
        sys.stdout.write(ptx)


if __name__ == "__main__":
    main()
'''


def _slicer() -> str:
    """ptx_module.py's code without its docstring and ``__future__`` line (the file has its own)."""
    text = Path(ptx_module.__file__).read_text(encoding="utf-8")
    body = text.split('"""', 2)[2] if text.startswith('"""') else text
    return body.replace("from __future__ import annotations\n", "").strip("\n") + "\n"


def cuda_repro(variant: Variant) -> str:
    """The standalone file rebuilding ``variant`` (a CUDA C++ variant that compiled, with its source stored)."""
    capability, text = reproducible(variant)
    info = variant.compile_info
    assert info is not None  # reproducible: it compiled
    name = variant.kernel.name
    file = variant.kernel.file
    if file.endswith(".py"):
        raise UsageError(f"{name}: repro does not rebuild a load_inline kernel of a Python file yet")
    if not C_PATH.fullmatch(file):
        raise SessionError(f"the kernel's file {file[:60]!r} is not a path a #line directive can name")
    if not NVCC.fullmatch(info.compiler):
        raise SessionError(f"{name} was compiled by {info.compiler[:60]!r}, not nvcc")
    entry = info.options.get("entry")
    if not isinstance(entry, str) or not ENTRY.fullmatch(entry):
        raise SessionError(f"the PTX entry {str(entry)[:60]!r} is not a name a repro can write")
    # The text irscope compiled: a torch extension's device side (kernel.py), else the file itself.
    code = device_side(InlineSource(text, 1), file) if HOST_ONLY_INCLUDE.search(text) else f'#line 1 "{file}"\n{text}'
    if QUOTE_INCLUDE.search(text):
        raise UsageError(f'{name}: its file #includes "..." headers of its own, which the session does not hold')
    values = {**variant.config.constexprs, **variant.config.options}
    try:
        flags = flag_values(values)
        header = config_header(values, tunable_macros(code))
    except ParameterError as exc:
        raise SessionError(f"{name}: {exc}") from None
    return TEMPLATE.format(
        title=f"{name} {variant.config.label()} for {variant.arch}".replace('"', "'").replace("\\", "/"),
        compiler=info.compiler,
        kernel=repr(name),
        entry=repr(entry),
        capability=capability,
        fast_math=repr(bool(flags.get("fast_math", False))),
        maxrregcount=int(flags.get("maxrregcount", 0)),
        opt=int(flags.get("opt", 3)),
        version=repr(info.compiler),
        config_h=repr(header),
        source=repr(code),
        slicer=_slicer(),
    )
