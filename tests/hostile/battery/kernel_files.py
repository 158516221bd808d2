"""Kernel files just downloaded: a ``.cu`` folder, a ``load_inline`` file, their neighbours and their bytes.

A kernel file the user names is code when it is Python (README "Bad input"), but a ``.cu`` is
read as text, and so is a ``.py`` whose CUDA irscope finds through ``load_inline``: a spec file
beside a ``.cu`` runs only when asked for, and ``cuda_sources`` that are not plain literals are
not evaluated to find them.
"""

from __future__ import annotations

import os
from pathlib import Path

from .case import Case
from .payloads import module, python
from .workspace import Workspace, cli

KERNEL_CU = "__global__ void k(float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = 1.0f; }\n"
READ_CU = frozenset({0, 2, 3})


def _downloaded_cu(ws: Workspace, name: str = "k") -> Path:
    folder = ws.work / "downloaded"
    folder.mkdir(exist_ok=True)
    cu = folder / f"{name}.cu"
    cu.write_text(KERNEL_CU)
    return cu


SPEC_BESIDE = {
    "a spec file that runs at import": lambda ws, cu: (cu.parent / f"{cu.stem}_spec.py").write_text(
        module(ws.canary_path())
    ),
    "a spec folder that is a package": lambda ws, cu: (
        (cu.parent / f"{cu.stem}_spec").mkdir(),
        (cu.parent / f"{cu.stem}_spec" / "__init__.py").write_text(module(ws.canary_path())),
    ),
    "a spec file linking outside": lambda ws, cu: (cu.parent / f"{cu.stem}_spec.py").symlink_to(
        ws.outside / "secret.txt"
    ),
    "a spec file that is a FIFO": lambda ws, cu: os.mkfifo(cu.parent / f"{cu.stem}_spec.py"),
    "a compiled spec in __pycache__": lambda ws, cu: _pycache_spec(ws, cu),
    "a sitecustomize beside it": lambda ws, cu: (cu.parent / "sitecustomize.py").write_text(module(ws.canary_path())),
}


def _pycache_spec(ws: Workspace, cu: Path) -> None:
    import py_compile

    source = cu.parent / f"{cu.stem}_spec.py"
    source.write_text(module(ws.canary_path()))
    py_compile.compile(str(source), cfile=str(cu.parent / f"{cu.stem}_spec.pyc"))
    source.unlink()


CU_BYTES = {
    "NUL bytes": KERNEL_CU.encode().replace(b"{", b"{\x00", 1),
    "invalid UTF-8": b"// \xff\xfe\n" + KERNEL_CU.encode(),
    "terminal controls in a comment": b"// \x1b]0;pwned\x07\x1b[2J\n" + KERNEL_CU.encode(),
    "a kernel name of 10k characters": KERNEL_CU.replace("void k(", "void " + "k" * 10_000 + "(").encode(),
    "a macro default of shell": b"#ifndef OP\n#define OP $(touch CANARY)\n#endif\n" + KERNEL_CU.encode(),
    "empty": b"",
}


def _cu_case(what: str, command: str) -> Case:
    def prepare(ws: Workspace, originals):
        cu = _downloaded_cu(ws)
        if what in SPEC_BESIDE:
            SPEC_BESIDE[what](ws, cu)
        else:
            cu.write_bytes(CU_BYTES[what].replace(b"CANARY", str(ws.canary_path()).encode()))
        if command == "dump":
            return cli("dump", f"{cu}:k", "--stage", "ptx")
        if command == "sweep":
            return cli("sweep", f"{cu}:k", "-o", ws.allow(ws.work / "out"), "-j", "1")
        return cli("diff", f"{cu}:k", "-a", "opt=2", "-b", "opt=3")

    return Case(f".cu file@{command}", what, prepare, READ_CU | {1})


INLINE = '''from torch.utils.cpp_extension import load_inline

cuda_source = """
__global__ void square_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
"""
'''
# how cuda_sources is written -> the call; each runs the payload P if the file is evaluated
INLINE_CALLS = {
    "a call inside the list": "load_inline(name='m', cpp_sources='', cuda_sources=[cuda_source, {P} or ''])",
    "a call as the value": "load_inline(name='m', cpp_sources='', cuda_sources=({P}, cuda_source)[1])",
    "an f-string": "load_inline(name='m', cpp_sources='', cuda_sources=[f'{{{P}}}' + cuda_source])",
    "a name bound to a call": "src = {P} or cuda_source\nload_inline(name='m', cpp_sources='', cuda_sources=[src])",
    "a comprehension": "load_inline(name='m', cpp_sources='', cuda_sources=[s for s in [cuda_source] if {P} is None])",
    "a lambda called": "load_inline(name='m', cpp_sources='', cuda_sources=(lambda: ({P}, cuda_source)[1])())",
    "a walrus": "load_inline(name='m', cpp_sources='', cuda_sources=[(x := {P}) or cuda_source])",
    "a decorator on the module's function": "@(lambda f: ({P}, f)[1])\ndef build():\n"
    "    return load_inline(name='m', cpp_sources='', cuda_sources=cuda_source)",
    "keyword arguments unpacked": "load_inline(name='m', cpp_sources='', **{{'cuda_sources': ({P}, cuda_source)[1]}})",
    "a string that is not valid Python": "load_inline(name='m', cpp_sources='', cuda_sources=cuda_source\n",
}


def _inline_case(what: str, command: str) -> Case:
    def prepare(ws: Workspace, originals):
        py = ws.work / "downloaded" / "inline_square.py"
        py.parent.mkdir(exist_ok=True)
        py.write_text(INLINE + "\n" + INLINE_CALLS[what].format(P=python(ws.canary_path())) + "\n")
        if command == "dump":
            return cli("dump", f"{py}:square_kernel", "--stage", "ptx")
        return cli("sweep", f"{py}:square_kernel", "-s", "opt=2,3", "-o", ws.allow(ws.work / "out"), "-j", "1")

    return Case(f"load_inline file@{command}", f"cuda_sources as {what}", prepare, frozenset({0, 1, 2, 3}))


def kernel_file_cases() -> list[Case]:
    cases = [_cu_case(what, command) for what in SPEC_BESIDE for command in ("dump", "sweep")]
    cases += [_cu_case(what, ("dump", "diff")[i % 2]) for i, what in enumerate(CU_BYTES)]
    cases += [_inline_case(what, command) for what in INLINE_CALLS for command in ("dump", "sweep")]
    return cases
