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
import json
import linecache
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ...errors import KernelFileError, KernelNotFound
from .allowlist import (
    GLUON_JIT_SPELLINGS,
    MISSING,
    Check,
    UnsafeKernelSource,
    allowed_object,
    dotted,
    mark_rebuilt,
    static,
    triton_module,
)
from .kernel import TritonKernel
from .kernel_files import module_name_for
from .signature import SignatureArg, is_type

# triton and torch are imported inside the functions that use them: about a second each, which commands that
# never compile or launch should not pay.

__all__ = ["BareDefs", "UnsafeKernelSource", "bare_defs", "rebuild_functions", "rebuilt_def", "rebuilt_kernel"]


JIT_SPELLINGS = frozenset({"triton.jit", "jit", *GLUON_JIT_SPELLINGS})
CONSTEXPR_SPELLINGS = frozenset({"tl.constexpr", "triton.language.constexpr", "constexpr", "gl.constexpr"})
# `@triton.jit(...)` arguments that change the compile: honoured when they are literals, else left out.
JIT_OPTIONS = {
    "do_not_specialize": (list, tuple),
    "do_not_specialize_on_alignment": (list, tuple),
    "debug": bool,
    "noinline": bool,
}
_LINECACHE = threading.Lock()


def _jit(decorator: ast.expr | None) -> Any:
    """What wraps a rebuilt def: Gluon's ``jit`` for a ``@gluon.jit`` def (Triton compiles it from a
    ``GluonASTSource``), Triton's otherwise."""
    spelled = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator) if decorator else None
    if spelled in GLUON_JIT_SPELLINGS:
        from triton.experimental import gluon

        return gluon.jit
    import triton

    return triton.jit


@dataclass(frozen=True)
class _Rebuilt:
    functions: dict[str, Any]  # name -> JITFunction
    refusals: dict[str, str | None]  # name -> why its def was refused (None: it was not)
    calls: dict[str, frozenset[str]]  # name -> the text's other kernels it names
    heuristics: dict[str, int]  # name -> the line of its @triton.heuristics, where it has one
    by_line: dict[int, Any]  # the def's first line -> JITFunction (a helper recorded by its line)
    namespace: dict[str, Any]  # the rebuilt module's globals


