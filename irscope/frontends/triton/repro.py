"""``irscope repro`` for Triton: one standalone Python file that rebuilds a stored variant with ``triton.compile``.

The file needs Triton only. It rebuilds the kernel as irscope rebuilds a stored kernel (``rebuild.py``), so
nothing of the session's text runs as Python: each ``@triton.jit`` def becomes a bare signature at its own
line (``def k(x_ptr, BLOCK): pass``, literal defaults only), executed with no builtins in a namespace of
Triton's modules and the names the program recorded, then wrapped with ``triton.jit`` while the stored file
is in ``linecache``, where Triton reads the real body, its lines and columns. The kernel and the defs it
calls are held to the same allowlist first (a def it refuses is refused here, exit 5, before anything is
written). Every other fact is a Python literal (``repr`` of values checked here: identifiers, type names,
scalars). It builds the ``ASTSource`` as ``specialize.py`` does for ``-S`` (the signature, the constexprs
with the heuristics' values and the JIT's constant 1s, ``tt.divisibility`` for the arguments known to be
multiples of 16), under the module name and file name the kernel had, so its helpers' mangled names and the
PTX's ``.file`` lines come out the same.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import SessionError, UsageError
from ...types import Config, Stage, Variant
from ..files import module_name
from ..info import SM_ARCH, ReproFacts, reproducible
from .allowlist import UnsafeKernelSource
from .rebuild import BareDefs, bare_defs
from .replay import launch_key, why_not

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")
ARG_TYPE = re.compile(r"constexpr|\*?k?[a-z][a-z0-9]{0,15}")  # *fp32, *kfp16, i32, u1, fp8e4nv, constexpr
VERSION = re.compile(r"[0-9][0-9A-Za-z.+_-]{0,39}")
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,20}")
TRITON_MODULE = re.compile(r"triton(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,10}")
TRITON_OBJECT = re.compile(r"triton(?:\.[A-Za-z_]\w{0,99}){0,10}:[A-Za-z_]\w{0,99}(?:\.[A-Za-z_]\w{0,99}){0,5}")
FUNC = re.compile(r"^\.func\s+(?:\([^)]*\)\s*)?([\w$]+)", re.M)

TEMPLATE = '''\
#!/usr/bin/env python3
"""Rebuilds {title} with triton.compile, as irscope captured it.

