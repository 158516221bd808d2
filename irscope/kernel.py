"""Finding a kernel by name or path, and turning ``-c NAME=VALUE`` into a Config.

A kernel is named either as a built-in (``square_kernel``, from ``kernels/``) or
as ``path/to/file.py:kernel_name``. A file that declares a ``KernelSpec`` for its
kernel is compiled and run from it; a file that declares nothing can still be
compiled when the argument types are given as a signature string, in the syntax
of Triton's own ahead-of-time compiler: ``"*fp32:16, *fp32:16, i32, i32:16, 1024"``
(``:16`` = divisible by 16, a bare value = a constexpr).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import KernelFileError, KernelNotFound, ParameterError
from .paths import builtin_kernels_dir
from .spec import LAUNCH_OPTIONS, TRITON_DEFAULT_OPTIONS, KernelSpec, kernel_specs
from .types import Config, KernelId

BUILTIN_DIR = builtin_kernels_dir()  # the repository's kernels/, shipped as irscope.builtin_kernels


@dataclass(frozen=True)
class SignatureArg:
    """One argument of a user-given signature: a type (with hint) or a constexpr value."""

    type: str | None  # "*fp32", "i32", ... ; None for a constexpr
    hint: int | None = None  # 16: divisible by 16; 1: equal to 1
    value: Any = None  # the constexpr's value


@dataclass(frozen=True)
class KernelRef:
    """A resolved kernel: the JIT function, where it lives and how to build its inputs."""

    fn: Any  # triton.runtime.jit.JITFunction
    file: str
    spec: KernelSpec | None = None
    signature: tuple[SignatureArg, ...] | None = None

    @property
    def name(self) -> str:
        return self.fn.fn.__name__

    def identity(self) -> KernelId:
        return KernelId(self.name, self.file, self.fn.cache_key)

    def constexpr_names(self) -> list[str]:
        return [p.name for p in self.fn.params if p.is_constexpr]

    def def_line(self) -> int:
        """The line of the ``def`` (Triton's own line numbers start there)."""
        offset = next((i for i, line in enumerate(self.fn.raw_src) if line.lstrip().startswith("def ")), 0)
        return self.fn.starting_line_number + offset

    def parameters(self) -> dict[str, Any]:
        """Every name -c accepts, with its default (None: must be given)."""
        return {name: p["default"] for name, p in self.parameter_table().items()}

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """name -> {"default", "sweep", "kind"} with kind constexpr, option or size."""
        if self.spec is not None:
            table = {n: {"default": t.default, "sweep": list(t.values()), "kind": "constexpr"}
                     for n, t in self.spec.constexprs.items()}
            table.update({n: {"default": t.default, "sweep": list(t.values()), "kind": "option"}
                          for n, t in self.spec.options().items()})
            table.update({n: {"default": v, "sweep": [v], "kind": "size"} for n, v in self.spec.sizes.items()})
            return table
        table = {}
        sig = self.signature or ()
        for p in self.fn.params:
            if p.is_constexpr:
                given = sig[p.num].value if p.num < len(sig) and sig[p.num].type is None else None
                default = given if given is not None else (p.default if p.has_default else None)
                table[p.name] = {"default": default, "sweep": [default], "kind": "constexpr"}
        table.update({n: {"default": v, "sweep": [v], "kind": "option"} for n, v in TRITON_DEFAULT_OPTIONS.items()})
        return table


# ------------------------------------------------------------------ finding kernels


def builtin_files() -> list[Path]:
    return sorted(p for p in BUILTIN_DIR.glob("*.py") if not p.name.startswith("_"))


def builtin_kernels() -> list[KernelRef]:
    """Every built-in kernel with a spec, in file order."""
    refs = []
    for path in builtin_files():
        module = load_module(path)
        refs.extend(KernelRef(spec.kernel, str(path), spec) for spec in kernel_specs(vars(module)))
    return refs


def resolve_kernel(name: str, signature: str | None = None) -> KernelRef:
    """Find ``name``: a built-in kernel, or ``path/to/file.py[:kernel]``."""
    if ":" in name or name.endswith(".py"):
        path_text, _, kernel_name = name.rpartition(":") if ":" in name else (name, "", "")
        if not path_text.endswith(".py"):
            path_text, kernel_name = name, ""
        path = Path(path_text).expanduser()
        if not path.is_file():
            raise KernelFileError(f"no such kernel file: {path}")
        return _kernel_in_file(path.resolve(), kernel_name or None, signature)
    for path in _builtin_candidates(name):
        try:
            return _kernel_in_file(path, name, signature)
        except KernelNotFound:
            continue
    known = ", ".join(ref.name for ref in builtin_kernels())
    raise KernelNotFound(f"unknown kernel {name!r}; built-in kernels: {known} (or give path/to/file.py:kernel_name)")


def _builtin_candidates(name: str) -> list[Path]:
    # square_kernel lives in square.py by convention; look there first, then everywhere.
    stem = name.removesuffix("_kernel")
    first = [p for p in builtin_files() if p.stem == stem]
    return first + [p for p in builtin_files() if p not in first]


def _kernel_in_file(path: Path, kernel_name: str | None, signature: str | None) -> KernelRef:
    module = load_module(path)
    jit_fns = {n: v for n, v in vars(module).items() if _is_jit_function(v) and v.__module__ == module.__name__}
    specs = {spec.name: spec for spec in kernel_specs(vars(module))}
    if kernel_name is None:
        candidates = list(specs) or list(jit_fns)
        if len(candidates) != 1:
            raise KernelNotFound(f"{path} holds {len(candidates)} kernels ({', '.join(candidates) or 'none'}); name one as {path}:NAME")
        kernel_name = candidates[0]
    fn = jit_fns.get(kernel_name) or (specs[kernel_name].kernel if kernel_name in specs else None)
    if fn is None:
        raise KernelNotFound(f"no @triton.jit kernel named {kernel_name!r} in {path}; found: {', '.join(jit_fns) or 'none'}")
    spec = specs.get(kernel_name)
    parsed = parse_signature(signature, fn) if signature else None
    if spec is None and parsed is None:
        raise ParameterError(
            f"{kernel_name} in {path} declares no KernelSpec; give its argument types with "
            f"--signature, e.g. --signature \"*fp32:16, *fp32:16, i32:16, 1024\""
        )
    return KernelRef(fn, str(path), None if parsed else spec, parsed)


def _is_jit_function(value: Any) -> bool:
    return type(value).__name__ == "JITFunction" and hasattr(value, "params")


_MODULES: dict[Path, Any] = {}


def load_module(path: Path) -> Any:
    """Import a kernel file by path (once per process), with errors as one line."""
    path = path.resolve()
    if path in _MODULES:
        return _MODULES[path]
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    module_name = f"irscope_kernel_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise KernelFileError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and triton look modules up by name
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[module_name]
        raise KernelFileError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except Exception as exc:
        del sys.modules[module_name]
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
        where = f"{path}:{frames[-1].lineno}" if frames else str(path)
        raise KernelFileError(f"{where}: error importing kernel file: {type(exc).__name__}: {exc}") from exc
    _MODULES[path] = module
    return module


# ------------------------------------------------------------------ signatures


def parse_signature(text: str, fn: Any) -> tuple[SignatureArg, ...]:
    """Parse ``"*fp32:16, i32, 1024"``: one entry per kernel parameter, in order."""
    parts = [p.strip() for p in text.split(",")]
    params = list(fn.params)
    if len(parts) != len(params):
        # Constexprs may be left out of the signature and set with -c instead.
        params = [p for p in fn.params if not p.is_constexpr]
        if len(parts) != len(params):
            names = ", ".join(p.name for p in fn.params)
            raise ParameterError(
                f"--signature has {len(parts)} entries but {fn.fn.__name__} takes {len(fn.params)} "
                f"({len(params)} without constexprs): {names}"
            )
    given = dict(zip((p.name for p in params), parts))
    out = []
    for param in fn.params:
        part = given.get(param.name, "")
        if param.is_constexpr:
            out.append(SignatureArg(None, None, None if part in ("", "-", "constexpr") else parse_value(param.name, part)))
            continue
        ty, _, hint = part.partition(":")
        if not _is_type(ty):
            raise ParameterError(f"--signature entry {part!r} for {param.name} is not a type like *fp32, i32 or fp16")
        if hint and hint not in ("1", "16"):
            raise ParameterError(f"--signature hint {hint!r} for {param.name}: only :16 (divisible) and :1 (equal to 1)")
        out.append(SignatureArg(ty, int(hint) if hint else None))
    return tuple(out)


_SCALAR_TYPES = {"i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64",
                 "fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64"}


def _is_type(text: str) -> bool:
    text = text.strip()
    return text.lstrip("*").removeprefix("k") in _SCALAR_TYPES if text.startswith("*") else text in _SCALAR_TYPES


# ------------------------------------------------------------------ configs


def parse_value(name: str, text: str, like: Any = None) -> Any:
    """Parse a -c value; follow the type of ``like`` (the default) when there is one."""
    text = text.strip()
    if isinstance(like, bool) or (like is None and text.lower() in ("true", "false")):
        if text.lower() in ("true", "1", "false", "0"):
            return text.lower() in ("true", "1")
        raise ParameterError(f"{name} expects true or false, got {text!r}")
    if isinstance(like, int) or like is None:
        try:
            return int(text, 0)
        except ValueError:
            if like is not None:
                raise ParameterError(f"{name} expects an integer, got {text!r}") from None
    try:
        return float(text)
    except ValueError:
        if isinstance(like, str):
            return text
        raise ParameterError(f"{name} expects a number, got {text!r}") from None


def parse_assignments(pairs: Iterable[str]) -> dict[str, str]:
    """``["BLOCK_SIZE=1024", ...]`` -> ``{"BLOCK_SIZE": "1024"}``."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ParameterError(f"expected NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out


def resolve_config(ref: KernelRef, overrides: Mapping[str, Any]) -> Config:
    """Defaults of ``ref`` with ``overrides`` applied; strings are parsed and checked."""
    return config_from_table(ref.parameter_table(), overrides, ref.name)


def config_from_table(table: Mapping[str, Mapping[str, Any]], overrides: Mapping[str, Any], kernel: str) -> Config:
    """A Config from a parameter table (see ``KernelRef.parameter_table``) and ``-c`` overrides.

    Sessions store the table, so their variants can be named without importing the kernel.
    """
    unknown = [n for n in overrides if n not in table and n not in LAUNCH_OPTIONS]
    if unknown:
        raise ParameterError(f"unknown parameter {unknown[0]!r} for {kernel}; parameters: {', '.join(table)}")
    values = {n: p["default"] for n, p in table.items()}
    for name, raw in overrides.items():
        default = table[name]["default"] if name in table else None
        values[name] = parse_value(name, raw, default) if isinstance(raw, str) else raw
    kinds = {n: p["kind"] for n, p in table.items()}
    constexpr_names = [n for n, k in kinds.items() if k == "constexpr"]
    size_names = [n for n, k in kinds.items() if k == "size"]
    missing = [n for n in constexpr_names if values.get(n) is None]
    if missing:
        raise ParameterError(f"constexpr {missing[0]!r} of {kernel} has no value; set it with -c {missing[0]}=VALUE")
    options = {n: values[n] for n in LAUNCH_OPTIONS if values.get(n) is not None}
    _check_options(options)
    for name in size_names:
        if not isinstance(values[name], int) or values[name] < 0:
            raise ParameterError(f"size {name} must be a non-negative integer, got {values[name]!r}")
    return Config({n: values[n] for n in constexpr_names}, options, {n: values[n] for n in size_names})


def _check_options(options: Mapping[str, Any]) -> None:
    for name in ("num_warps", "num_ctas"):
        v = options.get(name)
        if v is not None and (not isinstance(v, int) or v < 1 or v & (v - 1)):
            raise ParameterError(f"{name} must be a power of two, got {v!r}")
    v = options.get("num_stages")
    if v is not None and (not isinstance(v, int) or v < 1):
        raise ParameterError(f"num_stages must be a positive integer, got {v!r}")
