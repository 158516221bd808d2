"""Writing into a session someone sent: links and leftovers in it never lead a writer outside or to the user's files.

A writer (``sweep`` resuming or adding to a session) first recovers what a killed writer left. Each
case plants links where it looks (``source/``, ``variants/``, ``.lock``, names shaped like its own
leftovers) and dot files of the user's beside them; afterwards nothing outside has changed and
every dot file is where it was.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .case import Case, copy_session, first_variant
from .workspace import Workspace, cli

WRITE = frozenset({0, 1, 2, 5})
KINDS = ("builtin", "triton", "cuda", "numba")
USER_DOT_FILES = (".notes.md", "source/.tmux.conf", "variants/.emacs.d/init.el")


def _plant_dot_files(session: Path) -> None:
    for rel in USER_DOT_FILES:
        (session / rel).parent.mkdir(parents=True, exist_ok=True)
        (session / rel).write_text("the user's own\n")


def _relink(session: Path, name: str, target: Path) -> None:
    shutil.copytree(session / name, target, symlinks=True, dirs_exist_ok=True)
    shutil.rmtree(session / name)
    (session / name).symlink_to(target)


PLANTS = {
    "source/ links to a folder of dot files outside": lambda ws, s: _relink(s, "source", ws.outside),
    "variants/ links to a folder outside": lambda ws, s: _relink(s, "variants", ws.outside / "projects"),
    ".lock links to a file that does not exist yet": lambda ws, s: (s / ".lock").symlink_to(ws.outside / "created"),
    ".lock links to a secret": lambda ws, s: (s / ".lock").symlink_to(ws.outside / "secret.txt"),
    ".lock is a FIFO": lambda ws, s: os.mkfifo(s / ".lock"),
    "a leftover-shaped link to a folder outside": lambda ws, s: (
        s / "variants" / f".{first_variant(s).name}.old-1"
    ).symlink_to(ws.outside / "projects"),
    "a leftover-shaped temporary file linking outside": lambda ws, s: (s / ".session.json.x1y2.tmp").symlink_to(
        ws.outside / "secret.txt"
    ),
    "a leftover-shaped folder linking to dot files": lambda ws, s: (s / "variants" / ".abc.tmp").symlink_to(
        ws.outside / ".emacs.d"
    ),
    "the session's own dot files beside its variants": lambda ws, s: None,
}


def _case(what: str, plant, kind: str, how: str) -> Case:
    def prepare(ws: Workspace, originals):
        recorded = originals.session(kind)
        session = ws.allow(copy_session(ws, recorded.path))
        _plant_dot_files(session)
        (session / ".lock").unlink(missing_ok=True)  # the recording writer's own: a plant may take its place
        plant(ws, session)
        if how == "resume":
            name, value = recorded.new.split("=")
            return cli("sweep", session, "-s", f"{name}={value}", "-j", "1")
        return cli("sweep", recorded.kernel, "-s", recorded.new, "-o", session, "-j", "1")

    def after(ws: Workspace) -> list[str]:
        session = ws.work / "session"
        gone = [rel for rel in USER_DOT_FILES if not (session / rel).exists()]
        return [f"the user's dot files in the session deleted: {gone}"] if gone else []

    return Case(f"session writer@sweep {how}", f"{what} ({kind} session)", prepare, WRITE, after)


def writer_cases() -> list[Case]:
    cases = []
    for i, (what, plant) in enumerate(PLANTS.items()):
        for j, how in enumerate(("resume", "-o")):
            cases.append(_case(what, plant, KINDS[(i + j) % 2], how))  # builtin and Triton file: cheap compiles
    return cases
