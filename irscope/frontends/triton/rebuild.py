"""Triton kernels rebuilt from source text, without running any of the text.

A kernel's text often comes from data irscope reads (an Inductor log, a stored
session), and importing it would run whatever the text holds: module-level code,
decorators, default arguments, annotations. Even a kernel's body runs Python at
compile time: Triton's code generator calls whatever callable the body reaches
through a module global (``tl.core.builtins.exec(...)`` resolves, and is called).

So a kernel is rebuilt, never imported. The text is parsed with ``ast``; only
top-level ``@triton.jit`` defs are kept. Each is executed as a bare signature
(no decorators, annotations or non-literal defaults, a body of ``pass``) in a
namespace holding Triton's modules and nothing else, so executing it evaluates
nothing from the text; ``triton.jit`` then wraps it. Triton reads a kernel's
source through ``linecache``, where the original text is put while the
functions are wrapped, so Triton compiles the real body with its real file,
lines and columns: the IR and its ``loc(...)``s are those an import would give.

Before anything is compiled, each def Triton will read is checked against an
allowlist (``allowlist.Check``): names must be parameters, locals, Triton's modules, the
text's own kernels or Triton's builtins; a chain of attributes from a module is
resolved statically and must end at a Triton builtin, JIT function, dtype or
value class; any other attribute must be one Triton values have. Anything else
is refused with ``UnsafeKernelSource``, one line naming file:line and what.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import importlib
import inspect
import io
import linecache
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ...errors import KernelFileError, KernelNotFound
from .allowlist import Check, UnsafeKernelSource, allowed_object, dotted, static, triton_module
from .kernel import TritonKernel
from .kernel_files import module_name_for
from .signature import SignatureArg, is_type

# triton and torch are imported inside the functions that use them: about a second each, which commands that
# never compile or launch should not pay.

__all__ = ["UnsafeKernelSource", "rebuild_functions", "rebuilt_kernel"]


JIT_SPELLINGS = frozenset({"triton.jit", "jit"})
CONSTEXPR_SPELLINGS = frozenset({"tl.constexpr", "triton.language.constexpr", "constexpr"})
# `@triton.jit(...)` arguments that change the compile: honoured when they are literals, else left out.
JIT_OPTIONS = {
    "do_not_specialize": (list, tuple),
    "do_not_specialize_on_alignment": (list, tuple),
    "debug": bool,
    "noinline": bool,
}
_LINECACHE = threading.Lock()


@dataclass(frozen=True)
class _Rebuilt:
    functions: dict[str, Any]  # name -> JITFunction
    refusals: dict[str, str | None]  # name -> why its def was refused (None: it was not)
    calls: dict[str, frozenset[str]]  # name -> the text's other kernels it names
    heuristics: dict[str, int]  # name -> the line of its @triton.heuristics, where it has one


def rebuild_functions(text: str, filename: str, *, inductor: bool = False) -> dict[str, Any]:
    """Every ``@triton.jit`` function of ``text`` as a JITFunction; refuses the text if any def is refused.

    ``filename`` is where Triton's locations (and so the IR's) say the source is;
    ``inductor`` adds the modules Inductor's kernels use (``triton_helpers``,
    ``libdevice``, ``tl_math``).
    """
    rebuilt = _rebuild(text, filename, inductor)
    for refusal in rebuilt.refusals.values():
        if refusal is not None:
            raise UnsafeKernelSource(refusal)
    return dict(rebuilt.functions)


def rebuilt_kernel(
    text: str,
    filename: str,
    name: str,
    signature: tuple[SignatureArg, ...],
    *,
    inductor: bool = False,
    recorded_heuristics: bool = False,
) -> TritonKernel:
    """The kernel ``name`` of ``text``, compiled from ``signature``; refused if it or a kernel it calls is.

    ``recorded_heuristics``: the values its ``@triton.heuristics`` set are in the configs
    (a running program evaluated them: ``irscope run``), so they need not run here.
    """
    rebuilt = _rebuild(text, filename, inductor)
    if name not in rebuilt.functions:
        raise KernelNotFound(
            f"no @triton.jit kernel named {name!r} in {filename}; found: {', '.join(rebuilt.functions) or 'none'}"
        )
    if name in rebuilt.heuristics and not recorded_heuristics:
        # An autotuner's configs are data (a session keeps them in its parameter table);
        # heuristics are Python, which irscope does not run from text it was handed.
        raise KernelFileError(
            f"{filename}:{rebuilt.heuristics[name]}: {name}'s @triton.heuristics are Python "
            "code, which irscope does not run from a stored source"
        )
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            if rebuilt.refusals[current] is not None:
                raise UnsafeKernelSource(rebuilt.refusals[current])
            todo.extend(rebuilt.calls[current])
    for param, arg in zip(rebuilt.functions[name].params, signature):
        # Triton parses each type with a function that can eval part of it: only plain types pass.
        if arg.type is not None and not (isinstance(arg.type, str) and is_type(arg.type)):
            raise UnsafeKernelSource(
                f"{filename}: refused: signature type {arg.type!r} for {param.name} "
                "is not a Triton scalar or pointer type"
            )
    kernel = TritonKernel(
        rebuilt.functions[name], filename, None, tuple(signature), source_text=text, inductor=inductor
    )
    kernel.recorded_heuristics = recorded_heuristics and name in rebuilt.heuristics
    return kernel


@functools.lru_cache(maxsize=32)
def _rebuild(text: str, filename: str, inductor: bool) -> _Rebuilt:
    import triton

    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError) as exc:
        where = f"{filename}:{getattr(exc, 'lineno', None) or '?'}"
        raise KernelFileError(f"{where}: kernel source does not parse: {getattr(exc, 'msg', None) or exc}") from None
    defs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and _jit_decorator(node)}
    namespace = _namespace(module_name_for(filename), inductor)
    namespace.update(_triton_imports(tree))
    for name, node in defs.items():
        if name in namespace:
            raise UnsafeKernelSource(
                f"{filename}:{node.lineno}: refused: a @triton.jit def named {name!r} "
                "would hide the module or name Triton's kernels use"
            )
    module = ast.Module(body=[_bare(node) for node in defs.values()], type_ignores=[])
    try:
        code = compile(module, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise KernelFileError(
            f"{filename}:{getattr(exc, 'lineno', '?')}: kernel source does not compile: {exc}"
        ) from None
    functions: dict[str, Any] = {}
    with _source_in_linecache(text, filename):
        exec(code, namespace)
        for name, node in defs.items():
            fn = namespace[name]
            fn.__annotations__ = _annotations(node, namespace)
            try:
                functions[name] = triton.jit(fn, **_jit_options(_jit_decorator(node)))
            except Exception as exc:
                raise KernelFileError(
                    f"{filename}:{node.lineno}: Triton cannot read {name}: {type(exc).__name__}: {exc}"
                ) from None
            namespace[name] = functions[name]
    refusals: dict[str, str | None] = {}
    calls: dict[str, frozenset[str]] = {}
    for name, node in defs.items():
        check = Check(filename, namespace, set(functions))
        try:
            _same_as_triton_reads(node, functions[name], filename)
            check.function(node)
            refusals[name] = None
        except UnsafeKernelSource as exc:
            refusals[name] = str(exc)
        calls[name] = frozenset(check.calls)
    return _Rebuilt(
        functions,
        refusals,
        calls,
        {name: line for name, node in defs.items() if (line := _heuristics_line(node)) is not None},
    )


def _namespace(module_name: str, inductor: bool) -> dict[str, Any]:
    """The rebuilt module's globals: Triton's modules, as Inductor's header imports them, and no builtins."""
    import triton
    import triton.language as tl

    namespace = {"__name__": module_name, "__builtins__": {}, "triton": triton, "tl": tl, "constexpr": tl.constexpr}
    if inductor:
        from torch._inductor.runtime import triton_helpers
        from torch._inductor.runtime.triton_helpers import libdevice
        from torch._inductor.runtime.triton_helpers import math as tl_math

        namespace.update(triton_helpers=triton_helpers, libdevice=libdevice, tl_math=tl_math)
    return namespace


