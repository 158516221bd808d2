"""A kernel's argument types in the syntax of Triton's own ahead-of-time compiler: ``-S``.

``"*fp32:16, *fp32:16, i32, i32:16, 1024"``: ``:16`` = divisible by 16, a bare value
= a constant. A kernel without a ``KernelSpec`` is compiled from such a signature,
given by the user, stored in a session, or read from a launch a file made at import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ParameterError
from ...spec import parse_value


@dataclass(frozen=True)
class SignatureArg:
    """One argument of a user-given signature: a type (with hint) or a constexpr value."""

    type: str | None  # "*fp32", "i32", ... ; None for a constexpr
    hint: int | None = None  # 16: divisible by 16; 1: equal to 1
    value: Any = None  # the constexpr's value
    # 32: a pointer whose buffer fits in 2 GB, as ROCm's JIT marks one ('tt.pointer_range'); AMD's
    # compiler then reads it with buffer instructions. Only AMD compiles use it, and only records give it.
    pointer_range: int | None = None

    def to_json(self) -> dict[str, Any]:
        """As a session stores it; ``pointer_range`` only where set, so other signatures read as they always have."""
        out = {"type": self.type, "hint": self.hint, "value": self.value}
        if self.pointer_range is not None:
            out["pointer_range"] = self.pointer_range
        return out


# What an entry of --signature may be, as Triton's AOT compiler (triton/tools/compile.py) reads it.
SIGNATURE_FORMS = (
    "*fp32, *fp16:16 (a pointer; :16 = 16-byte aligned), i32, i64, i32:16 (an integer; :16 = divisible by 16), "
    "i32:1 (equal to 1: a constant, as the JIT makes it), fp32, bf16 (a float), 1024, 0.5 (a constant); "
    "a constexpr takes a value, or - to set it with -c; a scalar given as a type takes a launch's value with "
    "-c NAME=VALUE"
)
_INTEGER_TYPES = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})


def parse_signature(text: str, fn: Any) -> tuple[SignatureArg, ...]:
    """Parse ``"*fp32:16, i32, 1, 1024"``: one entry per kernel parameter, in order.

    As Triton's AOT compiler: a bare number is a constant for any parameter, and
    ``:1`` makes an integer the constant 1, the way the JIT compiles every int
    argument equal to 1 (a unit stride, say).
    """
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
            if part in ("", "-", "constexpr"):
                out.append(SignatureArg(None))
                continue
            try:
                out.append(SignatureArg(None, None, parse_value(param.name, part)))
            except ParameterError:
                raise _bad_entry(part, param.name, "not a value for a constexpr") from None
            continue
        out.append(_signature_entry(part, param.name))
    return tuple(out)


def takes_example_value(arg: SignatureArg) -> bool:
    """Does ``-c NAME=VALUE`` give this argument an example value: a scalar given as a type, not a constant?"""
    return arg.type is not None and not arg.type.startswith("*") and arg.hint != 1


def _signature_entry(part: str, name: str) -> SignatureArg:
    """One entry for a parameter that is not a constexpr: a type with its hint, or a constant."""
    value = _constant(part)
    if value is not None:
        return SignatureArg(None, None, value)
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
        out.append(SignatureArg(None if ty is None else str(ty), hint, item.get("value"), pointer_range))
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
    "fp8e5",
    "fp16",
    "bf16",
    "fp32",
    "fp64",
}


def is_type(text: str) -> bool:
    """Is ``text`` a Triton scalar type or a pointer to one (``*fp32``, ``*kfp16``, ``i32``)?"""
    text = text.strip()
    return text.lstrip("*").removeprefix("k") in _SCALAR_TYPES if text.startswith("*") else text in _SCALAR_TYPES