def rebuild_functions(
    text: str, filename: str, *, inductor: bool = False, closure: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Every ``@triton.jit`` function of ``text`` as a JITFunction; refuses the text if any def is refused.

    ``filename`` is where Triton's locations (and so the IR's) say the source is;
    ``inductor`` adds the modules Inductor's kernels use (``triton_helpers``,
    ``libdevice``, ``tl_math``); ``closure`` is what a running program's kernels read beyond
    their file (closure.py: ``{"texts": {file: text}, "scopes": {file: {name: binding}}}``).
    """
    rebuilt = _rebuilt_file(text, filename, inductor, closure)
    for refusal in rebuilt.refusals.values():
        if refusal is not None:
            raise UnsafeKernelSource(refusal)
    return dict(rebuilt.functions)


def rebuilt_def(
    text: str, filename: str, name: str, *, inductor: bool = False, closure: Mapping[str, Any] | None = None
) -> Any:
    """The JITFunction ``name`` of ``text`` (None: no such def), not yet held to the allowlist: for its parameters.

    ``rebuilt_kernel`` checks the def and what it calls before anything compiles; the file's other
    defs (a library file holds many kernels, of which the program recorded one's closure) are left alone.
    """
    return _rebuilt_file(text, filename, inductor, closure).functions.get(name)


def rebuilt_kernel(
    text: str,
    filename: str,
    name: str,
    signature: tuple[SignatureArg, ...],
    *,
    inductor: bool = False,
    recorded_heuristics: bool = False,
    closure: Mapping[str, Any] | None = None,
    kind: type[TritonKernel] = TritonKernel,
) -> TritonKernel:
    """The kernel ``name`` of ``text``, compiled from ``signature``; refused if it or a kernel it calls is.

    ``kind``: the kernel class (GluonKernel for a ``@gluon.jit`` def: its frontend passes it).

    ``recorded_heuristics``: the values its ``@triton.heuristics`` set are in the configs
    (a running program evaluated them: ``irscope run``), so they need not run here.
    ``closure``: what the kernel reads beyond its file, as a program recorded it (closure.py).
    """
    rebuilt = _rebuilt_file(text, filename, inductor, closure)
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
    _refuse_unsafe(rebuilt, name)
    for param, arg in zip(rebuilt.functions[name].params, signature):
        # Triton parses each type with a function that can eval part of it: only plain types pass.
        if arg.type is not None and not (isinstance(arg.type, str) and is_type(arg.type)):
            raise UnsafeKernelSource(
                f"{filename}: refused: signature type {arg.type!r} for {param.name} "
                "is not a Triton scalar, pointer or tensor descriptor type"
            )
    if rebuilt.functions[name].is_gluon() != (kind.frontend == "gluon"):
        raise KernelNotFound(f"{name} of {filename} is not a {kind.frontend} kernel")
    kernel = kind(rebuilt.functions[name], filename, None, tuple(signature), source_text=text, inductor=inductor)
    kernel.recorded_heuristics = recorded_heuristics and name in rebuilt.heuristics
    if closure:
        kernel.closure = dict(closure)
    return kernel


def _refuse_unsafe(rebuilt: _Rebuilt, name: str) -> None:
    """UnsafeKernelSource where ``name`` or a kernel it calls (of the same text) was refused by the allowlist."""
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            if rebuilt.refusals[current] is not None:
                raise UnsafeKernelSource(rebuilt.refusals[current])
            todo.extend(rebuilt.calls[current])


@dataclass(frozen=True)
class BareDefs:
    """What ``irscope repro`` writes to rebuild a kernel as this module does (repro.py): each def the kernel may
    reach as a bare signature on its first line, its annotations and ``@triton.jit`` options as data, and the
    module's names (Triton's modules and objects, recorded constants)."""

    lines: dict[int, str]  # the def's first line -> ``def name(params): pass`` (literal defaults only)
    annotations: dict[str, dict[str, Any]]  # def -> parameter -> tl.constexpr, a type string or a tl.dtype
    options: dict[str, dict[str, Any]]  # def -> @triton.jit's literal options (noinline, do_not_specialize, ...)
    namespace: dict[str, Any]  # the module's other names as rebuilt: Triton's modules and objects, constants


def bare_defs(text: str, filename: str, name: str, closure: Mapping[str, Any] | None = None) -> BareDefs:
    """The kernel ``name`` of ``text`` and every def of the text, as ``rebuilt_kernel`` builds them; refused
    (UnsafeKernelSource) as it refuses them: the allowlist holds for each def the kernel reaches."""
    rebuilt = _rebuilt_file(text, filename, False, closure)
    if name not in rebuilt.functions:
        raise KernelNotFound(
            f"no @triton.jit kernel named {name!r} in {filename}; found: {', '.join(rebuilt.functions) or 'none'}"
        )
    _refuse_unsafe(rebuilt, name)
    defs = _jit_defs(ast.parse(text, filename), {})
    return BareDefs(
        {_first_line(node): f"def {n}({ast.unparse(_bare(node).args)}): pass" for n, node in defs.items()},
        {n: _annotations(node, rebuilt.namespace) for n, node in defs.items()},
        {n: _jit_options(_jit_decorator(node)) for n, node in defs.items()},
        {k: v for k, v in rebuilt.namespace.items() if k not in rebuilt.functions and not k.startswith("__")},
    )


def _rebuilt_file(text: str, filename: str, inductor: bool, closure: Mapping[str, Any] | None) -> _Rebuilt:
    if not closure:
        return _rebuild(text, filename, inductor)
    return _rebuild_closure(json.dumps(dict(closure), sort_keys=True), filename, text, inductor)[filename]


@functools.lru_cache(maxsize=32)
def _rebuild(text: str, filename: str, inductor: bool) -> _Rebuilt:
    return _rebuild_file(text, filename, inductor, {}, {}, {})


@functools.lru_cache(maxsize=16)
def _rebuild_closure(closure_json: str, filename: str, text: str, inductor: bool) -> dict[str, _Rebuilt]:
    """The kernel's file and every file its closure reaches, each rebuilt with the names the program recorded.

    A helper's file is rebuilt before the files that read it; every def that a read name reaches
    is held to the allowlist, and a refused one refuses the kernel (it is read, or it would not be
    recorded). Nothing is imported but Triton's own modules.
    """
    closure = closure_data(json.loads(closure_json), filename, text)
    done: dict[str, _Rebuilt] = {}
    visiting: list[str] = []
    wanted: dict[str, dict[str, int]] = {}  # file -> the defs the program used there, by name: their lines
    for scope in closure.scopes.values():
        for binding in scope.values():
            for jit in _jits(binding):
                wanted.setdefault(jit["file"], {})[jit["name"]] = jit["line"]

    def build(file: str) -> _Rebuilt:
        if file in done:
            return done[file]
        if file in visiting:
            raise UnsafeKernelSource(f"{file}: refused: its helpers and {visiting[-1]}'s import each other")
        visiting.append(file)
        scope = closure.scopes.get(file, {})
        bindings: dict[str, Any] = {}
        explain: dict[str, str] = {}
        lines = wanted.get(file, {})
        for name, binding in scope.items():
            if "jit" in binding and binding["jit"]["file"] == file:
                if name != binding["jit"]["name"]:
                    explain[name] = f"the program's {name} is this file's {binding['jit']['name']}"
                continue
            value = _resolved(name, binding, build, explain)
            if value is not MISSING:
                bindings[name] = value
        rebuilt = _rebuild_file(closure.texts[file], file, inductor, bindings, lines, explain)
        for name, binding in scope.items():  # a local def under another name (`exp = _exp`)
            jit = binding.get("jit")
            if jit and jit["file"] == file and name != jit["name"] and jit["name"] in rebuilt.functions:
                rebuilt.namespace[name] = rebuilt.functions[jit["name"]]
        visiting.pop()
        done[file] = rebuilt
        return rebuilt

    build(filename)
    return done


def _jits(binding: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``@triton.jit`` defs a binding names (a namespace's too)."""
    if "jit" in binding:
        return [binding["jit"]]
    return [j for inner in (binding.get("namespace") or {}).values() for j in _jits(inner)]