def _triton_imports(tree: ast.Module) -> dict[str, Any]:
    """What the text's own top-level imports bind, where they name Triton's modules or objects.

    ``from triton.language.extra import libdevice`` in a kernel file binds the
    same module here; the import statement itself is never run, and imports of
    anything outside ``triton.language`` are left out (names they bind are unknown).
    """

    def module(name: str) -> ModuleType | None:
        if not triton_module(name):
            return None
        try:
            return importlib.import_module(name)  # one of Triton's own modules, installed code
        except Exception:
            return None

    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:  # `import triton.language.extra.libdevice` binds only `triton`
                if (found := module(alias.name)) is not None and alias.asname:
                    out[alias.asname] = found
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parent = module(node.module)
            for alias in node.names:
                value = module(f"{node.module}.{alias.name}")
                if value is None and parent is not None:
                    value = inspect.getattr_static(parent, alias.name, None)
                if (
                    isinstance(value, ModuleType)
                    and triton_module(value.__name__)
                    or not isinstance(value, (ModuleType, type(None)))
                    and allowed_object(value)
                ):
                    out[alias.asname or alias.name] = value
    return {name: value for name, value in out.items() if not name.startswith("__")}


@contextlib.contextmanager
def _source_in_linecache(text: str, filename: str):
    """``text`` as ``filename``'s lines while Triton reads its functions' source (``inspect.getsourcelines``).

    mtime None: ``checkcache`` leaves the entry alone even where a file of that
    name exists. The previous entry comes back afterwards, so that a file of the
    same name imported later is read from disk, not from this text.
    """
    lines = io.StringIO(text, newline=None).readlines()  # the newlines Python's own reader sees
    with _LINECACHE:
        previous = linecache.cache.get(filename)
        linecache.cache[filename] = (len(text), None, lines, filename)
        try:
            yield
        finally:
            if previous is None:
                linecache.cache.pop(filename, None)
            else:
                linecache.cache[filename] = previous


