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
it never imports the kernel or runs anything, and every path the index names
(the source file, variant folders) must stay inside the session directory.

Writers take an exclusive lock on ``.lock`` (fcntl) and merge the index on disk
with their change, so two sweeps writing into one session at once both keep
every variant they finished. Under the lock, leftovers of a writer that was
killed (temporary files, a variant folder swapped out) are cleaned up or put back:
only names carrying irscope's temporary marker (store.LEFTOVER), never a link
followed. A session whose ``.lock``, ``source/``, ``variants/`` or ``ncu/`` is a link, or
not what it should be, is refused before anything in it is touched.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SessionError
from ..frontends import compiler_version, register_stages
from ..ir.dialects import stage_stats
from ..records import AutotunerRun, Facts, Measurement, code_hash
from ..storage.files import (
    LEFTOVER,
    MAX_JSON_BYTES,
    OLD_MARK,
    SAFE_NAME,
    atomic_write,
    contained,
    own_folder,
    read_bytes,
    read_json,
    read_text,
    safe_name,
)
from ..storage.variants import read_variant, write_variant
from ..types import Config, HtmlDisplay, KernelId, Stage, Status, Variant, short_repr
from .header import SweepRequest, TraceOrigin

if TYPE_CHECKING:
    from ..frontends import Kernel

