"""The front door for naming kernels and configs: ``-c NAME=VALUE`` into a Config.

A kernel is named either as a built-in (``square_kernel``, from ``kernels/``) or
as ``path/to/file.py:kernel_name``; the frontend that opens the file resolves it
(see frontends/). What is left here is frontend-neutral: parsing values and
checking a config against a kernel's parameter table.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .errors import ParameterError
from .frontends import Kernel, builtin_kernels, resolve_kernel
from .spec import LAUNCH_OPTION_VALUES, LAUNCH_OPTIONS, OPTION_CHECKS, parse_value
from .types import Config

# ------------------------------------------------------------------ configs


def parse_assignments(pairs: Iterable[str]) -> dict[str, str]:
    """``["BLOCK_SIZE=1024", ...]`` -> ``{"BLOCK_SIZE": "1024"}``."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ParameterError(f"expected NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out


def resolve_config(ref: Kernel, overrides: Mapping[str, Any]) -> Config:
    """Defaults of ``ref`` with ``overrides`` applied; strings are parsed and checked."""
    config = config_from_table(ref.parameter_table(), overrides, ref.name)
    ref.check_config(config)
    return config


def config_from_table(table: Mapping[str, Mapping[str, Any]], overrides: Mapping[str, Any], kernel: str) -> Config:
    """A Config from a parameter table (see ``Kernel.parameter_table``) and ``-c`` overrides.

    Sessions store the table, so their variants can be named without importing the kernel.
    A ``mark`` (an autotuned config's ``pruned``) is set here, never by ``-c``: from the
    table's list of configs, for the one this config is (None when it is none of them, or
    the sizes are not the defaults the mark was worked out for); it goes with the sizes,
    as it names the variant but is never passed to the kernel.
    """
    unknown = [n for n in overrides if n not in table and n not in LAUNCH_OPTIONS]
    if unknown:
        raise ParameterError(f"unknown parameter {unknown[0]!r} for {kernel}; parameters: {', '.join(table)}")
    for name in overrides:
        kind = table.get(name, {}).get("kind")
        if kind == "heuristic":
            raise ParameterError(f"{name} of {kernel} is set by @triton.heuristics from the arguments; "
                                 "it cannot be set with -c or -s")
        if kind == "mark":
            raise ParameterError(f"{name} of {kernel} is a mark irscope sets (the autotuner's prune_configs_by); "
                                 "it cannot be set with -c or -s")
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
    # Triton's launch options, and any a frontend's table names (a CUDA kernel's block shape).
    option_names = [*LAUNCH_OPTIONS, *(n for n, k in kinds.items() if k == "option" and n not in LAUNCH_OPTIONS)]
    options = {n: values[n] for n in option_names if values.get(n) is not None}
    _check_options(options)
    for name in size_names:
        if not isinstance(values[name], int) or values[name] < 0:
            raise ParameterError(f"size {name} must be a non-negative integer, got {values[name]!r}")
    sizes = {n: values[n] for n in size_names}
    sizes.update(_marks(table, values, size_names))
    return Config({n: values[n] for n in constexpr_names}, options, sizes)


def _marks(table: Mapping[str, Mapping[str, Any]], values: Mapping[str, Any], size_names: list[str]) -> dict[str, Any]:
    """Each mark's value for the listed config ``values`` is (None: not one of them, or other sizes)."""
    marks = {n: p for n, p in table.items() if p["kind"] == "mark"}
    if not marks:
        return {}
    listed = listed_configs(table)
    index = None
    if listed is not None and all(values[n] == table[n]["default"] for n in size_names):
        columns, count = listed
        index = next((i for i in range(count) if all(_same(values.get(n), c[i]) for n, c in columns.items())), None)
    out = {}
    for name, p in marks.items():
        column = p.get("configs")
        known = index is not None and isinstance(column, list) and len(column) == listed[1]
        out[name] = column[index] if known else None
    return out


def listed_configs(table: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, list[Any]], int] | None:
    """The explicit list of configs a table gives (an autotuner's): ``({name: value per config}, count)``.

    Names of kind constexpr or option may carry a ``configs`` column; None when
    none does, or the columns disagree in length (a table read from data).
    """
    columns = {n: p["configs"] for n, p in table.items()
               if p.get("kind") in ("constexpr", "option") and isinstance(p.get("configs"), list)}
    counts = {len(c) for c in columns.values()}
    if len(counts) != 1 or 0 in counts:
        return None
    return columns, counts.pop()


def _same(a: Any, b: Any) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _check_options(options: Mapping[str, Any]) -> None:
    """Refuse what Triton would assert on, miscompile quietly or take minutes over."""
    for name, value in options.items():
        if name not in LAUNCH_OPTION_VALUES:
            if name in OPTION_CHECKS:  # a frontend's own option (a CUDA kernel's block shape)
                OPTION_CHECKS[name](value)
            continue
        allowed, words = LAUNCH_OPTION_VALUES[name]
        if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
            raise ParameterError(f"{name} must be {words}, got {value!r}")


__all__ = ["Kernel", "builtin_kernels", "config_from_table", "listed_configs", "parse_assignments", "parse_value",
           "resolve_config", "resolve_kernel"]
