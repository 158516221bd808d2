"""A baseline: the facts each variant had, keyed by config and arch, read from a session or from the
small JSON file ``irscope check --write-baseline`` writes (meant to be committed beside the kernel).

The file is data: every field is checked for its kind and range before anything reads it, an unknown
field is damage, and nothing in it names a file (``SessionError``, exit 5, in one line).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SessionError, UsageError
from ..frontends import FRONTENDS, frontend_info
from ..stages import Stage
from ..storage.files import MAX_JSON_BYTES, parse_json, read_bytes, write_output
from ..types import Config, Variant
from .facts import Facts

FORMAT = "irscope-check-baseline/1"
MAX_VARIANTS = 10_000
MAX_COUNT = 1 << 31  # registers, bytes, warps: past this a number is damage, not a kernel
MAX_TEXT = 1_000  # an error, a compiler's name, a finding's words
MAX_FINDINGS = 1_000
MAX_RUNTIME_US = 1e9
ARCH = re.compile(r"(sm_\d{2,3}[af]?|gfx[0-9a-f]{3,5})")
SHA256 = re.compile(r"[0-9a-f]{64}")
WIDTHS = frozenset({1, 2, 4, 8, 16, 32, 64, 128})
STAGES = frozenset(s.value for s in Stage.all())


def variant_key(frontend: str, config: Config, arch: str) -> str:
    """What pairs a variant with its baseline: its config and arch, less the option naming the compiler's
    build (``triton=3.9.0``): a Triton upgrade is checked against the facts of the Triton before it."""
    info = frontend_info(frontend) if frontend in FRONTENDS else None
    version = info.version_option if info is not None else ""
    options = {k: v for k, v in config.options.items() if k != version}
    return f"{Config(config.constexprs, options, config.sizes).key()}@{arch}"


@dataclass(frozen=True)
class Baseline:
    """Facts by variant key, and where they came from (a file, a session), for the table."""

    origin: str
    kernel: str
    find: Callable[[str], Facts | None]  # a variant key's facts, None where the baseline has no such variant


def session_baseline(origin: str, kernel: str, entries: Iterable[tuple[str, Callable[[], Variant]]]) -> Baseline:
    """A session as a baseline: each entry's facts, from its stored variant, read only when it is asked for."""
    from .facts import variant_facts

    loaders = dict(entries)

    @functools.cache
    def find(key: str) -> Facts | None:
        return variant_facts(loaders[key]()) if key in loaders else None

    return Baseline(origin, kernel, find)