SESSION_FORMAT = "irscope.session/1"
INDEX = "session.json"
LOCK = ".lock"
SUBFOLDERS = ("source", "variants", "ncu")  # what writers write into: never through a link


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
    retry: bool = False  # failed for a reason outside the kernel (disk, cache, timeout): compile it again

    @classmethod
    def of(cls, variant: Variant) -> Entry:
        """A new, unmeasured entry for ``variant``: what a session stores, and what a live row wraps."""
        error = variant.error
        return cls(
            variant_id(variant.config, variant.arch),
            variant.config,
            variant.arch,
            variant.status,
            None if error is None else str(error),
            variant_facts(variant),
            retry=error is not None and not error.is_fact,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "config": self.config.to_json(),
            "arch": self.arch,
            "status": self.status.value,
            "error": self.error,
            "facts": self.facts.to_json(),
            "measurement": None if self.measurement is None else self.measurement.to_json(),
            **({"retry": True} if self.retry else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        measurement = data.get("measurement")
        error = data.get("error")
        return cls(
            safe_name(data["id"], "variant id"),
            Config.from_json(data["config"]),
            str(data["arch"]),
            Status(data["status"]),
            None if error is None else str(error),
            Facts.from_json(data.get("facts") or {}),
            Measurement.from_json(measurement) if measurement else None,
            bool(data.get("retry")),
        )

    def value(self, name: str) -> Any:
        """A setting of the variant: the config's, or one its compile derived (a @triton.heuristics value)."""
        values = self.config.values()
        return values[name] if name in values else (self.facts.heuristics or {}).get(name)

    def settings(self) -> dict[str, Any]:
        """Every setting by name: the config's constexprs, what the kernel's heuristics set, then the rest."""
        return {**self.config.constexprs, **(self.facts.heuristics or {}), **self.config.values()}


def variant_facts(v: Variant) -> Facts:
    """The numbers a sweep table shows for ``v``."""
    r = v.resources
    facts: dict[str, Any] = {}
    if r is not None:
        facts.update(
            registers=r.registers,
            spill_stores=r.spill_stores,
            spill_loads=r.spill_loads,
            stack=r.stack_frame,
            shared=r.shared,
            sgprs=r.sgprs,
            scratch=r.scratch,
        )
    if Stage.PTX in v.listings:
        stats = stage_stats(Stage.PTX, v.listings[Stage.PTX])
        facts.update(
            ptx_lines=len(v.listings[Stage.PTX].splitlines()),
            ptx_instructions=stats.count,
            ptx_sha256=code_hash(v.listings[Stage.PTX]),
        )
    elif Stage.AMDGCN in v.listings:
        stats = stage_stats(Stage.AMDGCN, v.listings[Stage.AMDGCN])
        facts["amdgcn_lines"] = len(v.listings[Stage.AMDGCN].splitlines())
    else:
        stats = None
    if stats is not None:  # the widest global access per thread (NVIDIA) or lane (AMD), from the machine code
        facts.update(load_bytes=stats.widest("load"), store_bytes=stats.widest("store"))
    if v.compile_info is not None:
        facts.update(compile_s=v.compile_info.compile_seconds, mode=v.compile_info.mode.value)
        if v.compile_info.heuristics:
            facts["heuristics"] = dict(v.compile_info.heuristics)
    return Facts(**facts)


def variant_id(config: Config, arch: str) -> str:
    """A readable, filesystem-safe id: ``BLOCK_SIZE-128_num_warps-4_..._sm_90``.

    Where making it safe drops characters (a Gluon layout's brackets: ``[1, 21], [6, 2]`` and ``[1, 2], [16, 2]``
    would read alike) or cuts it short, a digest of the whole config follows, so two configs never share one."""
    parts = [f"{k}-{v}" for k, v in {**config.constexprs, **config.options, **config.sizes}.items()]
    whole = "_".join(parts + [arch])
    text = re.sub(r"[^A-Za-z0-9_.-]", "", whole)
    if text == whole and len(text) <= 180:
        return text
    return f"{text[:169]}_{hashlib.sha256(whole.encode()).hexdigest()[:10]}"


class Session(HtmlDisplay):
    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = Path(path)
        self.data = data
        self.entries = _entries(data)
        self._index: tuple[dict[str, Entry], dict[str, list[Entry]]] = ({}, {})
        self._index_stamp: tuple | None = None
        self._written: bytes | None = None  # the digest of the index as this object last wrote it

    def __repr__(self) -> str:
        return short_repr("Session", self.kernel.name, str(self.path), f"{len(self.entries)} variants")

    def __len__(self) -> int:
        """Its number of variants."""
        return len(self.entries)

    def __bool__(self) -> bool:  # an empty session is still a session: ``if session`` asks whether there is one
        return True

    def __iter__(self) -> Iterator[Variant]:
        """Every variant, in the order they were added (a damaged one raises SessionError when reached)."""
        return (self.variant(e) for e in list(self.entries))

    def __getitem__(self, index: int) -> Variant:
        return self.variant(self.entries[index])

    def to_dataframe(self) -> Any:
        """The session as a pandas DataFrame: a row per variant, in the order they were added, with every setting
        (constexprs, heuristics' values, launch options, sizes), ``arch``, the sweep table's facts (``status``,
        ``registers``, ``spills``, ``shared``, ``ldst``, ``ptx_lines``, ``compile_s`` ...), the runtime where one
        was measured into the session (``median_us``, ``gbps``, ``pct_copy``, ``min_us``, ``p20_us``, ``p80_us``,
        ``tflops``) and ``note`` (why a row is not OK, or how it was timed). Unknown values are None/NaN.
        pandas is optional: without it, a UsageError that says what to install."""
        try:
            import pandas
        except ModuleNotFoundError:
            from ..errors import UsageError

            raise UsageError("Session.to_dataframe needs pandas, which is not installed: pip install pandas") from None
        from .table import FACT_COLUMNS, FACTS, cell, note

        keys = [c.key for c in FACT_COLUMNS] + [k for k in sorted(FACTS) if k not in {c.key for c in FACT_COLUMNS}]
        keys = [k for k in keys if k != "heuristics"]
        timed = ["median_us", "gbps", "pct_copy", "min_us", "p20_us", "p80_us", "tflops"]
        rows = [
            {**e.settings(), "arch": e.arch, **{k: cell(e, k) for k in keys + timed}, "note": note(e)}
            for e in list(self.entries)
        ]
        return pandas.DataFrame(rows, columns=list(dict.fromkeys(k for row in rows for k in row)) or None)

    def measured(self) -> list[tuple[Variant, Measurement]]:
        """Each variant that has a measurement (bench's, on a GPU), with it, in the order they were added."""
        return [(self.variant(e), e.measurement) for e in list(self.entries) if e.measurement is not None]

    # ------------------------------------------------------------ opening and creating

    @staticmethod
    def is_session(path: str | Path) -> bool:
        return (Path(path) / INDEX).is_file()

    @classmethod
    def open(cls, path: str | Path) -> Session:
        path = Path(path)
        if not (path / INDEX).is_file():
            raise SessionError(f"{path} is not an irscope session (no {INDEX})")
        session = cls(path, _read_index(path))
        register_stages(session.frontend)  # its frontend's own stages (CuTe DSL's IR): a screen lists them at once
        return session

    @classmethod
    def create(
        cls,
        path: str | Path,
        kernel: KernelId,
        python: str,
        parameters: Mapping[str, Any],
        signature: list[dict[str, Any]] | None = None,
        frontend: str = "triton",
        rebuild: Mapping[str, Any] | None = None,
    ) -> Session:
        """A new session, or the existing one at ``path`` if it holds the same kernel source.

        ``rebuild``: how the kernel is rebuilt from the stored source (``{"inductor": True}``, ...).
        """
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise SessionError(f"{path} exists and is not a directory")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionError(f"cannot create {path}: {exc.strerror or exc}") from None
        with _writing(path), _locked(path):  # two sweeps creating one session: the second finds the first's
            if Session.is_session(path):
                existing = cls(path, _read_index(path))
                if existing.kernel.name != kernel.name:
                    raise SessionError(f"{path} holds a session of {existing.kernel.name}, not {kernel.name}")
                if existing.kernel.source_hash != kernel.source_hash:
                    raise SessionError(
                        f"{path} was recorded from another version of {kernel.name} ({kernel.file} has changed "
                        "since); use a new session directory"
                    )
                return existing
            if any(p.name != LOCK for p in path.iterdir()):
                raise SessionError(f"{path} is not empty and is not an irscope session")
            source_name = _source_name(kernel.file)
            rebuild, closure_texts = _closure_files(rebuild, kernel.file)
            data = {
                "format": SESSION_FORMAT,
                "kernel": {
                    "name": kernel.name,
                    "file": kernel.file,
                    "source_hash": kernel.source_hash,
                    "frontend": frontend,
                    "source": f"source/{source_name}",
                    **({"signature": signature} if signature is not None else {}),
                    **({"rebuild": dict(rebuild)} if rebuild else {}),
                },
                "parameters": dict(parameters),
                "variants": [],
            }
            session = cls(path, data)
            atomic_write(path / "source" / source_name, python)
            for relative, text in closure_texts.items():
                atomic_write(path / relative, text)
            session._write()
            return session

    @classmethod
    def of_kernel(cls, path: str | Path, kernel: Kernel, table: Mapping[str, Any]) -> Session:
        """``create`` for a resolved kernel, with its parameter ``table``: what sweep, bench and the TUI keep.

        The signature (-S) is kept, so the session resumes without it, from its stored source.
        """
        return cls.create(
            path,
            kernel.identity(),
            kernel.source(),
            table,
            signature=kernel.handle().extra.get("signature"),
            frontend=kernel.frontend,
        )

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
    def rebuild(self) -> dict[str, Any]:
        """How the stored source is rebuilt: only the options irscope knows, with the values it writes."""
        stored = self.data["kernel"].get("rebuild")
        stored = stored if isinstance(stored, dict) else {}
        out: dict[str, Any] = {}
        if stored.get("inductor") is True:
            out["inductor"] = True
        if stored.get("heuristics") == "recorded":
            out["heuristics"] = "recorded"
        closure = stored.get("closure")
        if isinstance(closure, dict) and isinstance(closure.get("files"), dict):
            # what the kernel reads beyond its file, as a program recorded it: data, checked where it is rebuilt
            texts = {}
            for file, relative in closure["files"].items():
                if not isinstance(file, str) or not isinstance(relative, str):
                    raise SessionError(
                        f"{self.path / INDEX}: the kernel's recorded closure names a file that is no path"
                    )
                texts[file] = read_text(contained(self.path, relative))
            out["closure"] = {"texts": texts, "scopes": closure.get("scopes")}
        return out

    @property
    def recorded_launches(self) -> dict[str, Any]:
        """The launches a program made of the kernel (irscope run), by config: what bench reruns."""
        stored = self.data.get("recorded_launches")
        return (
            {k: v for k, v in stored.items() if isinstance(k, str) and isinstance(v, dict)}
            if isinstance(stored, dict)
            else {}
        )

    @property
    def request(self) -> SweepRequest | None:
        """The sweep that made the session (to resume it); None where none was kept. A stored request that is
        not one sweep writes is damage (SessionError), not a sweep of something else."""
        stored = self.data.get("request")
        if not stored:
            return None
        request = SweepRequest.from_json(stored)
        if request is None:
            raise SessionError(f"{self.path}/{INDEX}: the stored sweep request is malformed")
        return request

    def keep_request(self, request: SweepRequest) -> None:
        """Keep the sweep that adds to the session (written with the index by the next ``save``)."""
        self.data["request"] = request.to_json()

    def keep_recorded_launches(self, launches: Mapping[str, Any]) -> None:
        """Keep the launches a program made of the kernel, by config (``recorded_launches``)."""
        self.data["recorded_launches"] = dict(launches)

    @property
    def trace(self) -> TraceOrigin | None:
        """The tritonparse trace the session was read from, and what reading it noted; None: not a trace's."""
        return TraceOrigin.from_json(self.data.get("tritonparse"))

    def keep_trace(self, origin: TraceOrigin) -> None:
        self.data["tritonparse"] = origin.to_json()

    @property
    def autotuner(self) -> AutotunerRun | None:
        """What the kernel's own autotuner timed and picked, where bench ran it; None where it did not."""
        stored = self.data.get("autotuner")
        try:
            return AutotunerRun.from_json(stored) if isinstance(stored, dict) else None
        except (KeyError, TypeError, ValueError):
            raise SessionError(f"{self.path}/{INDEX}: the stored autotuner run is malformed") from None

    def keep_autotuner(self, run: AutotunerRun) -> None:
        self.data["autotuner"] = run.to_json()

    @property
    def parameters(self) -> dict[str, Any]:
        """name -> {"default", "sweep", "kind"} as the kernel declared them when recorded."""
        return dict(self.data.get("parameters") or {})

    def source(self) -> str:
        """The kernel's source text as recorded; a SessionError if it is missing, damaged or points outside."""
        relative = self.data["kernel"].get("source")
        if not isinstance(relative, str) or not relative:
            raise SessionError(f"{self.path / INDEX} names no source file for the kernel")
        return read_text(contained(self.path, relative))

    def entry(self, entry_id: str) -> Entry | None:
        return self._lookup()[0].get(entry_id)

    def find(self, config: Config, arch: str | None = None) -> Entry | None:
        found = self._lookup()[1].get(config.key(), [])
        return next((e for e in found if arch is None or e.arch == arch), None)

    def _lookup(self) -> tuple[dict[str, Entry], dict[str, list[Entry]]]:
        """Entries by id and by config key, built once per list of entries: a sweep resuming
        thousands of variants asks for each, and a scan per question would be quadratic."""
        # The list object itself is kept (its id is never reused while held); an append changes its length.
        stamp = (self.entries, len(self.entries), *map(id, self.entries[:1] + self.entries[-1:]))
        if self._index_stamp is None or stamp[0] is not self._index_stamp[0] or stamp[1:] != self._index_stamp[1:]:
            by_id: dict[str, Entry] = {}
            by_config: dict[str, list[Entry]] = {}
            for e in self.entries:
                by_id.setdefault(e.id, e)
                by_config.setdefault(e.config.key(), []).append(e)
            self._index, self._index_stamp = (by_id, by_config), stamp
        return self._index

    def variant(self, entry: Entry | str, partial: bool = False) -> Variant:
        """The entry's variant; damage is a SessionError. ``partial``: a damaged kernel source
        is only the source stage's error (what the TUI wants: the other stages still show)."""
        found = self.entry(entry) if isinstance(entry, str) else entry
        if found is None:
            raise SessionError(f"{self.path}: no such variant")
        register_stages(self.frontend)  # a frontend's own stages (CuTe DSL's IR), where it is not loaded yet
        return read_variant(self.path / "variants" / found.id, source=self.source, root=self.path, partial=partial)

    # ------------------------------------------------------------ writing

    def add(self, variant: Variant) -> Entry:
        """Store ``variant`` (replacing one with the same config and arch) and update the index."""
        return self.add_many([variant])[0]

    def add_many(self, variants: Iterable[Variant]) -> list[Entry]:
        """Store ``variants`` as ``add`` does, under one lock and with one index write.

        The index is rewritten whole, so adding n variants one by one costs n rewrites of a growing
        file; a writer that has several at once (an import, a replay) writes them together.
        """
        entries: list[Entry] = []
        with _writing(self.path), _locked(self.path):
            for variant in variants:
                entry = Entry.of(variant)
                # The cubin is kept only where nothing else can make it again on the GPU: a variant another
                # Triton compiled is launched from it there (frontends/triton/binary.py).
                keep_cubin = compiler_version(variant.frontend, variant.config.options) is not None
                write_variant(self.path / "variants" / entry.id, variant, with_source=False, with_cubin=keep_cubin)
                entries.append(entry)
            self._reload()
            new = {e.id: e for e in entries}
            for old in self.entries:
                if old.id in new and old.status is not Status.FAILED:
                    new[old.id].measurement = old.measurement
            self.entries = [e for e in self.entries if e.id not in new] + list(new.values())
            self._write()
        return entries

    def update(self, entry: Entry) -> None:
        """Replace ``entry`` (a new measurement, say) in the index."""
        with _writing(self.path), _locked(self.path):
            self._reload()
            self.entries = [entry if e.id == entry.id else e for e in self.entries]
            if self.entry(entry.id) is None:
                self.entries.append(entry)
            self._write()

    def save(self) -> None:
        """Write the index's other fields (the sweep request, say); entries other writers added are kept."""
        with _writing(self.path), _locked(self.path):
            self._reload()
            self._write()

    def _reload(self) -> None:
        """Take the entries on disk (another writer's too), keeping ours that are not there yet."""
        if not (self.path / INDEX).is_file():
            return
        # The index as this session last wrote it holds no one else's entries: parsing it again
        # (thousands of entries, on every variant a sweep adds) would only give ours back.
        if (
            self._written is not None
            and _digest(read_bytes(contained(self.path, INDEX), MAX_JSON_BYTES)) == self._written
        ):
            return
        on_disk = _entries(_read_index(self.path))
        ids = {e.id for e in on_disk}
        self.entries = on_disk + [e for e in self.entries if e.id not in ids]

    def _write(self) -> None:
        self.data["variants"] = [e.to_json() for e in self.entries]
        text = json.dumps(self.data, indent=1, default=str).encode("utf-8")
        atomic_write(self.path / INDEX, text)
        self._written = _digest(text)


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _closure_files(rebuild: Mapping[str, Any] | None, own: str) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """``rebuild`` with a closure's helper texts moved to files of their own (``source/closure/``), and those files;
    the kernel's own file (``own``) is the session's source already."""
    if not rebuild or not isinstance(rebuild.get("closure"), Mapping):
        return (dict(rebuild) if rebuild else None), {}
    closure = rebuild["closure"]
    files, texts = {}, {}
    for file, text in dict(closure.get("texts") or {}).items():
        if file == own:
            continue
        digest = hashlib.sha256(str(text).encode("utf-8", errors="surrogatepass")).hexdigest()[:24]
        files[str(file)] = f"source/closure/{digest}.py"
        texts[f"source/closure/{digest}.py"] = str(text)
    return {**rebuild, "closure": {"files": files, "scopes": closure.get("scopes") or {}}}, texts


def _source_name(kernel_file: str) -> str:
    """The stored source's file name: the kernel file's own, made a plain name where it is none
    (a kernel from an IPython cell is in ``<ipython-input-3-...>``, which no store may name)."""
    name = Path(kernel_file).name
    if SAFE_NAME.fullmatch(name) and name not in (".", ".."):
        return name
    plain = re.sub(r"[^A-Za-z0-9_.+-]", "_", name).lstrip(".+-")
    return safe_name(plain or "kernel_source", "kernel file name")


def parameters_problem(parameters: Mapping[str, Any]) -> str | None:
    """What is wrong with a session's parameter table, as opening the session would refuse it; None if nothing.
    Checked also where a table comes from data before a session is written with it (interop/run/compiles.py)."""
    for name, parameter in parameters.items():
        if not (
            isinstance(parameter, dict)
            and "default" in parameter
            and isinstance(parameter.get("kind"), str)
            and isinstance(parameter.get("sweep", []), list)
        ):
            return f"parameter {name!r} must be an object with its default, kind and sweep values"
    return None


def _read_index(path: Path) -> dict[str, Any]:
    index = contained(path, INDEX)
    data = read_json(index)
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise SessionError(f"{index} is not an irscope session file (format {found!r}, expected {SESSION_FORMAT!r})")
    kernel = data.get("kernel")
    if not isinstance(kernel, dict) or not all(isinstance(kernel.get(k), str) for k in ("name", "file", "source_hash")):
        raise SessionError(f"{index} is malformed: 'kernel' must name the kernel, its file and source hash")
    if not isinstance(data.get("variants", []), list) or not isinstance(data.get("parameters") or {}, dict):
        raise SessionError(f"{index} is malformed: 'variants' must be a list and 'parameters' an object")
    problem = parameters_problem(data.get("parameters") or {})
    if problem is not None:
        raise SessionError(f"{index} is malformed: {problem}")
    return data  # its entries are parsed by every caller at once (Session.__init__, _reload): damage shows now


def _entries(data: Mapping[str, Any]) -> list[Entry]:
    try:
        return [Entry.from_json(e) for e in data.get("variants", [])]
    except SessionError as exc:
        raise SessionError(f"session index is malformed: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"session index is malformed: {type(exc).__name__}: {exc}") from None


@contextlib.contextmanager
def _locked(path: Path):
    """Hold the session's write lock; clean up what a killed writer left behind."""
    _check_layout(path)
    try:
        # O_NOFOLLOW: a .lock that is a link is refused, its target never created.
        fd = os.open(path / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        raise SessionError(
            f"{path / LOCK} cannot be opened as irscope's lock (a link?): {exc.strerror or exc}; "
            "refusing to write to the session"
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SessionError(f"{path / LOCK} is not a regular file; refusing to write to the session")
        fcntl.flock(fd, fcntl.LOCK_EX)
        _recover(path)
        yield
    finally:
        os.close(fd)  # releases the lock


def _check_layout(path: Path) -> None:
    """Refuse a session whose folders would lead a writer elsewhere: a linked source/, variants/ or ncu/."""
    for name in SUBFOLDERS:
        own_folder(path / name)


@contextlib.contextmanager
def _writing(path: Path):
    """OSErrors while writing a session (a full or read-only disk) as one line."""
    try:
        yield
    except OSError as exc:
        raise SessionError(f"cannot write to session {path}: {exc.strerror or exc}") from None


def _recover(path: Path) -> None:
    """Under the lock no other writer is mid-write: any temporary file or folder is a dead writer's.

    A writer killed between moving a variant folder aside (``.ID.irscope-old-PID``) and
    moving its new copy in leaves the variant missing: the old copy is put back.
    """
    for folder in (path, path / "variants", path / "source"):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for leftover in entries:
            m = LEFTOVER.fullmatch(leftover.name)
            if m is None:
                continue
            target = folder / m["name"]
            is_dir = leftover.is_dir(follow_symlinks=False)
            if m["mark"] == OLD_MARK and is_dir and not os.path.lexists(target):
                os.rename(leftover.path, target)
            elif is_dir:
                shutil.rmtree(leftover.path, ignore_errors=True)
            else:
                os.unlink(leftover.path)  # a file, or a link itself: never what it points to
