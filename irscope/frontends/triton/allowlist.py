"""The allowlist a kernel's source is held to before Triton compiles it (see rebuild.py).

Triton's code generator runs Python at compile time: it evaluates a kernel's
default arguments and annotations, and calls whatever callable the body reaches
through a module global. So each def Triton will read is walked here as Triton
compiles it: names must be parameters, locals, Triton's modules, the text's own
kernels or Triton's builtins; a chain of attributes from a module is resolved
statically (``inspect.getattr_static``, never calling anything) and must end at
a Triton builtin, JIT function, dtype or value class; any other attribute must
be one Triton values have. Anything else is refused with ``UnsafeKernelSource``,
one line naming file:line and what.
"""

from __future__ import annotations

import ast
import functools
import inspect
import weakref
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ...errors import UsageError

# triton is imported inside the functions that use it: about a second, which commands that never compile
# should not pay.


class UnsafeKernelSource(UsageError):
    """A kernel's source reaches beyond Triton: it is refused, and nothing of it is compiled."""


# Names Triton's code generator resolves without a global (its builtin_namespace, less getattr and hasattr).
BUILTINS = frozenset({"range", "min", "max", "len", "float", "int", "isinstance", "print", "list"})
TRITON_HELPERS = "torch._inductor.runtime.triton_helpers"
LIBDEVICE_STUBS = "triton.language.extra.libdevice"  # placeholders Triton maps to the target's libdevice
MISSING = object()
# Gluon (Triton's lower-level language): its module (which leads only to its language: its jit and the rest are
# no builtins) and its language's modules (builtins, layouts, Hopper's and Blackwell's)
GLUON = "triton.experimental.gluon"
GLUON_LANGUAGE = "triton.experimental.gluon.language"
GLUON_JIT_SPELLINGS = frozenset({"gluon.jit", "triton.experimental.gluon.jit"})
# The JIT functions irscope rebuilt from checked text (rebuild.py): a recorded helper of another file
# may be reached through a recorded namespace (``op.exp2``) like one of Triton's own.
# By id: hashing a JITFunction would make Triton work out its dependencies (and raise on what it refuses).
_REBUILT: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def mark_rebuilt(fn: Any) -> None:
    _REBUILT[id(fn)] = fn


def _rebuilt(value: Any) -> bool:
    return _REBUILT.get(id(value)) is value


def dotted(node: ast.AST | None) -> str | None:
    """``tl.core.constexpr`` for a chain of names, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def static(node: ast.AST, namespace: dict[str, Any]) -> Any:
    """A chain of names from the namespace, resolved without calling anything (``MISSING`` if it is not one)."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, MISSING)
    if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
        base = static(node.value, namespace)
        if isinstance(base, ModuleType):
            return inspect.getattr_static(base, node.attr, MISSING)
    return MISSING


