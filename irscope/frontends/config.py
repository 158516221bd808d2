"""Configs from a kernel's parameter table: ``-c NAME=VALUE`` into a Config, ``-s NAME=V1,V2`` into a sweep's.

Frontend-neutral: a kernel's ``parameter_table()`` (or the copy a session keeps, so a
session's variants can be named without importing its kernel) says what each name is;
here the user's values are parsed, checked and combined. Which kernel a name means is
``frontends.resolve_kernel``'s; what the user typed as a whole is ``named.py``'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import ParameterError
from ..spec import parse_value
from ..types import Config
from .base import Kernel
from .info import OptionSpec
from .registry import FRONTENDS, frontend_info, frontend_infos

# ------------------------------------------------------------------ configs


def parse_assignments(words: Iterable[str]) -> dict[str, str]:
    """``["BLOCK_SIZE=1024", "num_warps=4,num_stages=2"]`` -> ``{"BLOCK_SIZE": "1024", ...}``.

    Every command reads its ``-c``, ``-a`` and ``-b`` words here, so each takes one
    NAME=VALUE or several joined by commas. A piece after a comma that holds no ``=``
    goes on the value before it: ``session=runs/a,b`` names one folder.
    """
    pairs: list[str] = []
    for word in words:
        for piece in word.split(","):
            if not piece.strip():
                continue
            if "=" in piece or not pairs:
                pairs.append(piece)
            else:
                pairs[-1] += "," + piece
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ParameterError(f"expected NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out


def resolve_config(kernel: Kernel, overrides: Mapping[str, Any]) -> Config:
    """Defaults of ``kernel`` with ``overrides`` applied; strings are parsed and checked."""
    config = config_from_table(kernel.parameter_table(), overrides, kernel.name, kernel.frontend)
    kernel.check_config(config)
    return config


def frontend_options(frontend: str) -> dict[str, OptionSpec]:
    """The options a kernel of ``frontend`` takes besides its parameters (``FrontendInfo``); "" or a name no
    frontend has (a table whose frontend is not said, a session's damaged record): those of every frontend."""
    if frontend in FRONTENDS:
        return frontend_info(frontend).all_options()
    return {name: spec for info in frontend_infos() for name, spec in info.all_options().items()}


def config_from_table(
    table: Mapping[str, Mapping[str, Any]], overrides: Mapping[str, Any], kernel: str, frontend: str = ""
) -> Config:
    """A Config from a parameter table (see ``Kernel.parameter_table``) and ``-c`` overrides; ``frontend``:
    the kernel's, whose options (``FrontendInfo.options``) it takes besides the table's names.

    Sessions store the table, so their variants can be named without importing the kernel.
    A ``mark`` (an autotuned config's ``pruned``) is set here, never by ``-c``: from the
    table's list of configs, for the one this config is (None when it is none of them, or
    the sizes are not the defaults the mark was worked out for); it goes with the sizes,
    as it names the variant but is never passed to the kernel.
    """
    known = frontend_options(frontend)
    unknown = [n for n in overrides if n not in table and n not in known]
    if unknown and frontend in FRONTENDS:
        _another_frontends(unknown[0], overrides[unknown[0]], kernel, frontend)
    if unknown:
        raise ParameterError(f"unknown parameter {unknown[0]!r} for {kernel}; parameters: {', '.join(table)}")
    for name in overrides:
        kind = table.get(name, {}).get("kind")
        if kind == "heuristic":
            raise ParameterError(
                f"{name} of {kernel} is set by @triton.heuristics from the arguments; it cannot be set with -c or -s"
            )
        if kind == "mark":
            raise ParameterError(
                f"{name} of {kernel} is a mark irscope sets (the autotuner's prune_configs_by); "
                "it cannot be set with -c or -s"
            )
    values = {n: p["default"] for n, p in table.items()}
    for name, raw in overrides.items():
        default = table[name]["default"] if name in table else None
        text = name in known and known[name].text
        values[name] = parse_value(name, raw, default, text) if isinstance(raw, str) else raw
    kinds = {n: p["kind"] for n, p in table.items()}
    constexpr_names = [n for n, k in kinds.items() if k == "constexpr"]
    size_names = [n for n, k in kinds.items() if k == "size"]
    missing = [n for n in constexpr_names if values.get(n) is None]
    if missing:
        raise ParameterError(f"constexpr {missing[0]!r} of {kernel} has no value; set it with -c {missing[0]}=VALUE")
    # The frontend's options, and any its table names (a CUDA kernel's block shape); a kernel parameter
    # of the same name (a num_stages constexpr) is the table's own kind, and takes the value.
    option_names = [*known, *(n for n, k in kinds.items() if k == "option" and n not in known)]
    option_names = [n for n in option_names if kinds.get(n, "option") == "option"]
    options = {n: values[n] for n in option_names if values.get(n) is not None}
    for name, value in options.items():  # refuse what the compiler would assert on, miscompile or take minutes over
        if name in known:
            known[name].checked(name, value)
    for name in size_names:
        if not isinstance(values[name], int) or values[name] < 0:
            raise ParameterError(f"size {name} must be a non-negative integer, got {values[name]!r}")
    sizes = {n: values[n] for n in size_names}
    sizes.update(_arguments(kinds, values))
    sizes.update(_marks(table, values, size_names))
    return Config({n: values[n] for n in constexpr_names}, options, sizes)


def _arguments(kinds: Mapping[str, str], values: Mapping[str, Any]) -> dict[str, Any]:
    """The example values given to runtime arguments (kind ``argument``): a number or a bool, as a launch passes.

    They go with the sizes: like a spec's sizes, they are what the example arguments are made of
    (the heuristics' inputs, the JIT's specialization) and never a constexpr of the compile.
    """
    out = {}
    for name, kind in kinds.items():
        value = values.get(name)
        if kind != "argument" or value is None:
            continue
        if not isinstance(value, (bool, int, float)):
            raise ParameterError(f"argument {name} takes a number or true/false (a launch's value), got {value!r}")
        out[name] = value
    return out


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
        if index is not None and listed is not None and isinstance(column, list) and len(column) == listed[1]:
            out[name] = column[index]
        else:
            out[name] = None
    return out


def listed_configs(table: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, list[Any]], int] | None:
    """The explicit list of configs a table gives (an autotuner's): ``({name: value per config}, count)``.

    Names of kind constexpr or option may carry a ``configs`` column; None when
    none does, or the columns disagree in length (a table read from data).
    """
    columns = {
        n: p["configs"]
        for n, p in table.items()
        if p.get("kind") in ("constexpr", "option") and isinstance(p.get("configs"), list)
    }
    counts = {len(c) for c in columns.values()}
    if len(counts) != 1 or 0 in counts:
        return None
    return columns, counts.pop()


