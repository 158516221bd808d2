"""``irscope repro`` for Triton: one standalone Python file that rebuilds a stored variant with ``triton.compile``.

The file needs Triton only. It holds the variant's facts as Python literals (``repr`` of values checked
here: identifiers, type names, scalars) and the kernel's stored source as a string it compiles and runs:
the one piece of the session that becomes code, which is what a reproducer is for. It builds the
``ASTSource`` as ``specialize.py`` does for ``-S`` (the signature, the constexprs with the heuristics'
values, ``tt.divisibility`` for the arguments known to be multiples of 16), under the module name and
file name the kernel had, so its helpers' mangled names and the PTX's ``.file`` lines come out the same.
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
from ..info import ReproFacts
from .replay import launch_key, why_not

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")
ARG_TYPE = re.compile(r"constexpr|\*?k?[a-z][a-z0-9]{0,15}")  # *fp32, *kfp16, i32, u1, fp8e4nv, constexpr
VERSION = re.compile(r"[0-9][0-9A-Za-z.+_-]{0,39}")
SM = re.compile(r"sm_(\d{2,3})[af]?")
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,20}")
TRITON_MODULE = re.compile(r"triton(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,10}")
TRITON_OBJECT = re.compile(r"triton(?:\.[A-Za-z_]\w{0,99}){0,10}:[A-Za-z_]\w{0,99}(?:\.[A-Za-z_]\w{0,99}){0,5}")
FUNC = re.compile(r"^\.func\s+(?:\([^)]*\)\s*)?([\w$]+)", re.M)

TEMPLATE = '''\
#!/usr/bin/env python3
"""Rebuilds {title} with triton.compile, as irscope captured it.

Written by `irscope repro`; it needs Triton only (irscope captured it with {compiler}). It runs the
kernel's @triton.jit defs from the source below (the file's other lines are left out, its other
decorators made no-ops): read them before running this, as you would that file. Prints the PTX, or
writes it: python {{this file}} -o FILE.ptx. On a GPU with torch, --launch also runs the kernel on
example inputs of the shapes the program launched it with (LAUNCH; random data) and says whether the
JIT compiled that launch to the same PTX.
"""

import argparse
import importlib
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
# What the kernel read beyond its file's defs, as the program had it: name -> (kind, value)
GLOBALS = {globals}
# The launch the program made of this variant: grid, and each argument's tensor layout or value (None: no record)
LAUNCH = {launch}
# The file as stored: Triton reads a kernel's text (and its lines) from here
SOURCE = {source}
# What runs: SOURCE's triton imports, literal constants and @triton.jit defs on their own lines, the rest blank
RUNS = {runs}


def _global(kind, value):
    if kind in ("value", "constexpr"):
        return triton.language.constexpr(value) if kind == "constexpr" else value
    if kind == "dtype":
        return getattr(triton.language, value)
    if kind == "module":
        return importlib.import_module(value)
    module, _, name = value.partition(":")  # "triton": one of Triton's own functions
    found = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found


def kernel() -> JITFunction:
    """The kernel, defined at its own lines of its own file name (the PTX's .loc and .file) and module (helpers'
    names); Triton reads its text from linecache, where the stored file is."""
    linecache.cache[SOURCE_FILE] = (len(SOURCE), None, SOURCE.splitlines(True), SOURCE_FILE)
    module = type(sys)(MODULE)
    module.__file__ = SOURCE_FILE
    module.__dict__.update({{name: _global(kind, value) for name, (kind, value) in GLOBALS.items()}})
    exec(compile(RUNS, SOURCE_FILE, "exec"), module.__dict__)
    sys.modules.setdefault(MODULE, module)
    fn = module.__dict__[KERNEL]
    while not isinstance(fn, JITFunction):  # a decorator kept as written wraps it
        fn = fn.fn
    return fn


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
            size = 1 + sum((n - 1) * s for n, s in zip(value["shape"], value["stride"]) if n)
            storage = torch.empty(size, dtype=dtype, device="cuda")
            storage.copy_(torch.randn(size) if dtype.is_floating_point else torch.zeros(size, dtype=dtype))
            args[name] = storage.as_strided(value["shape"], value["stride"])
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
    compiler, _, version = info.compiler.partition(" ")
    if compiler != "triton":
        raise UsageError(f"{kernel} was compiled by {info.compiler!r}, not Triton")
    runs, defs, params = runnable_text(source, kernel, variant.kernel.file)
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
            raise UsageError(f"{kernel}: the constant {name} is not recorded with the variant; a repro cannot name it")
        constexprs[name] = _scalar(constant, f"the constant {name}")
    divisible = tuple(n for n in info.divisible_by_16 if signature.get(n, "constexpr") != "constexpr")
    options = {_checked(IDENTIFIER, k, "an option"): _scalar(v, f"the option {k}") for k, v in info.options.items()}
    ptx = variant.listings.get(Stage.PTX) or ""
    module = _module_in(ptx, defs) if facts.scopes is not None else None
    return TEMPLATE.format(
        title=f"{kernel} {variant.config.label()} for {variant.arch}".replace('"', "'").replace("\\", "/"),
        compiler=f"triton {_checked(VERSION, version, 'the Triton version')}",
        source_file=repr(variant.kernel.file),
        module=repr(module or module_name("irscope_kernel", Path(variant.kernel.file))),
        kernel=repr(kernel),
        signature=repr(signature),
        constexprs=repr(constexprs),
        divisible=repr(divisible),
        options=repr(options),
        capability=int(arch[1]),
        version=repr(version),
        globals=repr(_globals(facts.scopes, variant.kernel.file, defs)),
        launch=repr(_launch((facts.launches or {}).get(launch_key(variant.config)), params, kernel)),
        source=repr(source),
        runs=repr(runs),
    )


MISSING = object()


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


def runnable_text(source: str, kernel: str, file: str) -> tuple[str, set[str], list[str]]:
    """What the repro runs of ``source``: its ``triton`` imports, constants given as literals and ``@triton.jit``
    defs, each on its own lines (the rest blank, so every line keeps its number); a def's other decorators become
    ``@(lambda f: f)`` (a ``@triton.heuristics``' values are the variant's). Also the jit defs' names and the
    kernel's parameters. Read with ``ast``: nothing of the text runs here."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise SessionError(f"{file}: the stored source does not parse ({exc})") from None
    lines = source.splitlines()
    keep = [""] * len(lines)
    defs: set[str] = set()
    params: list[str] | None = None
    for node in tree.body:
        first, last = getattr(node, "lineno", 1) - 1, (getattr(node, "end_lineno", None) or 1) - 1
        if isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list):
            defs.add(node.name)
            keep[node.lineno - 1 : last + 1] = lines[node.lineno - 1 : last + 1]
            for decorator in node.decorator_list:
                at = decorator.lineno - 1
                span = (decorator.end_lineno or decorator.lineno) - 1
                if _is_jit(decorator):
                    keep[at : span + 1] = lines[at : span + 1]
                else:
                    keep[at : span + 1] = ["@(lambda f: f)"] + [""] * (span - at)
            if node.name == kernel:
                params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and _triton_import(node):
            keep[first : last + 1] = lines[first : last + 1]
        elif _literal_constant(node):
            keep[first : last + 1] = lines[first : last + 1]
    if params is None:
        raise UsageError(f"{file}: no top-level @triton.jit def {kernel} in the stored source")
    return "\n".join(keep) + "\n", defs, params


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _is_jit(decorator: ast.expr) -> bool:
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    return _dotted(called) in ("triton.jit", "jit", "triton.runtime.jit.jit")


