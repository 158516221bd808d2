"""A kernel's argument types in the syntax of Triton's own ahead-of-time compiler: ``-S``.

``"*fp32:16, *fp32:16, i32, i32:16, 1024"``: ``:16`` = divisible by 16, a bare value
= a constant. Beyond Triton's AOT syntax, what a launch may pass that has no type: ``None``
(the JIT makes it a constant: Liger's ``weight_ptr=None``, FLA's ``cu_seqlens=None``), a quoted
string for a constexpr (``'mean'``), and a host tensor descriptor in the JIT's own spelling,
``tensordesc<fp16[128, 64]>``. A kernel without a ``KernelSpec`` is compiled from such a
signature, given by the user, stored in a session, or read from a launch a file made at import.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ParameterError
from ...spec import NONE, parse_value


@dataclass(frozen=True)
class SignatureArg:
    """One argument of a user-given signature: a type (with hint) or a constexpr value."""

    type: str | None  # "*fp32", "i32", ... ; None for a constexpr
    hint: int | None = None  # 16: divisible by 16; 1: equal to 1
    value: Any = None  # the constexpr's value
    # 32: a pointer whose buffer fits in 2 GB, as ROCm's JIT marks one ('tt.pointer_range'); AMD's
    # compiler then reads it with buffer instructions. Only AMD compiles use it, and only records give it.
    pointer_range: int | None = None
    # The value None, given (``None`` in -S): a constexpr's value, not "set it with -c".
    none: bool = False

    def to_json(self) -> dict[str, Any]:
        """As a session stores it; ``pointer_range`` and ``none`` only where set, so other signatures read as they
        always have."""
        out: dict[str, Any] = {"type": self.type, "hint": self.hint, "value": self.value}
        if self.pointer_range is not None:
            out["pointer_range"] = self.pointer_range
        if self.none:
            out["none"] = True
        return out


# What an entry of --signature may be, as Triton's AOT compiler (triton/tools/compile.py) reads it.
SIGNATURE_FORMS = (
    "*fp32, *fp16:16 (a pointer; :16 = 16-byte aligned), i32, i64, i32:16 (an integer; :16 = divisible by 16), "
    "i32:1 (equal to 1: a constant, as the JIT makes it), fp32, bf16 (a float), tensordesc<fp16[128, 64]> (a host "
    "tensor descriptor), 1024, 0.5 (a constant), True, 'mean' (a constant bool, a quoted string), None (a launch "
    "passing None: a constant, as the JIT makes it); entries in order, or each NAME=ENTRY; a constexpr takes a "
    "value, or - to set it with -c; an argument given as a type takes a launch's value with -c NAME=VALUE (None too)"
)
# tensordesc<fp16[128, 64]>: the JIT's own spelling of a host TensorDescriptor (triton/runtime/jit.py). Gluon's,
# with a layout after the shape, is not read: Triton evaluates that part as Python.
TENSORDESC = re.compile(r"^tensordesc<\s*([a-z0-9]+)\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*>$")
_INTEGER_TYPES = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})


def parse_signature(text: str, fn: Any) -> tuple[SignatureArg, ...]:
    """Parse ``"*fp32:16, i32, 1, 1024"``: one entry per kernel parameter, in order.

    As Triton's AOT compiler: a bare number is a constant for any parameter, and
    ``:1`` makes an integer the constant 1, the way the JIT compiles every int
    argument equal to 1 (a unit stride, say).
    """
    parts = split_entries(text)
    named = _named_entries(parts, fn)
    if named is not None:
        return parse_signature(", ".join(named), fn)
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
            if part in ("", "-", "constexpr"):
                out.append(SignatureArg(None))
                continue
            if part == NONE:
                out.append(SignatureArg(None, None, None, none=True))
                continue
            try:
                out.append(SignatureArg(None, None, parse_value(param.name, part)))
            except ParameterError:
                raise _bad_entry(part, param.name, "not a value for a constexpr") from None
            continue
        out.append(_signature_entry(part, param.name))
    return tuple(out)


def _named_entries(parts: list[str], fn: Any) -> list[str] | None:
    """``Y_ptr=*fp32:16, n=i32, BLOCK=-``: the entries in parameter order (None: the entries are not named).

    Every parameter that is not a constexpr is named once; a constexpr left out is set with -c.
    """
    pairs = [p.partition("=") for p in parts]
    if not any(sep for _, sep, _ in pairs):
        return None
    names = [p.name for p in fn.params]
    given: dict[str, str] = {}
    for name, sep, entry in pairs:
        name = name.strip()
        if not sep or name not in names or name in given:
            why = "not NAME=ENTRY" if not sep else "named twice" if name in given else "not a parameter"
            raise ParameterError(
                f"--signature entry {name!r}: {why} (named entries: every one NAME=ENTRY, each parameter once; "
                f"{fn.fn.__name__} takes {', '.join(names)})"
            )
        if entry.strip() == "?":
            raise ParameterError(f"--signature entry {name}=?: give {name}'s type or value in place of the ?")
        given[name] = entry.strip()
    missing = [p.name for p in fn.params if p.name not in given and not p.is_constexpr]
    if missing:
        raise ParameterError(f"--signature names no entry for {', '.join(missing)} of {fn.fn.__name__}")
    return [given.get(p.name, "-") for p in fn.params]


def signature_template(fn: Any) -> str:
    """A ``--signature`` to fill in, for JITFunction ``fn``: each parameter by name, with the type its annotation
    or default implies (``?`` where neither says), a constexpr's default or ``-`` (set it with -c)."""
    return ", ".join(f"{p.name}={_implied(p)}" for p in fn.params)