# ---------------------------------------------------------------- the bare defs


def _heuristics_line(node: ast.FunctionDef) -> int | None:
    for decorator in node.decorator_list:
        spelled = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
        if spelled.split(".")[-1] == "heuristics":
            return decorator.lineno
    return None


def _jit_decorator(node: ast.FunctionDef) -> ast.expr | None:
    for decorator in node.decorator_list:
        if dotted(decorator.func if isinstance(decorator, ast.Call) else decorator) in JIT_SPELLINGS:
            return decorator
    return None


def _jit_options(decorator: ast.expr | None) -> dict[str, Any]:
    if not isinstance(decorator, ast.Call):
        return {}
    options: dict[str, Any] = {}
    for keyword in decorator.keywords:
        kind: Any = JIT_OPTIONS.get(keyword.arg) if keyword.arg is not None else None
        if kind is None:
            continue
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            continue
        if isinstance(value, kind) and (kind is bool or all(type(v) in (int, str) for v in value)):
            options[str(keyword.arg)] = value
    return options


def _literal(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _bare(node: ast.FunctionDef) -> ast.FunctionDef:
    """``node`` as a def whose execution evaluates nothing, its code starting on the line Python would give it."""

    def bare_arg(arg: ast.arg) -> ast.arg:
        return ast.copy_location(ast.arg(arg=arg.arg), arg)

    args = node.args
    literal_tail: list[ast.expr] = []  # defaults line up with the last parameters: keep the literal ones at the end
    for default in reversed(args.defaults):
        if not _literal(default):
            break
        literal_tail.insert(0, copy.deepcopy(default))
    bare = copy.copy(node)
    bare.args = ast.arguments(
        posonlyargs=[bare_arg(a) for a in args.posonlyargs],
        args=[bare_arg(a) for a in args.args],
        vararg=bare_arg(args.vararg) if args.vararg is not None else None,
        kwonlyargs=[bare_arg(a) for a in args.kwonlyargs],
        kw_defaults=[copy.deepcopy(d) if _literal(d) else None for d in args.kw_defaults],
        kwarg=bare_arg(args.kwarg) if args.kwarg is not None else None,
        defaults=literal_tail,
    )
    bare.body = [ast.copy_location(ast.Pass(), node.body[0])]
    bare.decorator_list, bare.returns = [], None
    # A decorated def's code starts at its first decorator: so inspect (and Triton) read it from there.
    bare.lineno = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    return bare


def _annotations(node: ast.FunctionDef, namespace: dict[str, Any]) -> dict[str, Any]:
    """What Triton needs of the annotations, decided from the tree: constexprs, dtypes and type strings."""
    import triton.language as tl

    out: dict[str, Any] = {}
    args = node.args
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        annotation = arg.annotation
        if annotation is None:
            continue
        if dotted(annotation) in CONSTEXPR_SPELLINGS:
            out[arg.arg] = tl.constexpr
        elif isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            out[arg.arg] = annotation.value
        elif isinstance(value := static(annotation, namespace), tl.dtype):
            out[arg.arg] = value
    return out


def _same_as_triton_reads(node: ast.FunctionDef, fn: Any, filename: str) -> None:
    """Triton compiles the source it finds from the def's line on: it must be the def that was checked."""
    try:
        seen = ast.parse(fn.src).body
    except (SyntaxError, ValueError, RecursionError):
        seen = []
    expected = copy.copy(node)
    expected.decorator_list = []
    if len(seen) != 1 or ast.dump(seen[0]) != ast.dump(expected):
        raise UnsafeKernelSource(
            f"{filename}:{node.lineno}: refused: Triton would read another source for {node.name} than the def there"
        )
