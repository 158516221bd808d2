"""A session: a directory of captured variants, readable by people and by git.

    SESSION_DIR/
      session.json              the index: kernel, parameters, one entry per variant
      source/<kernel file>.py   the Python source, once
      variants/<id>/            variant.json + one text file per stage (store.py)

The index keeps, per variant, what a table needs (status, registers, spills,
shared memory, vector widths, line counts, runtimes) so opening a session reads
one JSON file; listings are read when a variant is opened. Every write is atomic
and the index is rewritten after each variant, so an interrupted sweep keeps
every variant it finished. Opening a session parses JSON and reads text only:
it never imports the kernel or runs anything.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..errors import SessionError
from ..ir.stats import stage_stats
from ..records import Facts, Measurement
from ..store import atomic_write, read_json, read_variant, write_variant
from ..types import Config, KernelId, Stage, Status, Variant

SESSION_FORMAT = "irscope.session/1"
INDEX = "session.json"


@dataclass
class Entry:
    """One variant of a session, as the index describes it."""

    id: str
    config: Config
    arch: str
    status: Status
    error: str | None = None
    facts: Facts = field(default_factory=Facts)
    measurement: Measurement | None = None  # once measured on a GPU (see measure/)

    @classmethod
    def of(cls, variant: Variant) -> "Entry":
        """A new, unmeasured entry for ``variant``: what a session stores, and what a live row wraps."""
        return cls(variant_id(variant.config, variant.arch), variant.config, variant.arch, variant.status,
                   None if variant.error is None else str(variant.error), variant_facts(variant))

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "config": self.config.to_json(), "arch": self.arch, "status": self.status.value,
                "error": self.error, "facts": self.facts.to_json(),
                "measurement": None if self.measurement is None else self.measurement.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Entry":
        measurement = data.get("measurement")
        return cls(str(data["id"]), Config.from_json(data["config"]), str(data["arch"]), Status(data["status"]),
                   data.get("error"), Facts.from_json(data.get("facts") or {}),
                   Measurement.from_json(measurement) if measurement else None)

    def value(self, name: str) -> Any:
        return self.config.values().get(name)


def variant_facts(v: Variant) -> Facts:
    """The numbers a sweep table shows for ``v``."""
    r = v.resources
    facts: dict[str, Any] = {}
    if r is not None:
        facts.update(registers=r.registers, spill_stores=r.spill_stores, spill_loads=r.spill_loads,
                     stack=r.stack_frame, shared=r.shared)
    if Stage.PTX in v.listings:
        stats = stage_stats(Stage.PTX, v.listings[Stage.PTX])
        facts.update(ptx_lines=len(v.listings[Stage.PTX].splitlines()), ptx_instructions=stats.count,
                     load_bytes=stats.widest("load"), store_bytes=stats.widest("store"))
    if v.compile_info is not None:
        facts.update(compile_s=v.compile_info.compile_seconds, mode=v.compile_info.mode.value)
    return Facts(**facts)


def variant_id(config: Config, arch: str) -> str:
    """A readable, filesystem-safe id: ``BLOCK_SIZE-128_num_warps-4_..._sm_90``."""
    parts = [f"{k}-{v}" for k, v in {**config.constexprs, **config.options, **config.sizes}.items()]
    text = re.sub(r"[^A-Za-z0-9_.-]", "", "_".join(parts + [arch]))
    return text[:180]


class Session:
    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = Path(path)
        self.data = data
        self.entries = [Entry.from_json(e) for e in data.get("variants", [])]

    # ------------------------------------------------------------ opening and creating

    @staticmethod
    def is_session(path: str | Path) -> bool:
        return (Path(path) / INDEX).is_file()

    @classmethod
    def open(cls, path: str | Path) -> "Session":
        path = Path(path)
        index = path / INDEX
        if not index.is_file():
            raise SessionError(f"{path} is not an irscope session (no {INDEX})")
        data = read_json(index)
        if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise SessionError(f"{index} is not an irscope session file (format {found!r}, expected {SESSION_FORMAT!r})")
        try:
            return cls(path, data)
        except (KeyError, TypeError, ValueError) as exc:
            raise SessionError(f"{index} is malformed: {type(exc).__name__}: {exc}") from None

    @classmethod
    def create(cls, path: str | Path, kernel: KernelId, python: str, parameters: Mapping[str, Any],
               signature: list[dict[str, Any]] | None = None, frontend: str = "triton") -> "Session":
        """A new session, or the existing one at ``path`` if it holds the same kernel source."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise SessionError(f"{path} exists and is not a directory")
        if Session.is_session(path):
            existing = cls.open(path)
            if existing.kernel.name != kernel.name:
                raise SessionError(f"{path} holds a session of {existing.kernel.name}, not {kernel.name}")
            if existing.kernel.source_hash != kernel.source_hash:
                raise SessionError(
                    f"{path} was recorded from another version of {kernel.name} ({kernel.file} has changed since); "
                    "use a new session directory"
                )
            return existing
        if path.exists() and any(path.iterdir()):
            raise SessionError(f"{path} is not empty and is not an irscope session")
        source_name = Path(kernel.file).name
        data = {
            "format": SESSION_FORMAT,
            "kernel": {"name": kernel.name, "file": kernel.file, "source_hash": kernel.source_hash, "frontend": frontend,
                       "source": f"source/{source_name}",
                       **({"signature": signature} if signature is not None else {})},
            "parameters": dict(parameters),
            "variants": [],
        }
        atomic_write(path / "source" / source_name, python)
        session = cls(path, data)
        session.save()
        return session

    # ------------------------------------------------------------ reading

    @property
    def kernel(self) -> KernelId:
        k = self.data["kernel"]
        return KernelId(k["name"], k["file"], k["source_hash"])

    @property
    def frontend(self) -> str:
        """The frontend that compiled the kernel (sessions written before there were several: Triton)."""
        return str(self.data["kernel"].get("frontend", "triton"))

    @property
    def signature(self) -> list[dict[str, Any]] | None:
        """The kernel's argument types, for a kernel that declares no KernelSpec (e.g. Inductor's)."""
        return self.data["kernel"].get("signature")

    @property
    def parameters(self) -> dict[str, Any]:
        """name -> {"default", "sweep", "kind"} as the kernel declared them when recorded."""
        return dict(self.data.get("parameters") or {})

    def source(self) -> str:
        source = self.path / self.data["kernel"].get("source", "")
        try:
            return source.read_text(encoding="utf-8")
        except OSError:
            return ""

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    def find(self, config: Config, arch: str | None = None) -> Entry | None:
        key = config.key()
        return next((e for e in self.entries if e.config.key() == key and (arch is None or e.arch == arch)), None)

    def variant(self, entry: Entry | str) -> Variant:
        entry = self.entry(entry) if isinstance(entry, str) else entry
        if entry is None:
            raise SessionError(f"{self.path}: no such variant")
        return read_variant(self.path / "variants" / entry.id, source=self.source())

    # ------------------------------------------------------------ writing

    def add(self, variant: Variant) -> Entry:
        """Store ``variant`` (replacing one with the same config and arch) and update the index."""
        entry = Entry.of(variant)
        write_variant(self.path / "variants" / entry.id, variant, with_source=False, with_cubin=False)
        old = self.entry(entry.id)
        if old is not None and old.status is not Status.FAILED:
            entry.measurement = old.measurement
        self.entries = [e for e in self.entries if e.id != entry.id] + [entry]
        self.save()
        return entry

    def update(self, entry: Entry) -> None:
        self.entries = [entry if e.id == entry.id else e for e in self.entries]
        self.save()

    def save(self) -> None:
        self.data["variants"] = [e.to_json() for e in self.entries]
        atomic_write(self.path / INDEX, json.dumps(self.data, indent=1, default=str))
