"""What ``TORCH_TRACE=DIR`` wrote (the structured trace tlparse reads), as Inductor output code.

Each file in the folder is a glog-style log whose records are one JSON object on the record line and,
for records that carry one, a payload on the lines after it, each led by a tab. The record's
``has_payload`` is the MD5 of the payload, so a trace cut off mid-write is caught here rather than
parsed as a shorter module. ``inductor_output_code`` records carry the module Inductor wrote; their
``frame_id``/``frame_compile_id``/``attempt`` name the graph the way TORCH_LOGS does (``[0/0]``,
``[0/0_1]``), so a trace opens like its TORCH_LOGS twin.

Only files directly in the folder are read (no links, nothing the records name): a trace is data.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .parse import NoTritonKernels, OutputCode, TruncatedLog, parse_modules

# V1122 08:29:44.938000 21235 site-packages/torch/_inductor/graph.py:2745] {"inductor_output_code": ...}
RECORD = re.compile(r"^(?:\[rank(?P<rank>\d+)\]:)?[VIWEC]\d{4} [\d:.]+ +\d+ [^\]]*\] (?P<json>\{.*\})\s*$")


@dataclass
class TraceRead:
    outputs: list[OutputCode]
    files: list[str]  # the trace files read, by name
    skipped: list[str] = field(default_factory=list)  # what was left out, and why (one line each)


def read_trace(folder: Path) -> TraceRead:
    """Every Inductor output-code module in the TORCH_TRACE folder ``folder``, in the order compiled."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.is_symlink() and p.suffix == ".log")
    modules: list[tuple[str, str]] = []
    skipped: list[str] = []
    for path in files:
        for meta, payload, line in _records(path.read_text(encoding="utf-8", errors="replace")):
            if "inductor_output_code" not in meta:
                continue
            if payload is None:
                skipped.append(f"{path.name}:{line}: output code whose payload is cut off or does not match its hash")
                continue
            modules.append((_graph(meta), payload))
    if not modules and skipped:
        raise TruncatedLog(
            f"{folder}: every output-code record is cut off or changed ({len(skipped)}; its payload "
            f"does not match its hash), first at {skipped[0].split(':', 2)[0]}"
        )
    if not modules:
        raise NoTritonKernels(
            f"{folder}: no inductor_output_code records in {len(files)} trace file(s) "
            "(was the program run with TORCH_TRACE set, and did torch.compile compile anything?)"
        )
    return TraceRead(parse_modules(modules), [p.name for p in files], skipped)


def _graph(meta: dict) -> str:
    """``[frame/compile]`` as TORCH_LOGS prints the compile id (``[0/0]``, ``[1/0_1]`` for a second attempt)."""
    frame, compile_id, attempt = meta.get("frame_id"), meta.get("frame_compile_id"), meta.get("attempt") or 0
    if frame is None or compile_id is None:
        return ""
    return f"[{frame}/{compile_id}{f'_{attempt}' if attempt else ''}]"


def _records(text: str):
    """``(metadata, payload or None if it fails its hash, 1-based line)`` for each record of one trace file."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = RECORD.match(lines[i])
        start = i + 1
        i += 1
        if not m:
            continue
        try:
            meta = json.loads(m["json"])
        except (ValueError, RecursionError):  # not a record's header, or one nothing could use
            continue
        if not isinstance(meta, dict):
            continue
        body = []
        while i < len(lines) and lines[i].startswith("\t"):
            body.append(lines[i][1:])
            i += 1
        expected = meta.get("has_payload")
        payload = "\n".join(body) if body or expected else None
        if (
            expected
            and payload is not None
            and hashlib.md5(payload.encode()).hexdigest() != expected
            and hashlib.md5((payload + "\n").encode()).hexdigest() != expected
        ):
            payload = None
        yield meta, payload, start
