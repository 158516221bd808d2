"""The kernel languages irscope knows: every ``irscope.frontends`` entry point, listed without importing it.

A frontend is one package that describes itself with a ``FrontendInfo`` (info.py) and registers
it in its distribution's metadata, as harlequin's adapters do::

    [project.entry-points."irscope.frontends"]
    triton = "irscope.frontends.triton:FRONTEND"

so a language can ship in a package of its own. ``FRONTENDS`` names them in order (irscope's
own first, then others by name) without importing anything; ``frontend_info`` imports only the
description (no compiler), and ``frontend`` the frontend itself, the first time each is asked
for: together the three built-ins take a few hundred ms, which ``irscope --help`` and the
commands that only read what is stored should not pay.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ..errors import KernelNotFound
from ..errors import install_hint as base_install_hint
from .base import Frontend
from .info import FrontendInfo

GROUP = "irscope.frontends"
# irscope's own, in the order a file's suffix is offered to them (a .py file is Triton's unless another claims
# it), loaded from these without reading the installed metadata (an old editable install predating the entry
# points works too): tests/test_frontends.py checks pyproject.toml declares exactly these.
BUILTIN = {
    "triton": "irscope.frontends.triton:FRONTEND",
    "cuda": "irscope.frontends.cuda:FRONTEND",
    "numba": "irscope.frontends.numba:FRONTEND",
    "gluon": "irscope.frontends.gluon:FRONTEND",
    "cute": "irscope.frontends.cute:FRONTEND",
    "tilelang": "irscope.frontends.tilelang:FRONTEND",
    "helion": "irscope.frontends.helion:FRONTEND",
}


@functools.cache
def _others() -> dict[str, EntryPoint]:
    """The frontends other distributions register, by name. Reading every installed distribution's metadata
    takes 0.1-0.6 s here (more the busier the machine): only a name or a file no built-in frontend knows
    pays it, so a worker loading a Triton kernel never does."""
    found = {ep.name: ep for ep in entry_points(group=GROUP) if ep.name not in BUILTIN}
    return dict(sorted(found.items()))


def _entry_point(name: str) -> EntryPoint:
    return EntryPoint(name, BUILTIN[name], GROUP) if name in BUILTIN else _others()[name]


class _Names(Mapping[str, str]):
    """``FRONTENDS``: name -> where its description lives (``module:attribute``), irscope's own first. Iterating
    it imports none of them, and reads other distributions' entry points only once past irscope's own."""

    def __getitem__(self, name: str) -> str:
        return _entry_point(name).value

    def __iter__(self) -> Iterator[str]:
        yield from BUILTIN
        yield from _others()

    def __len__(self) -> int:
        return len(BUILTIN) + len(_others())


FRONTENDS: Mapping[str, str] = _Names()


@functools.cache
def frontend_info(name: str) -> FrontendInfo:
    """The description of frontend ``name`` (its module is imported, its compiler is not)."""
    if name not in FRONTENDS:
        raise KernelNotFound(f"unknown frontend {name!r}; known: {', '.join(FRONTENDS)}")
    info = _entry_point(name).load()
    if not isinstance(info, FrontendInfo) or info.name != name:
        raise KernelNotFound(f"the frontend entry point {name!r} ({FRONTENDS[name]}) is not a FrontendInfo named so")
    return info


def frontend_infos() -> list[FrontendInfo]:
    return [frontend_info(name) for name in FRONTENDS]


@functools.cache
def frontend(name: str) -> Frontend:
    """Frontend ``name`` itself: its language's modules imported."""
    return frontend_info(name).load()


def register_stages(name: str) -> None:
    """Register the stages frontend ``name``'s compiles have beyond the shared ones, so that its stored variants
    read back (a session's ``variant.json`` names them). An unknown name (a damaged record) registers nothing;
    only a module an installed frontend names is imported, never one a record names."""
    if name in FRONTENDS and frontend_info(name).stages:
        importlib.import_module(frontend_info(name).stages)


def register_builtin_stages() -> None:
    """Register irscope's own frontends' stages (their modules import only the stage registry), so that a
    command offers ``--stage cute_ir`` before any CuTe DSL kernel is loaded."""
    for name in BUILTIN:
        register_stages(name)


def compiler_version(frontend_name: str, options: Mapping[str, Any]) -> str | None:
    """Which build of its compiler a variant with ``options`` names (Triton's ``-c triton=3.8.0``); None: the running one."""
    if frontend_name not in FRONTENDS:
        return None
    option = frontend_info(frontend_name).version_option
    value = options.get(option) if option else None
    return None if value is None else str(value)


def install_hint(exc: BaseException) -> str | None:
    """What to install where ``exc`` is an optional dependency found missing: a frontend's extra, or irscope's own."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.partition(".")[0]
        for info in frontend_infos():
            if top in info.requires and info.install_hint:
                return info.install_hint
    return base_install_hint(exc)