def _resolved(name: str, binding: Mapping[str, Any], build: Any, explain: dict[str, str]) -> Any:
    """What a recorded name is, made here from data: a value, one of Triton's own objects, or a rebuilt helper."""
    import triton.language as tl

    kind, value = next(iter(binding.items()))
    if kind == "constexpr":
        return tl.constexpr(value)
    if kind == "value":
        return value
    if kind == "dtype":
        return _dtype(value)
    if kind == "module":
        return _triton_module_named(value)
    if kind == "triton":
        return _triton_object(value)
    if kind == "jit":
        helper = build(value["file"])
        fn = helper.by_line.get(value["line"])
        if fn is None or fn.fn.__name__ != value["name"]:
            raise UnsafeKernelSource(
                f"{value['file']}:{value['line']}: refused: the program's {name} is no @triton.jit def there"
            )
        refusal = helper.refusals.get(value["name"])
        if refusal is not None:
            raise UnsafeKernelSource(refusal)
        return fn
    if kind == "namespace":
        module = ModuleType(f"irscope_recorded_namespace_{name}")
        for attribute, inner in value.items():
            resolved = _resolved(f"{name}.{attribute}", inner, build, explain)
            if resolved is not MISSING:
                setattr(module, attribute, resolved)
        return module
    explain[name] = f"in the program, {name} is {value}, which a kernel rebuilt from text cannot read"
    return MISSING


def _dtype(name: str) -> Any:
    import triton.language as tl

    for value in vars(tl.core).values():
        if isinstance(value, tl.dtype) and value.name == name:
            return value
    raise UnsafeKernelSource(f"refused: {name!r} is not one of Triton's dtypes")


def _triton_module_named(name: str) -> ModuleType:
    if not (triton_module(name) or name == "triton"):
        raise UnsafeKernelSource(f"refused: module {name!r} is not one of Triton's")
    try:
        return importlib.import_module(name)  # one of Triton's own modules, installed code
    except Exception as exc:
        raise UnsafeKernelSource(f"refused: Triton has no module {name!r} here ({type(exc).__name__})") from None


def _triton_object(spelled: str) -> Any:
    """``"triton.language.extra.libdevice:tanh"``: one of Triton's own, found without calling anything."""
    module_name, _, qualname = spelled.partition(":")
    value: Any = _triton_module_named(module_name)
    for part in qualname.split("."):
        if not part.isidentifier() or part.startswith("_"):
            raise UnsafeKernelSource(f"refused: {spelled!r} is not a name of Triton's")
        value = inspect.getattr_static(value, part, MISSING)
        if value is MISSING:
            raise UnsafeKernelSource(f"refused: Triton has no {spelled!r} here")
    if not allowed_object(value):
        raise UnsafeKernelSource(f"refused: {spelled!r} is not a Triton builtin, JIT function, dtype or value class")
    return value


@dataclass(frozen=True)
class ClosureData:
    texts: dict[str, str]
    scopes: dict[str, dict[str, dict[str, Any]]]


_BINDING_KINDS = ("constexpr", "value", "dtype", "module", "triton", "jit", "namespace", "unsupported")


def closure_data(data: Any, filename: str, text: str) -> ClosureData:
    """A recorded closure, checked field by field (it is data): each binding one of closure.py's kinds."""

    def bad(why: str) -> KernelFileError:
        return KernelFileError(f"{filename}: the recorded closure {why}")

    if (
        not isinstance(data, dict)
        or not isinstance(data.get("texts"), dict)
        or not isinstance(data.get("scopes"), dict)
    ):
        raise bad("is not an object of texts and scopes")
    texts = {str(k): v for k, v in data["texts"].items() if isinstance(v, str)}
    if len(texts) != len(data["texts"]):
        raise bad("holds a text that is not text")
    texts[filename] = text
    scopes: dict[str, dict[str, dict[str, Any]]] = {}
    for file, scope in data["scopes"].items():
        if not isinstance(scope, dict):
            raise bad(f"scope of {file!r} is not an object")
        if file not in texts:
            continue  # a file the program's copy of could not be read: names there stay unresolved
        scopes[file] = {name: _checked(name, b, texts, bad) for name, b in scope.items()}
    return ClosureData(texts, scopes)


