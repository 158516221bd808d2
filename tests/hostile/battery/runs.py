"""What Nsight Compute and ``irscope run`` left on disk: a session's counters, a report path, a run folder.

The counters and ``run.json`` are read back by ``ncu`` and the TUI; a run's ``raw/`` records are what
the program's own process wrote, so a record folder that links outside must not bring anything in.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from . import payloads
from .case import SAMPLES, Case, edit_json, replace_with, rewrite, set_field
from .readers import READ
from .workspace import SECRET, Workspace, api, cli

NCU_SESSION = SAMPLES / "ncu" / "square_h100"
COUNTER_FIELDS = [
    "name",
    "metrics",
    "metrics.gpu_time_us",
    "metrics.occupancy_pct",
    "per_offset",
    "per_offset.0x0010",
    "per_offset.0x0010.inst_executed",
]
COUNTER_VALUES = [
    "a list",
    "null",
    "a huge integer",
    "NaN",
    "Infinity",
    "negative",
    "terminal controls",
    "HTML that opens a comment",
    "a path up and out",
]


def _counters(session: Path) -> Path:
    return next((session / "ncu").glob("BLOCK_SIZE-128_*.counters.json"))


def _ncu_case(what: str, damage) -> Case:
    def prepare(ws: Workspace, originals):
        session = ws.work / "session"
        shutil.copytree(NCU_SESSION, session, symlinks=True)
        damage(ws, session)
        return cli("ncu", session, "-c", "BLOCK_SIZE=128", "-c", "num_warps=4")

    return Case("ncu counters@ncu", what, prepare, READ)


def _counter_value(dotted: str, value_name: str):
    def damage(ws: Workspace, session: Path) -> None:
        value = payloads.values(ws.canary_path(), ws.outside, "../../../")[value_name]
        edit_json(_counters(session), lambda d: set_field(d, dotted, value))

    return damage


REPORT_PATHS = {
    "a FIFO": lambda ws, p: os.mkfifo(p),
    "a directory": lambda ws, p: p.mkdir(),
    "a link to a secret": lambda ws, p: p.symlink_to(ws.outside / "secret.txt"),
    "a link to /dev/zero": lambda ws, p: p.symlink_to("/dev/zero"),
    "garbage": lambda ws, p: p.write_bytes(os.urandom(1000)),
    "a pickle": lambda ws, p: p.write_bytes(payloads.pickled(ws.canary_path())),
}


def _report_case(what: str) -> Case:
    def prepare(ws: Workspace, originals):
        report = ws.work / "square.ncu-rep"
        REPORT_PATHS[what](ws, report)
        return cli("ncu", "square_kernel", "-c", "BLOCK_SIZE=128", "--report", report, "--arch", "sm_90")

    return Case("ncu report@ncu --report", what, prepare, READ)


def ncu_cases() -> list[Case]:
    cases = [
        _ncu_case(f"{field} = {value}", _counter_value(field, value))
        for number, field in enumerate(COUNTER_FIELDS)
        for value in payloads.kinds_for(number, COUNTER_VALUES, 3)
    ]
    cases += [_ncu_case(f"the file {name}", rewrite(_counters, change)) for name, change in payloads.CONTENT.items()]
    cases += [
        _ncu_case("the file is a FIFO", replace_with(_counters, lambda ws, p: os.mkfifo(p))),
        _ncu_case(
            "the file links to a secret", replace_with(_counters, lambda ws, p: p.symlink_to(ws.outside / "secret.txt"))
        ),
    ]
    cases += [_report_case(what) for what in REPORT_PATHS]
    return cases


# ---------------------------------------------------------------- a run folder: run.json and raw/

RUN_FIELDS = ["format", "kernels", "kernels.0", "kernels.0.session", "command", "device", "mode"]
RUN_VALUES = [
    "a list",
    "null",
    "a path up and out",
    "an absolute path",
    "terminal controls",
    "a NUL byte",
    "a 1 MB string",
]


def _run_folder(ws: Workspace, originals) -> Path:
    run = ws.work / "run"
    shutil.copytree(originals.session("builtin").path, run / "kernels" / "square", symlinks=True)
    (run / "run.json").write_text(
        json.dumps(
            {
                "format": "irscope.run/1",
                "command": ["python", "prog.py"],
                "exit_code": 0,
                "mode": "aot",
                "kernels": [{"name": "square_kernel", "session": "kernels/square", "launches": 1}],
            }
        )
    )
    return run


def _tui(folder: Path):
    def build():
        from irscope.tui.factory import make_app

        make_app(str(folder))

    return api(build)


def _index_case(dotted: str, value_name: str) -> Case:
    def prepare(ws: Workspace, originals):
        run = _run_folder(ws, originals)
        value = payloads.values(ws.canary_path(), ws.outside, "../../")[value_name]
        edit_json(run / "run.json", lambda d: set_field(d, dotted, value))
        return _tui(run)

    return Case("run.json@tui", f"{dotted} = {value_name}", prepare, READ)


RECORD = {
    "format": "irscope.triton-compile/1",
    "kernel": "k",
    "file": "/x/k.py",
    "source": "sources/k.py",
    "params": ["x"],
    "constexprs": [],
    "signature": {"x": "*fp32"},
    "constants": {},
    "divisible": [],
    "options": {"num_warps": 4},
    "hash": "h",
    "name": "k",
    "arch": 90,
    "stages": {"ptx": "k.ptx"},
}
KERNEL_SOURCE = "import triton\n\n\n@triton.jit\ndef k(x):\n    pass\n"


def _raw(ws: Workspace) -> Path:
    run = ws.allow(ws.work / "run")
    raw = run / "raw"
    (raw / "compiles" / "00000").mkdir(parents=True)
    (raw / "sources").mkdir()
    (raw / "sources" / "k.py").write_text(KERNEL_SOURCE)
    (raw / "compiles" / "00000" / "k.ptx").write_text("// ptx\n")
    return raw


def _link_out(raw: Path, ws: Workspace, rel: str) -> None:
    """``raw/REL`` becomes a link to a copy outside holding the secret wherever a stage file would be."""
    target = ws.outside / "elsewhere"
    shutil.copytree(raw / rel, target)
    for file in target.iterdir():
        if file.suffix != ".json":
            file.write_text(SECRET + "\n")
    shutil.rmtree(raw / rel)
    (raw / rel).symlink_to(target)


RAW_DAMAGE = {
    "a record folder linking outside": lambda ws, raw: _link_out(raw, ws, "compiles/00000"),
    "sources/ linking outside": lambda ws, raw: _link_out(raw, ws, "sources"),
    "a stage file linking to a secret": lambda ws, raw: (
        (raw / "compiles" / "00000" / "k.ptx").unlink(),
        (raw / "compiles" / "00000" / "k.ptx").symlink_to(ws.outside / "secret.txt"),
    ),
    "a stage file that is a FIFO": lambda ws, raw: (
        (raw / "compiles" / "00000" / "k.ptx").unlink(),
        os.mkfifo(raw / "compiles" / "00000" / "k.ptx"),
    ),
    "compile.json nested 100k deep": lambda ws, raw: (raw / "compiles" / "00000" / "compile.json").write_text(
        payloads.deep()
    ),
    "compile.json invalid UTF-8": lambda ws, raw: (raw / "compiles" / "00000" / "compile.json").write_bytes(
        b"\xff\xfe{}"
    ),
}
RECORD_FIELDS = {
    "source": ["a path up and out", "an absolute path", "a list"],
    "stages": ["a list", "terminal controls"],
    "stages.ptx": ["a path up and out", "an absolute path"],
    "kernel": ["terminal controls", "python expression", "a NUL byte"],
    "signature": ["a list", "python expression"],
    "options": ["a huge integer", "NaN"],
    "arch": ["a huge integer", "negative"],
    "format": ["null"],
}


def _raw_case(what: str, damage) -> Case:
    def prepare(ws: Workspace, originals):
        raw = _raw(ws)
        (raw / "compiles" / "00000" / "compile.json").write_text(json.dumps(RECORD))
        damage(ws, raw)

        def collect():
            from irscope.interop.run.collect import collect

            collect(raw.parent, command=["python", "prog.py"], exit_code=0, wall_s=0.1)

        return api(collect)

    def after(ws: Workspace) -> list[str]:
        run = ws.work / "run"
        kept = [
            p
            for p in run.rglob("*")
            if not p.is_symlink() and p.is_file() and "raw" not in p.parts and SECRET in p.read_text(errors="ignore")
        ]
        return [f"a file from outside copied into the run: {kept}"] if kept else []

    return Case("run raw/ records@collect", what, prepare, frozenset({0, 5}), after)


def _record_value(dotted: str, value_name: str):
    def damage(ws: Workspace, raw: Path) -> None:
        value = payloads.values(ws.canary_path(), ws.outside, "../../../../")[value_name]
        edit_json(raw / "compiles" / "00000" / "compile.json", lambda d: set_field(d, dotted, value))

    return damage


def run_cases() -> list[Case]:
    cases = [
        _index_case(field, value)
        for number, field in enumerate(RUN_FIELDS)
        for value in payloads.kinds_for(number, RUN_VALUES, 2)
    ]
    cases += [_raw_case(what, damage) for what, damage in RAW_DAMAGE.items()]
    cases += [
        _raw_case(f"compile.json {field} = {value}", _record_value(field, value))
        for field, values in RECORD_FIELDS.items()
        for value in values
    ]
    return cases
