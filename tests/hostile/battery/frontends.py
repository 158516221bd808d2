"""A session may name any frontend and any kernel file: none of them is imported, whatever the pair.

Each session kind (a built-in, a Triton file, a ``.cu``, a Numba file) is given each frontend value a
session can hold, with ``kernel.file`` naming a file that runs a payload when imported (for ``.cu``,
the spec file beside it) and the stored source holding the same payload; then it is resumed with a
config it lacks (which needs the kernel) and read.
"""

from __future__ import annotations

from .case import Case, copy_session, edit_json
from .payloads import module
from .readers import READERS
from .workspace import Workspace, cli

KINDS = ("builtin", "triton", "cuda", "numba")
FRONTENDS = ("triton", "cuda", "numba", "inductor", "fortran", None)


def _evil_file(ws: Workspace, frontend: str | None, kernel_source: str) -> str:
    """A kernel file for ``frontend`` that leaves the canary when anything imports it or its spec."""
    if frontend == "cuda":
        cu = ws.work / "downloaded" / "evil.cu"
        cu.parent.mkdir(exist_ok=True)
        cu.write_text(kernel_source if kernel_source.lstrip().startswith(("#", "_")) else "__global__ void k() {}\n")
        (cu.parent / "evil_spec.py").write_text(module(ws.canary_path("spec")))
        return str(cu)
    py = ws.work / "downloaded" / "evil.py"
    py.parent.mkdir(exist_ok=True)
    py.write_text(module(ws.canary_path("file")) + kernel_source)
    return str(py)


def _case(kind: str, frontend: str | None, command: str) -> Case:
    def prepare(ws: Workspace, originals):
        recorded = originals.session(kind)
        session = copy_session(ws, recorded.path)
        (stored,) = (session / "source").iterdir()
        evil = _evil_file(ws, frontend, stored.read_text())
        if stored.suffix == ".py":
            stored.write_text(module(ws.canary_path("stored")) + stored.read_text())
        edit_json(session / "session.json", lambda d: d["kernel"].update(frontend=frontend, file=evil))
        if command == "sweep":
            return cli("sweep", ws.allow(session), "-s", recorded.new, "-j", "1")
        return READERS[command][0](ws, session, recorded)

    codes = frozenset({0, 1, 2, 5}) if command == "sweep" else READERS[command][1]
    return Case(
        f"session frontend@{command}",
        f"kernel.frontend = {frontend} naming an evil file ({kind} session)",
        prepare,
        codes,
    )


def frontend_cases() -> list[Case]:
    return [
        _case(kind, frontend, command)
        for kind in KINDS
        for frontend in FRONTENDS
        for command in ("sweep", "dump" if frontend != "cuda" else "tui")
    ]