def _implied(param: Any) -> str:
    default = param.default if param.has_default else inspect.Parameter.empty
    if param.is_constexpr:
        return "-" if default is inspect.Parameter.empty else _literal_entry(default) or "-"
    annotation = param.annotation_type or ""
    if annotation and is_type(param.annotation):
        return param.annotation
    if annotation and is_type(annotation):
        return annotation
    if default is inspect.Parameter.empty:
        return "?"
    if default is None:
        return NONE
    if isinstance(default, bool):
        return "u1"
    return {int: "i32", float: "fp32"}.get(type(default), "?")


def _literal_entry(value: Any) -> str | None:
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str) and "," not in value and "'" not in value:
        return repr(value)
    return None


def split_entries(text: str) -> list[str]:
    """-S's entries: split at the commas outside ``[...]`` and quotes (``tensordesc<fp16[128, 64]>``, ``'a,b'``)."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[<":
            depth += 1
        elif char in "]>":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return parts


def takes_example_value(arg: SignatureArg) -> bool:
    """Does ``-c NAME=VALUE`` give this argument a launch's value: a scalar given as a type (or a pointer, which a
    launch may pass None for), not a constant or a tensor descriptor?"""
    return arg.type is not None and not arg.type.startswith("tensordesc") and arg.hint != 1


def _signature_entry(part: str, name: str) -> SignatureArg:
    """One entry for a parameter that is not a constexpr: a type with its hint, or a constant."""
    value = _constant(part)
    if value is not None:
        return SignatureArg(None, None, value)
    if part == NONE:
        return SignatureArg(None, None, None, none=True)
    if part in ("True", "False"):
        return SignatureArg(None, None, part == "True")
    if len(part) >= 2 and part[0] == part[-1] and part[0] in "'\"":
        return SignatureArg(None, None, part[1:-1])
    descriptor = tensordesc(part)
    if descriptor is not None:
        return SignatureArg(descriptor)
    ty, colon, hint = (s.strip() for s in part.partition(":"))
    if not is_type(ty):
        raise _bad_entry(part, name, "not a type or a number")
    if not colon:
        return SignatureArg(ty)
    if hint == "16" and (ty.startswith("*") or ty in _INTEGER_TYPES):
        return SignatureArg(ty, 16)
    if hint == "1" and ty in _INTEGER_TYPES:
        return SignatureArg(ty, 1)
    why = (
        "a pointer takes :16 only"
        if ty.startswith("*")
        else "the hints are :16 and :1"
        if ty in _INTEGER_TYPES
        else f"{ty} takes no hint"
    )
    raise _bad_entry(part, name, f"hint :{hint} ({why})")


def _constant(text: str) -> int | float | None:
    """A bare number, read as Triton's AOT compiler reads one (int first, then float); else None."""
    for read in (int, lambda t: int(t, 0), float):
        try:
            return read(text)
        except ValueError:
            pass
    return None


def _bad_entry(part: str, name: str, why: str) -> ParameterError:
    return ParameterError(f"--signature entry {part!r} for {name}: {why}; accepted: {SIGNATURE_FORMS}")


def signature_from_json(data: Any) -> tuple[SignatureArg, ...]:
    """A stored signature (a list of {"type", "hint", "value"}), read as data."""
    if not isinstance(data, list):
        raise ParameterError("a stored kernel signature must be a list")
    out = []
    for item in data:
        if not isinstance(item, Mapping):
            raise ParameterError("a stored kernel signature entry must be an object")
        ty, hint = item.get("type"), item.get("hint")
        if ty is not None and not is_type(str(ty)):
            raise ParameterError(f"stored signature type {ty!r} is not a Triton type")
        if hint not in (None, 1, 16):
            raise ParameterError(f"stored signature hint {hint!r} is not 1 or 16")
        pointer_range = item.get("pointer_range")
        if pointer_range is not None and (pointer_range != 32 or not str(ty).startswith("*")):
            raise ParameterError(f"stored signature pointer range {pointer_range!r} is not 32 on a pointer")
        none = item.get("none") is True and ty is None and item.get("value") is None
        out.append(SignatureArg(None if ty is None else str(ty), hint, item.get("value"), pointer_range, none))
    return tuple(out)


_SCALAR_TYPES = {
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "u1",
    "u8",
    "u16",
    "u32",
    "u64",
    "fp8e4nv",
    "fp8e4b8",
    "fp8e4b15",
    "fp8e5",
    "fp8e5b16",
    "fp16",
    "bf16",
    "fp32",
    "fp64",
}


def is_type(text: str) -> bool:
    """Is ``text`` a Triton scalar type, a pointer to one (``*fp32``, ``*kfp16``, ``i32``), or a host tensor
    descriptor of one (``tensordesc<fp16[128, 64]>``), as the JIT spells it?"""
    text = text.strip()
    if text.startswith("tensordesc"):
        return tensordesc(text) == text
    return text.lstrip("*").removeprefix("k") in _SCALAR_TYPES if text.startswith("*") else text in _SCALAR_TYPES


def tensordesc(text: str) -> str | None:
    """``tensordesc<fp16[128,64]>`` in the JIT's own spelling (``tensordesc<fp16[128, 64]>``); None if it is not one."""
    match = TENSORDESC.match(text.strip())
    if match is None or match.group(1) not in _SCALAR_TYPES:
        return None
    shape = [int(d) for d in match.group(2).split(",")]
    if not shape or len(shape) > 5 or any(d < 1 or d > 1 << 16 for d in shape):
        return None
    return f"tensordesc<{match.group(1)}{shape}>"