def _triton_import(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] == "triton"
    return all(alias.name.split(".")[0] == "triton" for alias in node.names)


def _literal_constant(node: ast.stmt) -> bool:
    """``NAME = <literal>`` or ``NAME = tl.constexpr(<literal>)`` (annotated too): a module constant a kernel reads."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return False
    if not all(isinstance(t, ast.Name) for t in targets):
        return False
    if isinstance(node, ast.AnnAssign) and _dotted(node.annotation) not in (
        "tl.constexpr",
        "triton.language.constexpr",
    ):
        return False
    if isinstance(value, ast.Call) and _dotted(value.func) in ("tl.constexpr", "triton.language.constexpr"):
        if value.keywords or len(value.args) != 1:
            return False
        value = value.args[0]
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


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


def _globals(scopes: Mapping[str, Any] | None, file: str, defs: set[str]) -> dict[str, tuple[str, Any]]:
    """What the kernel's file's names were bound to as the program ran (closure.py's record), as checked literals."""
    if not isinstance(scopes, Mapping):
        return {}
    scope = scopes.get(file)
    if not isinstance(scope, Mapping):
        return {}
    out: dict[str, tuple[str, Any]] = {}
    for name, binding in scope.items():
        _checked(IDENTIFIER, name, "a name the kernel reads")
        if not isinstance(binding, Mapping) or len(binding) != 1:
            raise SessionError(f"the recorded binding of {name} is not one closure.py writes")
        ((kind, value),) = binding.items()
        if kind in ("value", "constexpr"):
            out[name] = (kind, _scalar(value, f"the recorded value of {name}"))
        elif kind == "dtype":
            out[name] = (kind, _checked(IDENTIFIER, value, f"the dtype of {name}"))
        elif kind == "module":
            out[name] = (kind, _checked(TRITON_MODULE, value, f"the module {name}"))
        elif kind == "triton":
            out[name] = (kind, _checked(TRITON_OBJECT, value, f"the Triton function {name}"))
        elif kind == "jit" and isinstance(value, Mapping) and value.get("file") == file and value.get("name") in defs:
            continue  # a def of the same file: in the text the repro runs
        else:
            raise UsageError(f"{name}, which the kernel reads, is {kind} of another file: repro does not carry it yet")
    return out


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
            arguments[name] = {"tensor": dtype, "shape": list(value["shape"]), "stride": list(value["stride"])}
        else:
            arguments[name] = _scalar(value, f"the recorded argument {name}")
    return {"grid": [int(g) for g in launch["grid"]], "arguments": arguments}
