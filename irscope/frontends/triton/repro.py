"""``irscope repro`` for Triton: one standalone Python file that rebuilds a stored variant with ``triton.compile``.

The file needs Triton only. It holds the variant's facts as Python literals (``repr`` of values checked
here: identifiers, type names, scalars) and the kernel's stored source as a string it compiles and runs:
the one piece of the session that becomes code, which is what a reproducer is for. It builds the
``ASTSource`` as ``specialize.py`` does for ``-S`` (the signature, the constexprs with the heuristics'
values, ``tt.divisibility`` for the arguments known to be multiples of 16), under the module name and
file name the kernel had, so its helpers' mangled names and the PTX's ``.file`` lines come out the same.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ...errors import SessionError, UsageError
from ...types import Stage, Variant
from ..files import module_name

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")
ARG_TYPE = re.compile(r"constexpr|\*?k?[a-z][a-z0-9]{0,15}")  # *fp32, *kfp16, i32, u1, fp8e4nv, constexpr
VERSION = re.compile(r"[0-9][0-9A-Za-z.+_-]{0,39}")
SM = re.compile(r"sm_(\d{2,3})[af]?")

TEMPLATE = '''\
#!/usr/bin/env python3
"""Rebuilds {title} with triton.compile, as irscope captured it.

Written by `irscope repro`; it needs Triton only (irscope captured it with {compiler}). It runs the
kernel's source below, the file the variant was compiled from as irscope stored it: read it before
running this, as you would that file. Prints the PTX, or writes it: python {{this file}} -o FILE.ptx
"""

import argparse
import linecache
import sys

import triton
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton.runtime.jit import JITFunction

SOURCE_FILE = {source_file}
MODULE = {module}
KERNEL = {kernel}
SIGNATURE = {signature}
CONSTEXPRS = {constexprs}
DIVISIBLE_BY_16 = {divisible}
OPTIONS = {options}
TARGET = GPUTarget("cuda", {capability}, 32)
TRITON = {version}
SOURCE = {source}


def kernel() -> JITFunction:
    """The kernel, defined as its file defined it: same file name (the PTX's .file) and module (helpers' names)."""
    linecache.cache[SOURCE_FILE] = (len(SOURCE), None, SOURCE.splitlines(True), SOURCE_FILE)
    module = type(sys)(MODULE)
    module.__file__ = SOURCE_FILE
    sys.modules[MODULE] = module
    exec(compile(SOURCE, SOURCE_FILE, "exec"), module.__dict__)
    fn = module.__dict__[KERNEL]
    while not isinstance(fn, JITFunction):  # @triton.autotune / @triton.heuristics wrap it
        fn = fn.fn
    return fn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", dest="out", help="write the PTX here instead of printing it")
    args = parser.parse_args()
    if triton.__version__ != TRITON:
        print(f"warning: captured with triton {{TRITON}}, running triton {{triton.__version__}}", file=sys.stderr)
    fn = kernel()
    backend = make_backend(TARGET)
    options = backend.parse_options({{**OPTIONS, "debug": fn.debug or knobs.runtime.debug}})
    attrs = {{(fn.arg_names.index(name),): backend.parse_attr("D") for name in DIVISIBLE_BY_16}}
    source = ASTSource(fn, SIGNATURE, CONSTEXPRS, attrs)
    ptx = triton.compile(source, target=TARGET, options=options.__dict__).asm["ptx"]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(ptx)
    else:
        sys.stdout.write(ptx)


if __name__ == "__main__":
    main()
'''


def _scalar(value: Any, what: str) -> Any:
    if value is None or isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
        if isinstance(value, str) and len(value) > 200:
            raise SessionError(f"{what} is too long to be a value")
        return value
    raise SessionError(f"{what} is {str(value)[:60]!r}: not a value a repro can write")


def _checked(pattern: re.Pattern[str], value: Any, what: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise SessionError(f"{what} {str(value)[:60]!r} is not one a repro can write")
    return value


def triton_repro(variant: Variant) -> str:
    """The standalone file rebuilding ``variant`` (an NVIDIA variant that compiled, with its source stored)."""
    info = variant.compile_info
    if not variant.ok or info is None:
        raise UsageError(f"{variant.kernel.name} {variant.config.label()} did not compile: nothing to reproduce")
    arch = SM.fullmatch(variant.arch)
    if arch is None:
        raise UsageError(f"repro rebuilds NVIDIA variants (sm_XX); {variant.arch} is not one")
    source = variant.listings.get(Stage.SOURCE)
    if not source:
        raise UsageError(f"{variant.kernel.name}: no stored source to rebuild it from")
    kernel = _checked(IDENTIFIER, variant.kernel.name, "the kernel name")
    signature = {
        _checked(IDENTIFIER, name, "an argument name"): _checked(ARG_TYPE, kind, f"the type of {name}")
        for name, kind in info.signature.items()
    }
    given = {**variant.config.constexprs, **info.heuristics}
    constexprs = {}
    for name, kind in signature.items():
        if kind != "constexpr":
            continue
        if name not in given:
            raise UsageError(f"{kernel}: the constant {name} is not recorded with the variant; a repro cannot name it")
        constexprs[name] = _scalar(given[name], f"the constexpr {name}")
    divisible = tuple(n for n in info.divisible_by_16 if n in signature)
    options = {_checked(IDENTIFIER, k, "an option"): _scalar(v, f"the option {k}") for k, v in info.options.items()}
    compiler, _, version = info.compiler.partition(" ")
    if compiler != "triton":
        raise UsageError(f"{kernel} was compiled by {info.compiler!r}, not Triton")
    module = module_name("irscope_kernel", Path(variant.kernel.file))
    return TEMPLATE.format(
        title=f"{kernel} {variant.config.label()} for {variant.arch}".replace('"', "'").replace("\\", "/"),
        compiler=f"triton {_checked(VERSION, version, 'the Triton version')}",
        source_file=repr(variant.kernel.file),
        module=repr(module),
        kernel=repr(kernel),
        signature=repr(signature),
        constexprs=repr(constexprs),
        divisible=repr(divisible),
        options=repr(options),
        capability=int(arch[1]),
        version=repr(version),
        source=repr(source),
    )
