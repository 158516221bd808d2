"""A session someone sent: every field of its index and its variants damaged every way, read by every command.

Each (field, damage) pair is read by one command, turn about, so that across the battery each
command meets each kind of damage; the fields a sweep alone reads (the stored request, the kernel's
file and frontend) are tried with the commands that act on them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from . import payloads
from .case import (
    Case,
    accept_stage,
    copy_session,
    edit_json,
    field_by_kind,
    first_variant,
    replace_with,
    rewrite,
    set_field,
    socket_at,
)
from .readers import READERS
from .workspace import Workspace

KINDS = ("builtin", "triton", "cuda", "numba")
UP = "../../"  # from a session in work/ to the workspace's outside/

INDEX_FIELDS = {
    "format": list(READERS),
    "kernel.name": list(READERS),
    "kernel.source": list(READERS),
    "kernel.source_hash": ["sweep", "tui", "dump"],
    "kernel.file": ["sweep", "tui", "dump"],
    "kernel.frontend": ["sweep", "tui", "dump"],
    "kernel.signature": ["sweep", "tui", "dump"],
    "parameters": list(READERS),
    "variants": list(READERS),
    "variants.0.id": list(READERS),
    "variants.0.config": list(READERS),
    "variants.0.arch": list(READERS),
    "variants.0.status": list(READERS),
    "variants.0.error": ["dump", "report", "tui", "diff"],
    "variants.0.facts": ["report", "tui", "sweep"],
    "variants.0.measurement": ["report", "tui", "bench", "ncu"],
    "request.sweep": ["sweep"],
    "request.fixed": ["sweep"],
    "request.arch": ["sweep"],
}

VARIANT_FIELDS = [
    "format",
    "kernel",
    "config",
    "arch",
    "status",
    "error",
    "stage_errors",
    "resources",
    "compile_info",
    "stages",
    "sha256",
]


def _reader_case(surface: str, what: str, command: str, kind: str, damage) -> Case:
    read, codes, after = READERS[command]

    def prepare(ws: Workspace, originals):
        recorded = originals.session(kind)
        session = copy_session(ws, recorded.path)
        damage(ws, session)
        return read(ws, session, recorded)

    return Case(f"{surface}@{command}", f"{what} ({kind} session)", prepare, codes, after)


def _index_value(dotted: str, value_name: str):
    def damage(ws: Workspace, session: Path) -> None:
        value = payloads.values(ws.canary_path(), ws.outside, UP)[value_name]
        edit_json(session / "session.json", lambda d: set_field(d, dotted, value))

    return damage


def _variant_value(key: str, value_name: str):
    def damage(ws: Workspace, session: Path) -> None:
        value = payloads.values(ws.canary_path(), ws.outside, UP + "../../")[value_name]
        edit_json(first_variant(session) / "variant.json", lambda d: set_field(d, key, value))

    return damage


def _index(session: Path) -> Path:
    return session / "session.json"


def _variant_json(session: Path) -> Path:
    return first_variant(session) / "variant.json"


def _ptx(session: Path) -> Path:
    return first_variant(session) / "ptx.ptx"


def index_cases() -> list[Case]:
    def make(turn: int, dotted: str, value_name: str) -> Case:
        commands = INDEX_FIELDS[dotted]
        return _reader_case(
            "session.json",
            f"{dotted} = {value_name}",
            commands[turn % len(commands)],
            KINDS[turn % len(KINDS)],
            _index_value(dotted, value_name),
        )

    cases = field_by_kind(INDEX_FIELDS, list(payloads.values(Path("c"), Path("o"), UP)), 4, make)
    for i, (name, change) in enumerate(payloads.CONTENT.items()):
        for j, command in enumerate(READERS):
            if (i + j) % 2:  # every command meets half of the kinds of whole-file damage, every kind half the commands
                continue
            cases.append(
                _reader_case("session.json", f"the file {name}", command, KINDS[(i + j) % 4], rewrite(_index, change))
            )
    return cases


def variant_cases() -> list[Case]:
    names = [
        "a list",
        "null",
        "a huge integer",
        "NaN",
        "a path up and out",
        "an absolute path",
        "terminal controls",
        "HTML that opens a comment",
        "a NUL byte",
        "shell $(...)",
    ]
    readers = ["dump", "diff", "annotate", "report", "tui", "export"]

    def make(turn: int, key: str, value_name: str) -> Case:
        return _reader_case(
            "variant.json",
            f"{key} = {value_name}",
            readers[turn % len(readers)],
            KINDS[turn % len(KINDS)],
            _variant_value(key, value_name),
        )

    cases = field_by_kind(VARIANT_FIELDS, names, 3, make)
    for i, (name, change) in enumerate(payloads.CONTENT.items()):
        command = readers[i % len(readers)]
        cases.append(
            _reader_case("variant.json", f"the file {name}", command, KINDS[i % 4], rewrite(_variant_json, change))
        )
    return cases


# ---------------------------------------------------------------- stage files: content that is read, kinds of file


def _accepted_text(text: str):
    """A stage file holding ``text`` in a listing line, its hash recorded: irscope reads and shows it."""

    def damage(ws: Workspace, session: Path) -> None:
        ptx = _ptx(session)
        lines = ptx.read_text().splitlines(keepends=True)
        lines.insert(len(lines) // 2, f"\t// {text}\n\tmov.u32 %r1, %r1; // {text}\n")
        ptx.write_text("".join(lines))
        accept_stage(ptx.parent, "ptx.ptx")

    return damage


def _accepted_bytes(data: bytes):
    def damage(ws: Workspace, session: Path) -> None:
        ptx = _ptx(session)
        ptx.write_bytes(ptx.read_bytes()[:300] + data + ptx.read_bytes()[300:])
        accept_stage(ptx.parent, "ptx.ptx")

    return damage


def _replace(make):
    return replace_with(_ptx, make)


def _huge(ws: Workspace, path: Path) -> None:
    with open(path, "wb") as f:  # sparse: 600 MiB on paper, nothing on disk
        f.truncate(600 << 20)


STAGE_FILES = {
    "ptx with terminal controls (hash matches)": _accepted_text("\x1b]0;pwned\x07\x1b[2J"),
    "ptx with HTML (hash matches)": _accepted_text("<!--<script>alert(1)</script>"),
    "ptx with a closing script tag (hash matches)": _accepted_text("</script><script>alert(1)</script>"),
    "ptx with NUL bytes (hash matches)": _accepted_bytes(b"\x00" * 32),
    "ptx with invalid UTF-8 (hash matches)": _accepted_bytes(b"\xff\xfe\xc3\x28"),
    "ptx with a 2 MB line (hash matches)": _accepted_bytes(b"x" * (2 << 20)),
    "ptx is a FIFO": _replace(lambda ws, p: os.mkfifo(p)),
    "ptx is a socket": _replace(lambda ws, p: socket_at(p)),
    "ptx is a character device": _replace(lambda ws, p: os.mknod(p, 0o600 | 0o020000, os.makedev(1, 5))),
    "ptx is a directory": _replace(lambda ws, p: p.mkdir()),
    "ptx links to a secret outside": _replace(lambda ws, p: p.symlink_to(ws.outside / "secret.txt")),
    "ptx links to /dev/zero": _replace(lambda ws, p: p.symlink_to("/dev/zero")),
    "ptx links to itself": _replace(lambda ws, p: p.symlink_to(p.name)),
    "ptx is 600 MB (sparse)": _replace(_huge),
    "ptx is empty": _replace(lambda ws, p: p.write_bytes(b"")),
}


def _variant_folder_outside(ws: Workspace, session: Path) -> None:
    variant = first_variant(session)
    shutil.copytree(variant, ws.outside / "variant")
    shutil.rmtree(variant)
    variant.symlink_to(ws.outside / "variant")


def _folder_outside(name: str):
    def damage(ws: Workspace, session: Path) -> None:
        shutil.copytree(session / name, ws.outside / name, symlinks=True)
        shutil.rmtree(session / name)
        (session / name).symlink_to(ws.outside / name)

    return damage


def _source_outside(ws: Workspace, session: Path) -> None:
    (src,) = (session / "source").iterdir()
    src.unlink()
    src.symlink_to(ws.outside / "secret.txt")


STRUCTURE = {
    "a variant folder links outside": _variant_folder_outside,
    "variants/ links outside": _folder_outside("variants"),
    "source/ links outside": _folder_outside("source"),
    "the stored source links outside": _source_outside,
    "session.json links outside": lambda ws, s: (
        (s / "session.json").unlink(),
        (s / "session.json").symlink_to(ws.outside / "secret.txt"),
    ),
    "session.json is a FIFO": lambda ws, s: ((s / "session.json").unlink(), os.mkfifo(s / "session.json")),
    "session.json is 65 MB (sparse)": lambda ws, s: os.truncate(s / "session.json", 65 << 20),
    "variants/ is a file": lambda ws, s: (shutil.rmtree(s / "variants"), (s / "variants").write_text("x")),
}


def stage_cases() -> list[Case]:
    cases = []
    readers = ["dump", "diff", "annotate", "report", "tui", "export", "sweep"]
    for i, (what, damage) in enumerate({**STAGE_FILES, **STRUCTURE}.items()):
        for j in range(2):  # two commands each, turn about
            command = readers[(2 * i + j) % len(readers)]
            surface = "stage file" if what in STAGE_FILES else "session folder"
            cases.append(_reader_case(surface, what, command, KINDS[(i + j) % 4], damage))
    return cases