def write_baseline(path: Path, kernel: str, rows: Iterable[tuple[Variant, str, Facts]]) -> int:
    """The file of ``rows`` (variant, key, facts), written atomically; its variants' count."""
    variants: dict[str, dict[str, Any]] = {}
    for v, key, facts in rows:
        if key in variants:  # -s triton=3.6.0,3.9.0: one baseline is one build's
            raise UsageError(f"two variants are {v.config.label()} @{v.arch}: write a baseline of one compiler build")
        variants[key] = {"key": key, "config": v.config.to_json(), "arch": v.arch, "facts": facts.to_json()}
    data = {"format": FORMAT, "kernel": kernel, "variants": [variants[key] for key in sorted(variants)]}
    write_output(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return len(variants)


def read_baseline(path: Path) -> Baseline:
    """The file at ``path``, checked field by field: anything else is a SessionError naming the field."""
    where = str(path)
    data = parse_json(_text(path), where)
    _fields(data, where, {"format", "kernel", "variants"})
    if data.get("format") != FORMAT:
        raise SessionError(f"{where}: not an irscope check baseline (format {_shown(data.get('format'))})")
    kernel = _string(data.get("kernel", ""), f"{where}: kernel")
    rows = data.get("variants")
    if not isinstance(rows, list) or len(rows) > MAX_VARIANTS:
        raise SessionError(f"{where}: variants must be a list of at most {MAX_VARIANTS}")
    facts: dict[str, Facts] = {}
    for i, row in enumerate(rows):
        at = f"{where}: variants[{i}]"
        _fields(row, at, {"key", "config", "arch", "facts"})
        key = _string(row.get("key"), f"{at}.key")
        arch = _string(row.get("arch"), f"{at}.arch")
        if not ARCH.fullmatch(arch):
            raise SessionError(f"{at}.arch is no GPU architecture: {_shown(arch)}")
        _config(row.get("config"), f"{at}.config")
        if not key.endswith(f"@{arch}"):
            raise SessionError(f"{at}.key {_shown(key)} is not of its arch {arch}")
        if key in facts:
            raise SessionError(f"{at}.key {_shown(key)} is there twice")
        facts[key] = _facts(row.get("facts"), f"{at}.facts")
    return Baseline(where, kernel, facts.get)


def _text(path: Path) -> str:
    raw = read_bytes(path, MAX_JSON_BYTES)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionError(f"{path} is not UTF-8 text (byte {exc.start})") from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields(data: Any, where: str, allowed: set[str]) -> None:
    if not isinstance(data, dict):
        raise SessionError(f"{where} must be an object, not {type(data).__name__}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise SessionError(f"{where} has a field irscope does not know: {_shown(unknown[0])}")


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise SessionError(f"{where} must be a string of at most {MAX_TEXT} characters")
    return value


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_COUNT:
        raise SessionError(f"{where} must be a whole number from 0 to {MAX_COUNT - 1} or null, not {_shown(value)}")
    return value


def _config(value: Any, where: str) -> Config:
    _fields(value, where, {"constexprs", "options", "sizes"})
    parts = {}
    for part in ("constexprs", "options", "sizes"):
        values = value.get(part, {})
        if not isinstance(values, dict):
            raise SessionError(f"{where}.{part} must be an object")
        for name, v in values.items():
            if not re.fullmatch(r"[A-Za-z_]\w{0,99}", name):
                raise SessionError(f"{where}.{part} names no parameter: {_shown(name)}")
            if not (v is None or isinstance(v, (str, int, float, bool))) or (isinstance(v, str) and len(v) > 200):
                raise SessionError(f"{where}.{part}.{name} must be a short string, number, bool or null")
            if isinstance(v, float) and not math.isfinite(v):
                raise SessionError(f"{where}.{part}.{name} must be a finite number")
        parts[part] = values
    return Config(parts["constexprs"], parts["options"], parts["sizes"])


def _widths(value: Any, where: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) > len(WIDTHS)
        or not all(type(w) is int and w in WIDTHS for w in value)
    ):
        raise SessionError(f"{where} must be a list of access widths in bytes ({', '.join(map(str, sorted(WIDTHS)))})")
    return tuple(sorted(set(value), reverse=True))


def _facts(value: Any, where: str) -> Facts:
    _fields(value, where, {f.name for f in dataclasses.fields(Facts)})
    ok = value.get("ok", True)
    if not isinstance(ok, bool):
        raise SessionError(f"{where}.ok must be true or false")
    listings = value.get("listings", {})
    if not isinstance(listings, dict):
        raise SessionError(f"{where}.listings must be an object")
    for stage, digest in listings.items():
        if stage not in STAGES:
            raise SessionError(f"{where}.listings names no stage: {_shown(stage)}")
        if not isinstance(digest, str) or not SHA256.fullmatch(digest):
            raise SessionError(f"{where}.listings.{stage} must be a SHA-256 in hex")
    found = value.get("findings", [])
    if not isinstance(found, list) or len(found) > MAX_FINDINGS:
        raise SessionError(f"{where}.findings must be a list of at most {MAX_FINDINGS}")
    runtime = value.get("runtime_us")
    if runtime is not None and (
        isinstance(runtime, bool)
        or not isinstance(runtime, (int, float))
        or not 0 < runtime < MAX_RUNTIME_US
        or not math.isfinite(runtime)
    ):
        raise SessionError(f"{where}.runtime_us must be a number of microseconds above 0 and below 1e9, or null")
    return Facts(
        ok=ok,
        error=_string(value.get("error", ""), f"{where}.error"),
        compiler=_string(value.get("compiler", ""), f"{where}.compiler"),
        registers=_count(value.get("registers"), f"{where}.registers"),
        spills=_count(value.get("spills"), f"{where}.spills"),
        shared=_count(value.get("shared"), f"{where}.shared"),
        warps_per_sm=_count(value.get("warps_per_sm"), f"{where}.warps_per_sm"),
        load_widths=_widths(value.get("load_widths", []), f"{where}.load_widths"),
        store_widths=_widths(value.get("store_widths", []), f"{where}.store_widths"),
        listings=dict(listings),
        findings=tuple(_string(f, f"{where}.findings[{i}]") for i, f in enumerate(found)),
        runtime_us=float(runtime) if runtime is not None else None,
    )
