"""Files other tools wrote: a tritonparse trace (plain, gzip, zstd), an Inductor log, a TORCH_TRACE folder.

Each is a real recording from samples/ with one field or the whole file damaged, read by the
commands that take it. A trace's code and paths are data (its source is rebuilt, its paths are
labels); a gzip that inflates past what any trace holds is refused while it inflates.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

from . import payloads
from .case import SAMPLES, Case, replace_with, set_field
from .workspace import Workspace, cli, process

TRACE = SAMPLES / "tritonparse" / "fused_op_kernel_mapped.ndjson.gz"
SQUARE_LOG = SAMPLES / "inductor" / "square.log"
TORCH_TRACE = SAMPLES / "inductor" / "traces" / "mlp_layernorm"
TRACE_READ = frozenset({0, 2, 5})

EVENT_FIELDS = {
    "event_type": "compilation event_type",
    "payload.metadata.name": "kernel name",
    "payload.metadata.num_warps": "num_warps",
    "payload.metadata.target": "target",
    "payload.python_source.code": "recorded source",
    "payload.python_source.file_path": "source path label",
    "payload.python_source.start_line": "source start line",
    "payload.file_content": "stage files",
    "payload.file_path": "stage path labels",
    "payload.source_mappings": "source mappings",
    "stack": "stack",
}
LAUNCH_FIELDS = ["grid", "compilation_metadata", "extracted_args", "name"]
TRACE_VALUES = [
    "a list",
    "an object",
    "null",
    "a huge integer",
    "NaN",
    "negative",
    "a path up and out",
    "an absolute path",
    "terminal controls",
    "HTML that opens a comment",
    "a NUL byte",
    "python expression",
]


def _events() -> list[dict]:
    return [json.loads(line) for line in gzip.open(TRACE, "rt")]


def _write(path: Path, events: list[dict], container: str) -> Path:
    text = "".join(json.dumps(e) + "\n" for e in events).encode()
    if container == "gzip":
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(text))
    elif container == "zstd":
        import zstandard

        path.write_bytes(zstandard.ZstdCompressor().compress(text))
    else:
        path.write_bytes(text)
    return path


def _trace_case(what: str, change, container: str, command: str) -> Case:
    def prepare(ws: Workspace, originals):
        events = _events()
        change(ws, events)
        trace = _write(ws.work / "trace.ndjson", events, container)
        return _read_trace(ws, trace, command)

    return Case(f"tritonparse trace ({container})@{command}", what, prepare, TRACE_READ)


def _read_trace(ws: Workspace, trace: Path, command: str):
    if command == "dump":
        return cli("dump", f"{trace}:fused_op_kernel", "-c", "ACTIVATION=relu", "--stage", "all", "--source")
    if command == "diff":
        return cli("diff", f"{trace}:fused_op_kernel", "-a", "ACTIVATION=relu", "-b", "ACTIVATION=none")
    if command == "annotate":
        return cli("annotate", f"{trace}:fused_op_kernel", "-c", "ACTIVATION=relu")
    if command == "export":
        return cli("export", f"{trace}:fused_op_kernel", "-o", ws.allow(ws.work / "again.ndjson"))
    return cli(
        "sweep",
        f"{trace}:fused_op_kernel",
        "-s",
        "BLOCK_SIZE=16",
        "-c",
        "ACTIVATION=relu",
        "-o",
        ws.allow(ws.work / "out"),
        "-j",
        "1",
    )


def _event_value(kind: str, dotted: str, value_name: str):
    def change(ws: Workspace, events: list[dict]) -> None:
        value = payloads.values(ws.canary_path(), ws.outside, "../")[value_name]
        for event in events:
            if event["event_type"] == kind:
                set_field(event, dotted, value)

    return change


def _stage_keys(ws: Workspace, events: list[dict]) -> None:
    for event in events:
        if event["event_type"] == "compilation":
            content = event["payload"]["file_content"]
            for key in list(content):
                content[f"../../outside/{key}"] = content.pop(key)


def _source_payload(ws: Workspace, events: list[dict]) -> None:
    for event in events:
        if event["event_type"] == "compilation":
            source = event["payload"]["python_source"]
            source["code"] = payloads.python(ws.canary_path()) + "\n" + source["code"]


def tritonparse_cases() -> list[Case]:
    cases = []
    commands = ["dump", "diff", "annotate", "export"]
    containers = ["plain", "gzip"]
    turn = 0
    for number, dotted in enumerate(EVENT_FIELDS):
        for value_name in payloads.kinds_for(number, TRACE_VALUES, every=3):
            cases.append(
                _trace_case(
                    f"compilation {dotted} = {value_name}",
                    _event_value("compilation", dotted, value_name),
                    containers[turn % 2],
                    commands[turn % len(commands)],
                )
            )
            turn += 1
    for field in LAUNCH_FIELDS:
        for value_name in ("an object", "a huge integer", "NaN", "terminal controls"):
            cases.append(
                _trace_case(
                    f"launch {field} = {value_name}",
                    _event_value("launch", field, value_name),
                    containers[turn % 2],
                    commands[turn % len(commands)],
                )
            )
            turn += 1
    cases.append(_trace_case("stage file names that climb out", _stage_keys, "plain", "dump"))
    cases.append(_trace_case("stage file names that climb out", _stage_keys, "plain", "export"))
    for command in ("dump", "sweep"):
        cases.append(_trace_case("code at the top of the recorded source", _source_payload, "gzip", command))
    for command in ("dump", "diff"):
        cases.append(_trace_case("an untouched trace", lambda ws, e: None, "zstd", command))
    cases += [_file_case(what, command) for what in TRACE_FILES for command in ("dump", "export")]
    cases += [_bomb_case(what) for what in BOMBS]
    return cases


# ---------------------------------------------------------------- the trace file itself


def _raw_text() -> bytes:
    return gzip.open(TRACE).read()


TRACE_FILES = {
    "empty": lambda ws, p: p.write_bytes(b""),
    "invalid UTF-8": lambda ws, p: p.write_bytes(_raw_text()[:100] + b"\xff\xfe" + _raw_text()[100:]),
    "NUL bytes": lambda ws, p: p.write_bytes(b"\x00" * 100 + _raw_text()),
    "a line nested 100k deep": lambda ws, p: p.write_bytes(payloads.deep().encode() + b"\n" + _raw_text()),
    "duplicate keys in each event": lambda ws, p: p.write_bytes(
        _raw_text().replace(b'{"event_type": ', b'{"event_type": "launch", "event_type": ')
    ),
    "a gzip cut short": lambda ws, p: p.write_bytes(TRACE.read_bytes()[: len(TRACE.read_bytes()) // 2]),
    "a gzip of garbage": lambda ws, p: p.write_bytes(b"\x1f\x8b\x08\x00" + os.urandom(200)),
    "a zstd frame of garbage": lambda ws, p: p.write_bytes(b"\x28\xb5\x2f\xfd" + os.urandom(200)),
    "a FIFO": lambda ws, p: os.mkfifo(p),
    "a directory": lambda ws, p: p.mkdir(),
    "a link to a secret": lambda ws, p: p.symlink_to(ws.outside / "secret.txt"),
    "a link to /dev/zero": lambda ws, p: p.symlink_to("/dev/zero"),
}


def _file_case(what: str, command: str) -> Case:
    def prepare(ws: Workspace, originals):
        trace = ws.work / "trace.ndjson"
        TRACE_FILES[what](ws, trace)
        return _read_trace(ws, trace, command)

    return Case(f"tritonparse trace file@{command}", what, prepare, TRACE_READ)


def _bomb(path: Path, size: int, line: bytes) -> None:
    """A gzip of ``size`` bytes of ``line`` repeated: a few MB on disk, ``size`` once inflated."""
    chunk = line * ((1 << 20) // len(line))
    with gzip.open(path, "wb", compresslevel=6) as f:
        for _ in range(size // len(chunk)):
            f.write(chunk)


BOMBS = {
    "1.5 GB of zeros on one line": (1536 << 20, b"0"),
    "1.5 GB of one small event repeated": (1536 << 20, b'{"event_type": "x"}\n'),
}


def _bomb_case(what: str) -> Case:
    def prepare(ws: Workspace, originals):
        trace = ws.work / "bomb.ndjson.gz"
        cached = originals.kernels / f"bomb-{list(BOMBS).index(what)}.gz"
        if not cached.exists():  # inflating takes seconds: one per test run
            _bomb(cached, *BOMBS[what])
        shutil.copyfile(cached, trace)
        # A subprocess under a memory cap: a bomb that inflates in memory fails there, not on the machine.
        return process("dump", f"{trace}:fused_op_kernel", cwd=ws.work, limit_memory=True, timeout=180)

    return Case("tritonparse trace gzip bomb@dump", what, prepare, TRACE_READ, slow=True)


# ---------------------------------------------------------------- Inductor's log and TORCH_TRACE


LOG_DAMAGE = {
    "truncated": lambda t: t[: len(t) // 2],
    "NUL bytes": lambda t: t.replace(b"def triton_", b"def \x00triton_", 1),
    "invalid UTF-8": lambda t: t.replace(b"import triton", b"import \xff\xfetriton", 1),
    "terminal controls in the kernel's name": lambda t: t.replace(
        b"triton_poi_fused_pow_0", b"triton_poi\x1b]0;pwned\x07_0"
    ),
    "HTML in the kernel's source": lambda t: t.replace(b"xnumel = 16777216", b"xnumel = 16777216  # <!--<script>"),
    "a 5 MB line": lambda t: b"V" + b"x" * (5 << 20) + b"\n" + t,
    "empty": lambda t: b"",
    "binary": lambda t: os.urandom(4096),
    "nested 100k deep": lambda t: payloads.deep().encode() + b"\n" + t,
}


def _log_case(what: str) -> Case:
    def prepare(ws: Workspace, originals):
        log = ws.work / "inductor.log"
        if what == "a FIFO":
            os.mkfifo(log)
        elif what == "a link to a secret":
            log.symlink_to(ws.outside / "secret.txt")
        else:
            log.write_bytes(LOG_DAMAGE[what](SQUARE_LOG.read_bytes()))
        return cli("inductor", "--log", log, "-o", ws.allow(ws.work / "out"), "--json")

    return Case("inductor log@inductor --log", what, prepare, frozenset({0, 1, 2, 5}))


def _torch_trace_case(what: str) -> Case:
    def prepare(ws: Workspace, originals):
        folder = ws.work / "torch_trace"
        shutil.copytree(TORCH_TRACE, folder)
        (log,) = folder.glob("*.log")
        TORCH_TRACE_DAMAGE[what](ws, log)
        return cli("inductor", "--trace", folder, "-o", ws.allow(ws.work / "out"), "--json")

    return Case("TORCH_TRACE folder@inductor --trace", what, prepare, frozenset({0, 1, 2, 5}))


def _replaced(make):
    return replace_with(lambda log: log, make)


TORCH_TRACE_DAMAGE = {
    "a log truncated": lambda ws, log: log.write_bytes(log.read_bytes()[: log.stat().st_size // 2]),
    "a log with NUL bytes": lambda ws, log: log.write_bytes(log.read_bytes().replace(b"{", b"{\x00", 5)),
    "a log with invalid UTF-8": lambda ws, log: log.write_bytes(b"\xff\xfe" + log.read_bytes()),
    "a log with terminal controls": lambda ws, log: log.write_bytes(
        log.read_bytes().replace(b'"name": "', b'"name": "\x1b]0;pwned\x07', 3)
    ),
    "a log with code in the output code (payload edited, MD5 stale)": lambda ws, log: log.write_bytes(
        log.read_bytes().replace(
            b"import triton\n", f"import triton\n{payloads.python(ws.canary_path())}\n".encode(), 1
        )
    ),
    "a log that is a FIFO": _replaced(lambda ws, p: os.mkfifo(p)),
    "a log that links to a secret": _replaced(lambda ws, p: p.symlink_to(ws.outside / "secret.txt")),
    "a log that is a directory": _replaced(lambda ws, p: p.mkdir()),
    "a log nested 100k deep": lambda ws, log: log.write_bytes(b"V1 x.py:1] " + payloads.deep().encode() + b"\n"),
}


def inductor_cases() -> list[Case]:
    cases = [_log_case(what) for what in [*LOG_DAMAGE, "a FIFO", "a link to a secret"]]
    cases += [_torch_trace_case(what) for what in TORCH_TRACE_DAMAGE]
    return cases