Written by `irscope repro`; it needs Triton only (irscope captured it with {compiler}). None of the
stored source below runs as Python: each @triton.jit def is made from a bare signature (DEFS) and
Triton compiles its body from SOURCE, as irscope did. Prints the PTX, or writes it: python {{this file}}
-o FILE.ptx. On a GPU with torch, --launch also runs the kernel on
example inputs of the shapes the program launched it with (LAUNCH; random data) and says whether the
JIT compiled that launch to the same PTX.
"""

import argparse
import importlib
import linecache
import sys

import triton
import triton.language as tl
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
# The names the kernel's file binds, as Triton objects: name -> (kind, value)
GLOBALS = {globals}
# Each @triton.jit def of the file: the first line of its code, a bare signature, its annotations, @triton.jit's options
DEFS = {defs}
# The launch the program made of this variant: grid, and each argument's tensor layout or value (None: no record)
LAUNCH = {launch}
# The file as stored: Triton reads each def's body (and its lines) from here; none of it runs as Python
SOURCE = {source}


def _global(kind, value):
    if kind in ("value", "constexpr"):
        return tl.constexpr(value) if kind == "constexpr" else value
    if kind == "dtype":
        return tl.dtype(value)
    if kind == "module":
        return importlib.import_module(value)
    module, _, name = value.partition(":")  # "triton": one of Triton's own functions
    found = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found


def _annotation(kind, value):
    return tl.constexpr if kind == "constexpr" else tl.dtype(value) if kind == "dtype" else value


def kernel() -> JITFunction:
    """The kernel, at its own lines of its own file name (the PTX's .loc and .file) and module (helpers' names)."""
    linecache.cache[SOURCE_FILE] = (len(SOURCE), None, SOURCE.splitlines(True), SOURCE_FILE)
    namespace = {{"__name__": MODULE, "__builtins__": {{}}, "triton": triton, "tl": tl, "constexpr": tl.constexpr}}
    namespace.update({{name: _global(kind, value) for name, (kind, value) in GLOBALS.items()}})
    lines = [""] * max(line for line, _, _, _ in DEFS.values())
    for line, bare, _, _ in DEFS.values():
        lines[line - 1] = bare
    exec(compile("\\n".join(lines) + "\\n", SOURCE_FILE, "exec", dont_inherit=True), namespace)
    for name, (_, _, annotations, options) in DEFS.items():
        fn = namespace[name]
        fn.__annotations__ = {{arg: _annotation(*a) for arg, a in annotations.items()}}
        namespace[name] = triton.jit(fn, **options)
    return namespace[KERNEL]


def compile_ptx(fn: JITFunction) -> str:
    backend = make_backend(TARGET)
    options = backend.parse_options({{**OPTIONS, "debug": fn.debug or knobs.runtime.debug}})
    attrs = {{(fn.arg_names.index(name),): backend.parse_attr("D") for name in DIVISIBLE_BY_16}}
    source = ASTSource(fn, SIGNATURE, CONSTEXPRS, attrs)
    return triton.compile(source, target=TARGET, options=options.__dict__).asm["ptx"]


def launch(fn: JITFunction, ptx: str) -> int:
    """Run the kernel on this GPU with random inputs of the recorded layouts and the recorded grid."""
    import torch

    if not torch.cuda.is_available():
        print("no GPU here: the kernel is not launched", file=sys.stderr)
        return 0
    if LAUNCH is None:
        print("the session holds no launch of this variant (irscope run records one): not launched", file=sys.stderr)
        return 0
    torch.manual_seed(0)
    args = {{}}
    for name, value in LAUNCH["arguments"].items():
        if isinstance(value, dict):
            dtype = getattr(torch, value["tensor"])
            offset = 0 if value["aligned"] else 1  # one element in: not 16-byte aligned, as the program's was not
            size = offset + 1 + sum((n - 1) * s for n, s in zip(value["shape"], value["stride"]) if n)
            storage = torch.empty(size, dtype=dtype, device="cuda")
            storage.copy_(torch.randn(size) if dtype.is_floating_point else torch.zeros(size, dtype=dtype))
            args[name] = storage.as_strided(value["shape"], value["stride"], offset)
        else:
            args[name] = value
    options = {{k: v for k, v in OPTIONS.items() if k in ("num_warps", "num_stages", "num_ctas")}}
    constexprs = {{k: v for k, v in CONSTEXPRS.items() if fn.params[fn.arg_names.index(k)].is_constexpr and k not in args}}
    compiled = fn[tuple(LAUNCH["grid"])](**args, **constexprs, **options)
    torch.cuda.synchronize()
    major, minor = torch.cuda.get_device_capability()
    same = compiled.asm["ptx"] == ptx if TARGET.arch == major * 10 + minor else None
    said = "is the same" if same else "differs" if same is False else "is this GPU's, not the target's"
    print(f"launched {{KERNEL}} on grid {{tuple(LAUNCH['grid'])}}: it ran; the JIT's PTX for this launch {{said}}",
          file=sys.stderr)
    return 0 if same is not False else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", dest="out", help="write the PTX here instead of printing it")
    parser.add_argument("--launch", action="store_true", help="on a GPU: run it on inputs of the recorded shapes")
    args = parser.parse_args()
    if triton.__version__ != TRITON:
        print(f"warning: captured with triton {{TRITON}}, running triton {{triton.__version__}}", file=sys.stderr)
    fn = kernel()
    ptx = compile_ptx(fn)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(ptx)
    else:
        sys.stdout.write(ptx)
    if args.launch:
        sys.exit(launch(fn, ptx))


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


def triton_repro(variant: Variant, facts: ReproFacts | None = None) -> str:
    """The standalone file rebuilding ``variant`` (an NVIDIA variant that compiled, with its source stored);
    ``facts``: what its session holds besides (a run's constant 1s, closure and launch)."""
    facts = facts or ReproFacts()
    capability, source = reproducible(variant)
    info = variant.compile_info
    assert info is not None  # reproducible: it compiled
    kernel = _checked(IDENTIFIER, variant.kernel.name, "the kernel name")
    compiler, _, version = info.compiler.partition(" ")
    if compiler != "triton":
        raise UsageError(f"{kernel} was compiled by {info.compiler!r}, not Triton")
    file = variant.kernel.file
    try:
        bare = bare_defs(source, file, kernel, facts.closure)
    except UnsafeKernelSource as exc:
        raise SessionError(f"repro refuses {kernel}: {exc}") from None
    params = _parameters(source, kernel, file)
    recorded = {
        _checked(IDENTIFIER, name, "an argument name"): _checked(ARG_TYPE, kind, f"the type of {name}")
        for name, kind in info.signature.items()
    }
    given = {**variant.config.constexprs, **info.heuristics}
    signature, constexprs = {}, {}
    for index, name in enumerate(params):
        kind = recorded.get(name)
        if kind is not None and kind != "constexpr":
            signature[name] = kind
            continue
        signature[name] = "constexpr"
        if name in given:
            constexprs[name] = _scalar(given[name], f"the constexpr {name}")
            continue
        constant = _constant(facts.signature, index)
        if constant is MISSING:
            constant = _spec_constant(facts.kernel, variant, index)
        if constant is MISSING:
            raise UsageError(
                f"{kernel}: the JIT made the argument {name} a constant (an integer 1 or None) and the session does not "
                "record which (a run's and a -S signature's do): a repro cannot name it"
            )
        constexprs[name] = _scalar(constant, f"the constant {name}")
    divisible = tuple(n for n in info.divisible_by_16 if signature.get(n, "constexpr") != "constexpr")
    options = {_checked(IDENTIFIER, k, "an option"): _scalar(v, f"the option {k}") for k, v in info.options.items()}
    defs = _defs(bare)
    module = _module_in(variant.listings.get(Stage.PTX) or "", set(defs)) if facts.closure is not None else None
    return TEMPLATE.format(
        title=f"{kernel} {variant.config.label()} for {variant.arch}".replace('"', "'").replace("\\", "/"),
        compiler=f"triton {_checked(VERSION, version, 'the Triton version')}",
        source_file=repr(file),
        module=repr(module or module_name("irscope_kernel", Path(file))),
        kernel=repr(kernel),
        signature=repr(signature),
        constexprs=repr(constexprs),
        divisible=repr(divisible),
        options=repr(options),
        capability=capability,
        version=repr(version),
        globals=repr(_globals(bare.namespace)),
        defs=repr(defs),
        launch=repr(_launch((facts.launches or {}).get(launch_key(variant.config)), params, kernel)),
        source=repr(source),
    )


MISSING = object()
ALREADY = frozenset({"triton", "tl", "constexpr"})  # the repro's namespace has these


def _constant(signature: Sequence[Mapping[str, Any]] | None, index: int) -> Any:
    """The value a stored signature gives the ``index``-th parameter as a constant (the JIT's 1s), or MISSING."""
    if signature is None or index >= len(signature) or not isinstance(signature[index], Mapping):
        return MISSING
    entry = signature[index]
    if entry.get("hint") == 1:
        return 1
    if entry.get("type") is None and entry.get("value") is not None:
        return entry["value"]
    return MISSING


def _spec_constant(kernel: Any, variant: Variant, index: int) -> Any:
    """The constant the JIT makes of the ``index``-th argument from the kernel's spec (its example arguments), where
    KERNEL named the kernel itself (code, already imported), or MISSING."""
    if getattr(kernel, "spec", None) is None or not hasattr(kernel, "fn"):
        return MISSING
    from .specialize import specialize

    arch = SM_ARCH.fullmatch(variant.arch)
    source = specialize(kernel, variant.config, int(arch[1]) if arch else 90)[0]
    constants = getattr(source, "constants", {})
    return constants.get((index,), MISSING) if (index,) in constants else MISSING


def _parameters(source: str, kernel: str, file: str) -> list[str]:
    """The kernel def's positional parameters, read with ``ast``."""
    tree = ast.parse(source)  # bare_defs parsed it already
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    raise UsageError(f"{file}: {kernel} is not a top-level def of the stored source; repro does not rebuild it yet")


def _defs(bare: BareDefs) -> dict[str, tuple[int, str, dict[str, tuple[str, Any]], dict[str, Any]]]:
    """Each def as the repro's DEFS holds it: first line, bare signature, annotations and jit options as data."""
    import triton.language as tl

    out = {}
    for line, text in bare.lines.items():
        name = text[4 : text.index("(")]
        annotations: dict[str, tuple[str, Any]] = {}
        for arg, value in bare.annotations[name].items():
            if value is tl.constexpr:
                annotations[arg] = ("constexpr", None)
            elif isinstance(value, tl.dtype):
                annotations[arg] = ("dtype", _checked(IDENTIFIER, value.name, f"the dtype of {arg}"))
            else:
                annotations[arg] = ("type", _checked(ARG_TYPE, value, f"the annotation of {arg}"))
        out[name] = (line, text, annotations, dict(bare.options[name]))
    return out


def _globals(namespace: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    """The rebuilt module's names (Triton's modules and objects the file imports, the program's recorded
    constants) as data the repro turns back into the same objects."""
    from types import ModuleType

    import triton.language as tl

    out: dict[str, tuple[str, Any]] = {}
    for name, value in namespace.items():
        if name in ALREADY:
            continue
        _checked(IDENTIFIER, name, "a name the kernel reads")
        if isinstance(value, ModuleType):
            out[name] = ("module", _checked(TRITON_MODULE, value.__name__, f"the module {name}"))
        elif isinstance(value, tl.constexpr):
            out[name] = ("constexpr", _scalar(value.value, f"the constexpr {name}"))
        elif isinstance(value, tl.dtype):
            out[name] = ("dtype", _checked(IDENTIFIER, value.name, f"the dtype {name}"))
        elif value is None or isinstance(value, (bool, int, float, str)):
            out[name] = ("value", _scalar(value, f"the value of {name}"))
        else:
            fn = getattr(value, "fn", value)  # a JIT function of Triton's: its Python function
            where = f"{getattr(fn, '__module__', '')}:{getattr(fn, '__qualname__', '')}"
            if not TRITON_OBJECT.fullmatch(where):
                raise UsageError(f"{name}, which the kernel reads, is {where}: repro does not carry it yet")
            out[name] = ("triton", where)
    return out


def _module_in(ptx: str, defs: set[str]) -> str | None:
    """The module the program defined the kernel in, read back from a helper's PTX name (``__main___$_halve__fp32__``:
    Triton mangles ``module.helper`` with ``_$_``); None where the PTX names none of the file's helpers."""
    for name in FUNC.findall(ptx):
        for helper in defs:
            marker = f"_$_{helper}__"
            if marker in name:
                module = name[: name.index(marker)].replace("_$_", ".")
                if MODULE.fullmatch(module):
                    return module
    return None


def _launch(launch: Mapping[str, Any] | None, params: list[str], kernel: str) -> dict[str, Any] | None:
    """The recorded launch as checked literals: the grid, each tensor's dtype, shape and strides, each scalar."""
    if launch is None or why_not(launch, Config()) is not None:
        return None
    arguments: dict[str, Any] = {}
    for name, value in launch["arguments"].items():
        if name not in params:
            raise SessionError(f"the recorded launch of {kernel} names {str(name)[:60]!r}, no parameter of it")
        if isinstance(value, Mapping):
            dtype = str(value["tensor"]).removeprefix("torch.")
            arguments[name] = {"tensor": dtype, "shape": list(value["shape"]), "stride": list(value["stride"]),
                               "aligned": value.get("aligned") is not False}  # fmt: skip
        else:
            arguments[name] = _scalar(value, f"the recorded argument {name}")
    return {"grid": [int(g) for g in launch["grid"]], "arguments": arguments}