def _same(a: Any, b: Any) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool)


# ------------------------------------------------------------------ sweeps


def _another_frontends(name: str, value: Any, kernel: str, frontend: str) -> None:
    """Refuse, in its own words, an option another language's kernels take (``triton=3.8.0`` for a CUDA kernel)."""
    for info in frontend_infos():
        if info.name != frontend and name in info.all_options():
            if name == info.version_option:
                raise ParameterError(
                    f"{name}={value} names the {info.display_name} that compiles a {info.display_name} kernel; "
                    f"{kernel} is a {frontend} kernel"
                )
            raise ParameterError(f"{name} is an option of {info.display_name} kernels; {kernel} is a {frontend} kernel")


def parse_sweep(pairs: Sequence[str]) -> dict[str, list[str]]:
    """``["BLOCK_SIZE=128,256", "num_warps=4,8"]`` -> ``{"BLOCK_SIZE": ["128", "256"], ...}``."""
    out: dict[str, list[str]] = {}
    for pair in pairs:
        name, sep, values = pair.partition("=")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name.strip() or not items:
            raise ParameterError(f"expected NAME=V1,V2,..., got {pair!r}")
        out[name.strip()] = items
    return out


def sweep_configs(
    table: Mapping[str, Mapping[str, Any]],
    kernel: str,
    sweep: Mapping[str, Sequence[Any]],
    fixed: Mapping[str, Any],
    frontend: str = "",
) -> list[Config]:
    """Every config of the sweep, in order; ``sweep`` empty means the ranges the kernel declares.

    A kernel that lists its configs (an autotuner's: ``listed_configs``) declares
    exactly those, in its order, not the product of their values. A name in
    ``fixed`` is taken out of the declared ranges: ``-c num_warps=8`` alone sweeps
    the rest at 8 warps. Only a name given both ways by the user is refused.
    """
    listed = None if sweep else listed_configs(table)
    if listed is not None:
        columns, count = listed
        configs, seen = [], set()
        for i in range(count):
            chosen = {n: column[i] for n, column in columns.items() if n not in fixed}
            config = config_from_table(table, {**fixed, **chosen}, kernel, frontend)
            if config.key() not in seen:
                seen.add(config.key())
                configs.append(config)
        return configs
    if not sweep:
        sweep = {
            n: p["sweep"]
            for n, p in table.items()
            if p["kind"] != "size" and len(p.get("sweep") or []) > 1 and n not in fixed
        }
    for name in sweep:
        if name in fixed:
            raise ParameterError(f"{name} is both swept (-s) and fixed (-c)")
    names = list(sweep)
    values = []
    known = frontend_options(frontend)
    for name in names:
        if name not in table and name not in known:
            if frontend in FRONTENDS:
                _another_frontends(name, ",".join(map(str, sweep[name])), kernel, frontend)
            raise ParameterError(f"unknown parameter {name!r} for {kernel}; parameters: {', '.join(table)}")
        default = table.get(name, {}).get("default")
        text = name in known and known[name].text
        values.append([parse_value(name, v, default, text) if isinstance(v, str) else v for v in sweep[name]])
    configs, seen = [], set()
    for combo in itertools.product(*values):
        config = config_from_table(table, {**fixed, **dict(zip(names, combo))}, kernel, frontend)
        if config.key() not in seen:
            seen.add(config.key())
            configs.append(config)
    return configs


__all__ = [
    "config_from_table",
    "listed_configs",
    "parse_assignments",
    "parse_sweep",
    "parse_value",
    "resolve_config",
    "sweep_configs",
]
