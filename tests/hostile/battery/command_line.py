"""The CLI's own arguments: values for -c/-s/-S/--arch/--stage/--compile-timeout and paths for -o.

A value that reaches a command line (a CUDA macro's ``-DNAME=value``) is a checked token or
nothing: the shell payloads leave a canary if any shell sees them. Every kernel kind is tried,
including a ``.cu`` whose macro is a string (``#define OP x[i]``), where a value is not a number.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import payloads
from .case import Case, socket_at
from .readers import html_is_inert
from .workspace import Workspace, cli

USAGE = frozenset({2})
COMPILE = frozenset({0, 1, 2, 3})  # a value that is fine to pass may still fail to compile: 3 (dump), 1 (sweep)

# kernel kind -> (KERNEL, the parameter -c sets, extra arguments)
KERNELS = {
    "builtin": ("square_kernel", "BLOCK_SIZE", ()),
    "triton file": ("{kernels}/tk.py:scale_kernel", "BLOCK", ("-S", "*fp32:16, *fp32:16, i32")),
    "cuda int macro": ("{kernels}/macro.cu:scale_kernel", "TILE", ()),
    "cuda string macro": ("{kernels}/macro.cu:scale_kernel", "OP", ()),
    "numba": ("{kernels}/nb.py:twice_kernel", "opt", ()),
}


def _values(canary: Path) -> dict[str, str]:
    return {
        "shell $(...)": payloads.shell(canary),
        "backticks": payloads.backticks(canary),
        "shell after a number": f"1;touch {canary}",
        "shell in a string literal": f'"$(touch {canary})"',
        "python expression": payloads.python(canary),
        "a newline and a directive": f'1\n#include "{canary}"',
        "a NUL byte": "1\x00;touch",
        "terminal controls": "\x1b]0;pwned\x07",
        "a huge integer": str(10**40),
        "NaN": "nan",
        "negative": "-1",
        "empty": "",
        "HTML": "<!--<script>",
    }


VALUE_NAMES = list(_values(Path("c")))


def _assign_case(kind: str, value_name: str, flag: str) -> Case:
    kernel, name, extra = KERNELS[kind]

    def prepare(ws: Workspace, originals):
        value = _values(ws.canary_path())[value_name]
        target = kernel.format(kernels=originals.kernels)
        if flag == "-c":
            return cli("dump", target, *extra, "-c", f"{name}={value}", "--no-cache")
        return cli("sweep", target, *extra, "-s", f"{name}={value}", "-o", ws.allow(ws.work / "out"), "-j", "1")

    return Case(f"cli {flag}@{'dump' if flag == '-c' else 'sweep'}", f"{kind} {name}={value_name}", prepare, COMPILE)


def _option_case(surface: str, what: str, argv, codes=USAGE) -> Case:
    def prepare(ws: Workspace, originals):
        return cli(*[a.format(kernels=originals.kernels, canary=ws.canary_path(), work=ws.work) for a in argv])

    return Case(surface, what, prepare, codes)


SIGNATURES = {
    "shell after a type": "*fp32; touch {canary}",
    "a python expression": "*fp32, __import__('os').system('touch {canary}')",
    "a type triton would eval": "tensordesc<fp32[4],__import__('os').system('touch {canary}')>, *fp32, i32",
    "terminal controls": "*fp32\x1b[2J, *fp32, i32",
    "a huge hint": "*fp32:" + "9" * 50 + ", *fp32, i32",
    "nothing": "",
}
ARCHS = {
    "shell after an arch": "sm_90;touch {canary}",
    "shell $(...)": "$(touch {canary})",
    "a huge number": "sm_" + "9" * 40,
    "negative": "sm_-90",
    "NaN": "sm_nan",
    "a path": "../../sm_90",
    "terminal controls": "sm_90\x1b[2J",
    "HTML": "<script>",
}
TIMEOUTS = {
    "inf": "inf",
    "-inf": "-inf",
    "nan": "nan",
    "negative": "-1",
    "zero": "0",
    "1e309": "1e309",
    "a word": "soon",
}


def option_cases() -> list[Case]:
    cases = []
    for what, sig in SIGNATURES.items():
        cases.append(
            _option_case(
                "cli -S@dump",
                what,
                ["dump", "{kernels}/tk.py:scale_kernel", "-S", sig, "-c", "BLOCK=128"],
                frozenset({2, 3}),
            )
        )
    for i, (what, arch) in enumerate(ARCHS.items()):
        kernel = ("square_kernel", "{kernels}/macro.cu:scale_kernel", "{kernels}/nb.py:twice_kernel")[i % 3]
        cases.append(_option_case("cli --arch@dump", what, ["dump", kernel, "--arch", arch]))
        cases.append(_option_case("cli --arch@sweep", what, ["sweep", kernel, "--arch", arch, "-o", "{work}/out"]))
    for what, timeout in TIMEOUTS.items():
        cases.append(
            _option_case(
                "cli --compile-timeout@dump",
                what,
                ["dump", "{kernels}/macro.cu:scale_kernel", "--compile-timeout", timeout, "--no-cache", "-c", "TILE=3"],
                frozenset({0, 2}),
            )
        )
    for what, stage in {"unknown": "ptx;rm", "controls": "\x1b[2J", "a path": "../ptx"}.items():
        cases.append(_option_case("cli --stage@dump", what, ["dump", "square_kernel", "--stage", stage]))
    return cases


# ---------------------------------------------------------------- -o: what is at the output path


def _fifo(path: Path) -> None:
    os.mkfifo(path)


OUTPUT_FILES = {
    "a link to a secret outside": lambda ws, p: p.symlink_to(ws.outside / "secret.txt"),
    "a dangling link to a new file outside": lambda ws, p: p.symlink_to(ws.outside / "planted.html"),
    "a FIFO": lambda ws, p: _fifo(p),
    "a socket": lambda ws, p: socket_at(p),
    "a character device (/dev/null's numbers)": lambda ws, p: os.mknod(p, 0o600 | 0o020000, os.makedev(1, 3)),
    "a directory": lambda ws, p: p.mkdir(),
    "inside a folder that links outside": lambda ws, p: None,
}


# What may stand at the output path once written: a link or a folder may be replaced by the file (the user
# named that path), but a FIFO, a socket or a device is never replaced (/dev/zero must not become a report).
REPLACEABLE = ("a link to a secret outside", "a dangling link to a new file outside", "a directory")


def _output_case(command: str, what: str) -> Case:
    suffix = ".html" if command == "report" else ".ndjson"

    def prepare(ws: Workspace, originals):
        out = ws.work / f"out{suffix}"
        if what in REPLACEABLE:
            ws.allow(out)
        if what == "inside a folder that links outside":  # the user's own link, named by them: followed
            (ws.work / "linked").symlink_to(ws.outside / "projects")
            out = ws.work / "linked" / f"out{suffix}"
            ws.allow(ws.outside / "projects" / out.name)
        else:
            OUTPUT_FILES[what](ws, out)
        session = originals.session("builtin")
        if command == "report":
            return cli("report", session.path, "-o", out)
        return cli("export", session.path, "-c", session.a, "-o", out)

    # Refused (2, or 5 for what is at the path) or written in place of the link, never through it.
    return Case(
        f"cli -o@{command}",
        f"the output path is {what}",
        prepare,
        frozenset({0, 2, 5}),
        lambda ws: html_is_inert(ws.work / "out.html"),
    )


def _output_dir_case(command: str, what: str) -> Case:
    def prepare(ws: Workspace, originals):
        out = ws.work / "out"
        if what == "a link to a folder outside":  # the user's own link, named by them: followed
            out.symlink_to(ws.outside / "projects")
            ws.allow(ws.outside / "projects")
        elif what == "a file":
            out.write_text("mine\n")
        else:
            _fifo(out)
        if command == "sweep":
            return cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=128", "-o", out, "-j", "1")
        return cli("dump", "square_kernel", "-c", "BLOCK_SIZE=128", "-o", out)

    return Case(f"cli -o@{command}", f"the output folder is {what}", prepare, frozenset({0, 2, 5}))


def cli_cases() -> list[Case]:
    cases = [_assign_case(kind, value, "-c") for kind in KERNELS for value in VALUE_NAMES]
    cases += [
        _assign_case(kind, value, "-s")
        for kind in ("cuda string macro", "builtin")
        for value in VALUE_NAMES
        if value not in ("a huge integer", "NaN", "negative", "empty")
    ]
    cases += option_cases()
    cases += [_output_case(command, what) for command in ("report", "export") for what in OUTPUT_FILES]
    cases += [
        _output_dir_case(command, what)
        for command in ("sweep", "dump")
        for what in ("a link to a folder outside", "a file", "a FIFO")
    ]
    return cases