class Check(ast.NodeVisitor):
    """Walks one def as Triton compiles it (signature and body; not its decorators), refusing what is not allowed."""

    def __init__(
        self, filename: str, namespace: dict[str, Any], kernels: set[str], explain: Mapping[str, str] | None = None
    ) -> None:
        self.filename = filename
        self.namespace = namespace
        self.kernels = kernels
        self.explain = explain or {}  # why a name the program recorded is not in the namespace
        self.locals: set[str] = set()
        self.calls: set[str] = set()
        self.jit_ok: set[int] = set()  # nodes where naming a JIT function is allowed: callees, combine functions

    def refuse(self, node: ast.AST, what: str) -> None:
        raise UnsafeKernelSource(f"{self.filename}:{getattr(node, 'lineno', '?')}: refused in kernel source: {what}")

    def function(self, node: ast.FunctionDef) -> None:
        args = node.args
        params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a]
        parts = [args, *([node.returns] if node.returns else []), *node.body]
        stored = [
            n for part in parts for n in ast.walk(part) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        ]
        self.locals = set(params) | {n.id for n in stored}
        for where, name in [(node, p) for p in params] + [(n, n.id) for n in stored]:
            if isinstance(self.namespace.get(name), ModuleType):
                self.refuse(where, f"{name!r} is assigned or a parameter: it would hide the module of that name")
        self.visit(args)
        if node.returns is not None:
            self.visit(node.returns)
        for statement in node.body:
            self.visit(statement)

    def _nested(self, node: ast.AST) -> None:
        self.refuse(node, f"a nested {type(node).__name__}")

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _nested

    def visit_Global(self, node: ast.Global) -> None:
        self.refuse(node, "a 'global' statement")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.refuse(node, "a 'nonlocal' statement")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.refuse(node, "a lambda")

    def visit_Import(self, node: ast.AST) -> None:
        self.refuse(node, "an import")

    visit_ImportFrom = visit_Import

    def visit_Call(self, node: ast.Call) -> None:
        self.jit_ok.add(id(node.func))
        if _takes_functions(static(node.func, self.namespace) if not self._local(node.func) else MISSING):
            self.jit_ok.update(id(a) for a in node.args)
            self.jit_ok.update(id(k.value) for k in node.keywords)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._value(node, self._name(node), module_ok=False)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._value(node, self._attribute(node), module_ok=False)

    def _local(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return not isinstance(node, ast.Name) or node.id in self.locals

    def _name(self, node: ast.Name) -> Any:
        """What a loaded name resolves to where it is statically known; ``MISSING`` for locals and builtins."""
        if node.id in self.locals:  # Triton's order: locals, globals, then its builtins
            return MISSING
        value = self.namespace.get(node.id, MISSING)
        if value is MISSING and node.id in BUILTINS:
            return MISSING
        if value is MISSING or node.id.startswith("__"):
            if node.id in self.explain:
                self.refuse(node, f"name {node.id!r}: {self.explain[node.id]}")
            self.refuse(
                node,
                f"name {node.id!r} (not a parameter, a local, a Triton module, "
                "a @triton.jit function of this source or a Triton builtin)",
            )
        if node.id in self.kernels:
            self.calls.add(node.id)
        return value

    def _attribute(self, node: ast.Attribute) -> Any:
        if node.attr.startswith("_"):
            self.refuse(node, f"attribute {node.attr!r} (attributes starting with '_' are refused)")
        if isinstance(node.value, ast.Name) and isinstance(node.value.ctx, ast.Load):
            base = self._name(node.value)
        elif isinstance(node.value, ast.Attribute):
            base = self._attribute(node.value)
        else:
            self.visit(node.value)
            base = MISSING
        if isinstance(base, ModuleType):
            value = inspect.getattr_static(base, node.attr, MISSING)
            where = dotted(node) or node.attr
            if value is MISSING:
                self.refuse(node, f"{where!r} (no such attribute, or one only found by running code)")
            if isinstance(value, ModuleType) and not triton_module(value.__name__):
                self.refuse(node, f"{where!r} is module {value.__name__!r}, outside Triton")
            if not isinstance(value, ModuleType) and not allowed_object(value):
                self.refuse(
                    node, f"{where!r} is {_describe(value)}, not a Triton builtin, JIT function, dtype or value class"
                )
            return value
        if node.attr not in _value_attributes():
            self.refuse(node, f"attribute {node.attr!r} (not one that Triton's tensors, dtypes or constexprs have)")
        return MISSING

    def _value(self, node: ast.AST, value: Any, module_ok: bool) -> None:
        from triton.runtime.jit import JITCallable

        if isinstance(value, ModuleType) and not module_ok:
            self.refuse(node, f"module {dotted(node)!r} used as a value (a module may only lead an attribute chain)")
        if isinstance(value, JITCallable) and id(node) not in self.jit_ok:
            self.refuse(
                node,
                f"JIT function {dotted(node)!r} used as a value (call it, or pass it to "
                "one of Triton's reductions or scans)",
            )


def _takes_functions(callee: Any) -> bool:
    """Triton's own builtins (tl.reduce, tl.associative_scan ...) take combine functions as arguments."""
    return _is_triton_builtin(callee)


def _is_triton_builtin(value: Any) -> bool:
    """A function of Triton's (or Inductor's helpers) marked to be called by the code generator."""
    return (
        inspect.isfunction(value)
        and triton_module(value.__module__ or "")
        and value.__dict__.get("__triton_builtin__", False) is True
    )


def triton_module(name: str) -> bool:
    return name == GLUON or any(
        name == m or name.startswith(m + ".") for m in ("triton.language", GLUON_LANGUAGE, TRITON_HELPERS)
    )


def allowed_object(value: Any) -> bool:
    """What a chain of attributes from a module may end at."""
    import triton.language as tl
    from triton.runtime.jit import JITCallable

    if isinstance(value, (tl.dtype, tl.constexpr)) or value is None or type(value) in (bool, int, float, str):
        return True
    if isinstance(value, JITCallable):
        return _rebuilt(value) or triton_module(getattr(value.fn, "__module__", "") or "")
    if isinstance(value, type):
        return value in _value_classes()
    if inspect.isfunction(value):
        return _is_triton_builtin(value) or value.__module__ == LIBDEVICE_STUBS
    return False


def _describe(value: Any) -> str:
    kind = type(value).__name__
    module = getattr(value, "__module__", None) if inspect.isfunction(value) or isinstance(value, type) else None
    return f"a {kind} of {module!r}" if module else f"a {kind}"


@functools.cache
def _value_classes() -> frozenset[type]:
    """Triton's value and type classes (tensor, dtype, constexpr, range, static_range ...)."""
    import triton.language as tl

    core = tl.core
    found = {
        c
        for c in vars(core).values()
        if isinstance(c, type)
        and c.__module__.startswith("triton.language")
        and (issubclass(c, (core.base_value, core.base_type)) or c is core.constexpr)
    }
    return frozenset(found | _gluon_classes(core))


def _gluon_classes(core: Any) -> set[type]:
    """Gluon's value and type classes (shared-memory descriptors ...) and its layouts (a kernel builds a
    ``SliceLayout`` of a layout it was given): those of the running Triton, where it has Gluon."""
    import importlib

    try:
        gl = importlib.import_module(GLUON_LANGUAGE)
        layouts = importlib.import_module(f"{GLUON_LANGUAGE}._layouts")
    except ImportError:
        return set()
    out: set[type] = set()
    for module in (gl, importlib.import_module(f"{GLUON_LANGUAGE}._core")):
        for c in vars(module).values():
            if isinstance(c, type) and triton_module(c.__module__) and issubclass(c, (core.base_value, core.base_type)):
                out.add(c)
    pending = [layouts.DistributedLayout, layouts.SharedLayout]
    while pending:
        cls = pending.pop()
        out.add(cls)
        pending.extend(cls.__subclasses__())
    return out


@functools.cache
def _value_attributes() -> frozenset[str]:
    """The attributes a kernel may read from a value it holds: those of Triton's values, types and constexprs.

    ``handle`` (the IR value behind a tensor) is left out: it leads into the compiler's C++ objects.
    """
    import triton.language as tl

    names = {n for c in _value_classes() for n in dir(c) if not n.startswith("_")}
    samples = [
        tl.constexpr(1),
        tl.tensor(None, tl.float32),
        tl.pointer_type(tl.float32),
        tl.block_type(tl.float32, [16]),
        tl.tuple_type([tl.int32]),
    ]
    samples += [v for v in vars(tl.core).values() if isinstance(v, tl.dtype)]
    names |= {n for s in samples for n in vars(s) if not n.startswith("_")}
    return frozenset(names - {"handle"})