def _checked(name: Any, binding: Any, texts: Mapping[str, str], bad: Any, depth: int = 0) -> dict[str, Any]:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise bad(f"names {str(name)[:40]!r}, which is not a Python name")
    if not isinstance(binding, dict) or len(binding) != 1 or next(iter(binding)) not in _BINDING_KINDS:
        raise bad(f"binds {name} to something closure.py does not write")
    kind, value = next(iter(binding.items()))
    scalar = value is None or isinstance(value, (bool, int, float, str))
    if kind in ("constexpr", "value") and not scalar:
        raise bad(f"gives {name} a value that is not None, a bool, a number or a string")
    if kind in ("dtype", "module", "triton", "unsupported") and not isinstance(value, str):
        raise bad(f"gives {name} a {kind} that is not a name")
    if kind == "jit":
        if not (
            isinstance(value, dict)
            and value.get("file") in texts
            and isinstance(value.get("line"), int)
            and not isinstance(value.get("line"), bool)
            and isinstance(value.get("name"), str)
            and value["name"].isidentifier()
        ):
            raise bad(f"gives {name} a @triton.jit def that is not a file it holds, a line and a name")
        return {"jit": {"file": value["file"], "line": value["line"], "name": value["name"]}}
    if kind == "namespace":
        if depth or not isinstance(value, dict):
            raise bad(f"gives {name} a namespace inside another, or not an object")
        return {"namespace": {k: _checked(k, v, texts, bad, depth + 1) for k, v in value.items()}}
    return {kind: value}


def _rebuild_file(
    text: str,
    filename: str,
    inductor: bool,
    bindings: Mapping[str, Any],
    lines: Mapping[str, int],
    explain: Mapping[str, str],
) -> _Rebuilt:
    """``text`` rebuilt: its ``@triton.jit`` defs (at module level, and in a module-level ``if`` or ``try`` where
    ``lines`` picks one), in a namespace of Triton's modules, the text's Triton imports and ``bindings``."""
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError, RecursionError) as exc:
        where = f"{filename}:{getattr(exc, 'lineno', None) or '?'}"
        raise KernelFileError(f"{where}: kernel source does not parse: {getattr(exc, 'msg', None) or exc}") from None
    defs = _jit_defs(tree, lines)
    namespace = _namespace(module_name_for(filename), inductor)
    namespace.update(_triton_imports(tree))
    for name, node in defs.items():
        if name in namespace:
            raise UnsafeKernelSource(
                f"{filename}:{node.lineno}: refused: a @triton.jit def named {name!r} "
                "would hide the module or name Triton's kernels use"
            )
    namespace.update({k: v for k, v in bindings.items() if k not in defs})
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
                functions[name] = _jit(_jit_decorator(node))(fn, **_jit_options(_jit_decorator(node)))
            except Exception as exc:
                raise KernelFileError(
                    f"{filename}:{node.lineno}: Triton cannot read {name}: {type(exc).__name__}: {exc}"
                ) from None
            mark_rebuilt(functions[name])
            namespace[name] = functions[name]
    refusals: dict[str, str | None] = {}
    calls: dict[str, frozenset[str]] = {}
    for name, node in defs.items():
        check = Check(filename, namespace, set(functions), explain)
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
        {_first_line(node): functions[name] for name, node in defs.items()},
        namespace,
    )


def _first_line(node: ast.FunctionDef) -> int:
    """The def's first line as Python's ``co_firstlineno`` gives it: its first decorator's."""
    return node.decorator_list[0].lineno if node.decorator_list else node.lineno


def _jit_defs(tree: ast.Module, lines: Mapping[str, int]) -> dict[str, ast.FunctionDef]:
    """The text's ``@triton.jit`` defs by name: each at module level, and those a recorded line picks from a
    module-level ``if``, ``try`` or ``with`` (a library defines one of two versions there)."""
    top = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and _jit_decorator(node)}
    if not lines:
        return top
    nested: list[ast.FunctionDef] = []
    pending: list[ast.stmt] = [n for n in tree.body if isinstance(n, (ast.If, ast.Try, ast.With))]
    while pending:
        node = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                nested.append(child)
            elif isinstance(child, (ast.If, ast.Try, ast.With, ast.ExceptHandler)):
                pending.append(child)  # type: ignore[arg-type]
    out = dict(top)
    for name, line in lines.items():
        found = [n for n in [*top.values(), *nested] if n.name == name and _first_line(n) == line and _jit_decorator(n)]
        if found:
            out[name] = found[0]
    return out


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
