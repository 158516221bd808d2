"""A crafted input as a test case, and the real inputs cases are made from (recorded once per test run)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .workspace import Outcome, Workspace

REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "samples"


@dataclass(frozen=True)
class Recorded:
    """A real session, two of its configs (``NAME=VALUE``, as ``-c``/``-a``/``-b`` take them) and one it lacks."""

    path: Path
    a: str
    b: str
    new: str  # NAME=VALUE of a config to add: resuming with it compiles
    kernel: str  # FILE:NAME or a built-in's name, as the session was recorded


@dataclass(frozen=True)
class Originals:
    """Everything cases copy and damage: real sessions of each frontend, the kernel files they came from."""

    sessions: dict[str, Recorded]
    kernels: Path  # the kernel files below, written for the battery

    def session(self, kind: str) -> Recorded:
        return self.sessions[kind]


Prepare = Callable[[Workspace, Originals], Callable[[], Outcome]]


@dataclass(frozen=True)
class Case:
    """One crafted input on one surface; ``prepare`` builds it in the workspace and says how irscope meets it."""

    surface: str
    what: str
    prepare: Prepare = field(compare=False)
    codes: frozenset[int] = frozenset({0, 2, 5})
    after: Callable[[Workspace], list[str]] | None = field(default=None, compare=False)
    slow: bool = False  # a subprocess: cwd, signals, a bomb

    @property
    def id(self) -> str:
        return f"{self.surface}: {self.what}"


def copy_session(ws: Workspace, original: Path, name: str = "session") -> Path:
    copy = ws.work / name
    shutil.copytree(original, copy, symlinks=True)
    return copy


def edit_json(path: Path, change: Callable[[dict], object]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def set_field(data: dict, dotted: str, value: object) -> None:
    """``data[a][b][0]...`` = value for ``dotted`` = ``a.b.0``; a missing step becomes a dict."""
    *steps, last = dotted.split(".")
    node = data
    for step in steps:
        node = node[int(step)] if isinstance(node, list) else node.setdefault(step, {})
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def first_variant(session: Path) -> Path:
    entry = json.loads((session / "session.json").read_text())["variants"][0]
    return session / "variants" / entry["id"]


def accept_stage(variant: Path, stage_file: str) -> None:
    """Record ``stage_file``'s current hash in its variant.json, so the damage is read instead of refused as edited."""
    import hashlib

    digest = hashlib.sha256((variant / stage_file).read_bytes()).hexdigest()
    edit_json(variant / "variant.json", lambda d: d["sha256"].__setitem__(stage_file, digest))


def rewrite(locate: Callable[[Path], Path], change: Callable[[bytes], bytes]):
    """A damage: the file ``locate(root)`` gets ``change`` of its bytes."""

    def damage(ws: Workspace, root: Path) -> None:
        path = locate(root)
        path.write_bytes(change(path.read_bytes()))

    return damage


def replace_with(locate: Callable[[Path], Path], make: Callable[[Workspace, Path], object]):
    """A damage: the file ``locate(root)`` is removed and ``make`` puts something else at its path."""

    def damage(ws: Workspace, root: Path) -> None:
        path = locate(root)
        path.unlink()
        make(ws, path)

    return damage


def socket_at(path: Path) -> None:
    """A socket's file node (bind would refuse pytest's long paths)."""
    import stat

    os.mknod(path, 0o600 | stat.S_IFSOCK)


def field_by_kind(fields, names: list[str], every: int, make: Callable[[int, str, str], Case]) -> list[Case]:
    """``make(turn, field, kind)`` for each field and the value kinds it is tried with (payloads.kinds_for)."""
    from .payloads import kinds_for

    cases, turn = [], 0
    for number, field_name in enumerate(fields):
        for kind in kinds_for(number, names, every):
            cases.append(make(turn, field_name, kind))
            turn += 1
    return cases
