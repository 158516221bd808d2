"""The front door and planner: what the user named as KERNEL -> the kernel, its configs, its session, where jobs run.

The CLI, the TUI and the report (``irscope report``) take KERNEL the same way and resolve it
here (the Python API's ``capture("name")`` names a kernel only, through ``frontends.resolve_kernel``).
It is one of:

- a built-in kernel (``square_kernel``) or a kernel file, ``FILE.py[:NAME]``, ``FILE.cu[:NAME]``
  (``frontends.resolve_kernel``: the frontend that claims the file finds the kernel);
- a session directory (``irscope sweep -o DIR``);
- a tritonparse trace, ``trace.ndjson[.gz|.zst][:NAME]``, read into a session in the cache;
- Triton's own cache or ``TRITON_KERNEL_DUMP`` folder, ``FOLDER[:NAME]``, each kernel read into a session
  in the cache (``interop.triton_cache``; several kernels where the caller can show several);
- several kernels' sessions: an Inductor capture (``irscope inductor -o DIR``) or a run
  (``irscope run -o DIR``), where the caller can show several (``several=True``: the TUI).

Nothing here reads the command line or prints: what a face takes besides KERNEL (``--spec``,
``--compile-timeout``, ``--executor``, ``--sample-gpu``, or the API's keyword arguments) comes in as
one ``Settings``, and notes go to its ``note``. ``plan`` turns KERNEL, ``-c``/``-s`` and ``-o`` into a
``Plan``: the kernel, the configs by one rule for every face (``configs_of``), the session new variants
go to, and the executor jobs run on. The CLI, the API and the TUI call it the same way.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .arch import normalise_arch
from .errors import KernelNotFound, ParameterError, SessionError, UsageError
from .frontends import Kernel, KernelHandle, frontend_info, resolve_kernel
from .frontends.config import config_from_table, frontend_options, listed_configs, parse_sweep, sweep_configs
from .processes.executors import Executor
from .processes.workers import DEFAULT_COMPILE_TIMEOUT
from .session import Entry, Session
from .spec import parse_value
from .types import Config, Variant, plural


@dataclass(frozen=True)
class Settings:
    """What a command (or an API call) takes besides KERNEL and its configs, as one object: the CLI makes it
    from its options, the API from its keyword arguments, and both hand it to the front door and the TUI."""

    signature: str | None = None  # -S: a kernel file's argument types, where it declares none
    spec_file: str | None = None  # --spec: the CudaSpec file to run for a CUDA C++ kernel
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT  # --compile-timeout (None: none, compiles in-process)
    executor: str | None = None  # --executor: local (None) or ray
    gpu_type: str | None = None  # --gpu-type: a Ray cluster's accelerator type to measure on
    sample_gpu: str | None = None  # --sample-gpu: whose recorded runtimes to show (None: $IRSCOPE_SAMPLE_GPU, H100)
    note: Callable[[str], None] | None = None  # where a note about what KERNEL named goes (the CLI: stderr)

    def runner(self) -> Executor:
        """The executor asked for (Ray missing or unreachable: UsageError, exit 2)."""
        from .processes.executors import executor_named

        return executor_named(self.executor, self.gpu_type)


@dataclass
class Named:
    """What KERNEL named: a kernel, a session (with its kernel, once asked for), or several sessions."""

    name: str
    table: dict[str, Any]  # the kernel's parameter table (a session keeps a copy)
    kernel: Kernel | None = None
    session: Session | None = None
    trace: str | None = None  # the tritonparse trace the session was read from (new variants go only to -o)
    sessions: list[Session] = field(default_factory=list)  # an Inductor capture's or a run's, one per kernel
    title: str = ""  # what several sessions are, in a few words ("Inductor: fn", "run: python train.py")
    about: str = ""  # and in a line ("3 kernels of `python train.py` on NVIDIA H100, ranked by GPU time")
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT
    frontend: str = ""  # the kernel's language: which options -c takes besides the table's names
    held_only: bool = False  # a Triton folder's session: no source kept, so sweep shows what it holds

    def __post_init__(self) -> None:
        if not self.frontend:
            self.frontend = (
                self.kernel.frontend if self.kernel is not None else self.session.frontend if self.session else ""
            )

    def config(self, overrides: Mapping[str, Any]) -> Config:
        """The config ``-c`` values name: the table's defaults with ``overrides`` applied, checked; for a
        session, the values its sweep fixed (``fixed``) first."""
        config = config_from_table(self.table, {**self.fixed(), **overrides}, self.name, self.frontend)
        if self.kernel is not None:
            self.kernel.check_config(config)
        return config

    def fixed(self) -> dict[str, Any]:
        """The values a session's sweep fixed with ``-c`` (its stored request), which every variant in it
        shares: they hold for any variant named against the session, on either side of a diff, so that
        ``-a triton=3.8.0`` names the variant swept with ``-c BLOCK=1024``. Data: only names of the table
        (or the frontend's options) are taken; a stored request that is malformed, or a value irscope cannot
        read, is a damaged session (``SessionError``)."""
        request = self.session.request if self.session is not None else None
        if request is None:
            return {}
        known = frontend_options(self.frontend)
        out = {k: v for k, v in request.fixed.items() if k in self.table or k in known}
        for name, value in out.items():
            like = self.table[name].get("default") if isinstance(self.table.get(name), dict) else None
            try:
                parse_value(name, value, like, name in known and known[name].text) if isinstance(value, str) else value
            except ParameterError as exc:
                raise SessionError(
                    f"session {self.session.path if self.session else ''}: a value its stored sweep request fixes is "
                    f"not one irscope reads ({exc})"
                ) from None
        return out

    def configs(
        self, sweeps: Mapping[str, Sequence[Any]], fixed: Mapping[str, Any], *, stored: bool = False
    ) -> list[Config]:
        """Every config of a sweep (``-s``: name -> values; none: the kernel's own ranges), ``fixed`` set (``-c``).

        ``stored``: the request was read from a session (data someone may have sent): a bad value there is
        that variant's failure, and the others still run; given on the command line, it is refused now."""
        configs = sweep_configs(self.table, self.name, sweeps, fixed, self.frontend)
        if self.kernel is not None and not stored:  # one line now rather than the same failure in every variant
            for config in configs:
                self.kernel.check_config(config)
        if self.kernel is not None and stored:  # a compiler build the data names is used if installed, never installed
            version = frontend_info(self.frontend).version_option
            for config in {c.options.get(version) if version else None: c for c in configs}.values():
                self.kernel.import_first(config, install=False)
        return configs

    def variant(
        self, overrides: Mapping[str, Any], arch: str | None = None, use_cache: bool = True, passes: bool = False
    ) -> Variant:
        """The variant for ``overrides``: read from the session, or captured (``passes``: with every pass)."""
        config = self.config(overrides)
        if self.session is not None:
            arch_name = normalise_arch(arch)
            entry = self.find_entry(config, overrides, arch_name)
            if entry is None:
                have = "; ".join(e.config.label() + f" @{e.arch}" for e in self.session.entries[:6])
                more = f" (+{len(self.session.entries) - 6} more)" if len(self.session.entries) > 6 else ""
                raise SessionError(
                    f"session {self.session.path} has no variant {config.label()}"
                    f"{' @' + arch_name if arch_name else ''}; it has: {have or 'none'}{more}"
                )
            variant = self.session.variant(entry)
            if passes and variant.ok and variant.passes is None:
                raise UsageError(
                    f"session {self.session.path} kept no passes for {config.label()}; "
                    f"sweep it with --passes, or name the kernel instead of the session"
                )
            return variant
        from .capturing import capture

        return capture(
            self.require_kernel(),
            config=config,
            arch=arch,
            use_cache=use_cache,
            passes=passes,
            compile_timeout=self.compile_timeout,
        )

    def find_entry(self, config: Config, overrides: Mapping[str, Any], arch: str | None) -> Entry | None:
        """The session entry for ``overrides``: the exact config if present, else the one entry
        that agrees on every value given (unspecified values need not be the defaults)."""
        assert self.session is not None
        exact = self.session.find(config, arch)
        if exact is not None:
            return exact
        given = {k: v for k, v in config.values().items() if k in overrides}
        matches = [
            e
            for e in self.session.entries
            if all(e.config.values().get(k) == v for k, v in given.items()) and (arch is None or e.arch == arch)
        ]
        if len(matches) > 1:
            varying = sorted({k for e in matches for k, v in e.config.values().items() if v != matches[0].value(k)})
            raise SessionError(
                f"{len(matches)} variants of session {self.session.path} match; "
                f"say which with -c for: {', '.join(varying) or 'arch'}"
            )
        return matches[0] if matches else None

    def require_kernel(self, signature: str | None = None) -> Kernel:
        """The kernel new variants compile with; for a session, one irscope may compile (``session_kernel``)."""
        if self.kernel is None:
            if self.session is None:
                raise UsageError(f"{self.name}: {self.title or 'several kernels'}; name one of its sessions")
            self.kernel = session_kernel(
                self.session, signature, shown_as=f"{self.trace}:{self.name}" if self.trace else None
            )
        return self.kernel


@dataclass
class Plan:
    """What one command does: the kernel KERNEL named (or its session), the configs, the session new
    variants go to (``-o``'s, else the one KERNEL named, else none) and where the jobs run."""

    named: Named
    configs: list[Config]
    session: Session | None
    executor: Executor
    settings: Settings

    @property
    def kernel(self) -> Kernel:
        return self.named.require_kernel(self.settings.signature)


def configs_of(
    named: Named,
    fixed: Mapping[str, Any],
    sweeps: Mapping[str, Sequence[Any]],
    whole_space: bool,
    stored: bool = False,
) -> list[Config]:
    """The one rule every face picks configs by: ``sweeps`` given, their combinations (``fixed`` set); else a
    kernel that lists its own configs (``@triton.autotune``: ``listed_configs``), those; else ``whole_space``
    (a sweep), every value the kernel declares; else (a bench, a capture) the one config ``fixed`` names.

    So ``irscope bench`` and ``irscope.bench`` of an autotuned kernel both time the autotuner's configs,
    as ``irscope sweep`` and ``irscope.sweep`` compile them. ``stored``: as ``Named.configs``'s."""
    if sweeps or whole_space or listed_configs(named.table) is not None:
        return named.configs(sweeps, fixed, stored=stored)
    return [named.config(fixed)]


def plan(
    kernel: str | Named,
    settings: Settings,
    *,
    fixed: Mapping[str, Any] | None = None,
    sweeps: Mapping[str, Sequence[Any]] | None = None,
    whole_space: bool = False,
    out: str | Path | None = None,
    executor: Executor | None = None,
    configs: list[Config] | None = None,
) -> Plan:
    """KERNEL (a name, or what it already named), ``fixed`` (-c) and ``sweeps`` (-s) -> a ``Plan`` whose kernel
    can compile; ``out``: a session of the kernel's own there (-o), written last, once all else is checked;
    ``executor``: one already asked for (a command asks first, before anything is compiled); ``configs``:
    those a command worked out already (``configs_of``)."""
    named = kernel if isinstance(kernel, Named) else open_named(kernel, settings, need_kernel=True)
    compiled = named.require_kernel(settings.signature)
    runner = executor if executor is not None else settings.runner()
    runner.check_kernel(compiled)
    if configs is None:
        configs = configs_of(named, fixed or {}, sweeps or {}, whole_space)
    session = Session.of_kernel(out, compiled, named.table) if out is not None else named.session
    return Plan(named, configs, session, runner, settings)


def open_named(
    text: str,
    settings: Settings | None = None,
    *,
    signature: str | None = None,
    need_kernel: bool = False,
    spec_file: str | None = None,
    several: bool = False,
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT,
    note: Callable[[str], None] | None = None,
) -> Named:
    """Resolve KERNEL (``text``); with ``need_kernel`` a session also gives the kernel to compile new variants with.

    ``spec_file``: a kernel file's spec (``--spec``), never one found beside it. ``several``: an Inductor
    capture or a run may be named (else naming one is a usage error that says what to name instead).
    ``note``: where a line about reading a trace goes. ``settings``: the signature, spec file, compile
    timeout and note a command was given, in place of the keywords.
    """
    if settings is not None:
        signature = settings.signature if signature is None else signature
        spec_file, compile_timeout, note = settings.spec_file, settings.compile_timeout, settings.note
    try:
        is_dir = Path(text).is_dir()
    except OSError as exc:  # a name longer than a path may be: no kernel, file or session has it
        raise UsageError(f"{text[:60]}...: not a kernel, kernel file or session ({exc.strerror})") from None
    trace = not is_dir and _is_trace(text)
    triton_folder = _triton_folder(text, is_dir)
    if spec_file is not None and (trace or is_dir or triton_folder):
        raise UsageError(f"--spec goes with a kernel file, not a session or trace ({text})")
    logged = None if is_dir or trace or triton_folder else _mlir_log(text)
    if logged is not None:
        named = _from_mlir_log(*logged, several, compile_timeout)
    elif triton_folder is not None:
        named = _from_triton_folder(*triton_folder, several, compile_timeout, note)
    elif trace:
        from .interop.tritonparse.events import split_argument
        from .interop.tritonparse.session import trace_session

        path, name = split_argument(text)
        session = trace_session(path, name, note=lambda line: note and note(f"{path.name}: {line}"))
        named = Named(
            session.kernel.name, session.parameters, None, session, trace=str(path), compile_timeout=compile_timeout
        )
    elif is_dir:
        named = _directory(Path(text), several, compile_timeout)
    else:
        kernel = resolve_kernel(text, signature, spec_file)
        return Named(kernel.name, kernel.parameter_table(), kernel, compile_timeout=compile_timeout)
    if need_kernel:
        named.require_kernel(signature)
    return named


def _triton_folder(text: str, is_dir: bool) -> tuple[Path, str | None] | None:
    """``FOLDER[:KERNEL]`` where FOLDER is Triton's cache or dump folder (not an irscope session): else None."""
    if is_dir and Session.is_session(Path(text)):
        return None
    from .interop.triton_cache import is_triton_folder, split_argument

    folder, kernel = split_argument(text)
    return (folder, kernel) if is_triton_folder(folder) else None


def _from_triton_folder(
    folder: Path, kernel: str | None, several: bool, compile_timeout: float | None, note: Callable[[str], None] | None
) -> Named:
    """Triton's cache or a TRITON_KERNEL_DUMP folder: one session per kernel (``interop.triton_cache``)."""
    from .interop.triton_cache import folder_sessions, read_folder

    if kernel is None and not several:
        names = read_folder(folder).kernels
        if len(names) > 1:
            raise KernelNotFound(
                f"{folder} holds compiles of {len(names)} kernels; name one: {_quoted(f'{folder}:{names[0]}')} "
                f"(kernels: {', '.join(names[:20])}{', ...' if len(names) > 20 else ''})"
            )
        kernel = names[0]
    sessions = folder_sessions(folder, kernel, note=lambda line: note and note(f"{folder.name}: {line}"))
    return _held_sessions(
        folder,
        sessions,
        kernel is not None,
        f"Triton folder: {_printable(folder)}",
        f"{plural(len(sessions), 'kernel')} Triton compiled into {_printable(folder)}",
        compile_timeout,
    )


def _mlir_log(text: str) -> tuple[Path, str | None] | None:
    """``LOG[:N]`` where LOG holds MLIR_ENABLE_DUMP's output, else None."""
    from .interop.mlir_log import is_mlir_log, split_argument

    path, which = split_argument(text)
    return (path, which) if is_mlir_log(str(path)) else None


def _from_mlir_log(path: Path, which: str | None, several: bool, compile_timeout: float | None) -> Named:
    """A program's MLIR_ENABLE_DUMP output: each kernel a session of its compiles' TTIR, TTGIR and passes."""
    from .interop.mlir_log import choose, log_sessions, read_log

    if which is None and not several:
        which = str(choose(read_log(path), None, path).index)  # the only compile, or a line naming them
    sessions = log_sessions(path, which)
    return _held_sessions(
        path,
        sessions,
        which is not None,
        f"MLIR pass dumps: {_printable(path)}",
        f"{plural(len(sessions), 'kernel')} in {_printable(path)}",
        compile_timeout,
    )


def _held_sessions(
    source: Path, sessions: list[Session], one: bool, title: str, about: str, compile_timeout: float | None
) -> Named:
    """What a folder or log of another tool's compiles names: one kernel's session, compiling nothing new (``one``),
    or every kernel's, listed under ``title``."""
    if one:
        session = sessions[0]
        return Named(
            session.kernel.name,
            session.parameters,
            None,
            session,
            trace=str(source),
            compile_timeout=compile_timeout,
            held_only=True,
        )
    return Named(source.name, {}, sessions=sessions, title=title, about=about, compile_timeout=compile_timeout)


def _is_trace(text: str) -> bool:
    from .interop.tritonparse.events import is_trace

    return is_trace(text)


def _directory(directory: Path, several: bool, compile_timeout: float | None) -> Named:
    """A session, or an Inductor capture's or a run's sessions."""
    if Session.is_session(directory):
        session = Session.open(directory)
        return Named(session.kernel.name, session.parameters, None, session, compile_timeout=compile_timeout)
    # Imported only past the session check: opening a session (irscope tui DIR) needs neither importer.
    from .interop.inductor.capture import is_inductor_dir
    from .interop.run.collect import is_run_dir

    kind = "an Inductor capture" if is_inductor_dir(directory) else "an irscope run" if is_run_dir(directory) else None
    if kind is None:
        raise SessionError(f"{directory} is a directory but not an irscope session (no session.json)")
    if not several:
        raise UsageError(
            f"{directory} is {kind} of several kernels, one session each: name one of those "
            f"folders, or open them all with irscope tui {shlex.quote(str(directory))}"
        )
    sessions, title, about = (_inductor if kind == "an Inductor capture" else _run)(directory)
    return Named(directory.name, {}, sessions=sessions, title=title, about=about, compile_timeout=compile_timeout)


def _inductor(directory: Path) -> tuple[list[Session], str, str]:
    from .interop.inductor.capture import read_index

    index = read_index(directory)
    sessions = _sessions(directory, index)
    origin = _printable(index["origin"].get("function") or index["origin"].get("log"))
    return sessions, f"Inductor: {origin}", f"{len(sessions)} Inductor kernel{'s' if len(sessions) != 1 else ''}"


def _run(directory: Path) -> tuple[list[Session], str, str]:
    from .interop.run.collect import read_index

    index = read_index(directory)
    sessions = [Session.open(directory / k.session) for k in index.kernels if k.session]
    if not sessions:
        raise UsageError(f"{directory}: the run recorded no kernel irscope could keep (see its run.json)")
    program = _printable(" ".join(index.command)[:80])
    where = f"on {_printable(index.device)}" if index.device else _printable(index.mode)
    kernels = f"{len(sessions)} kernel{'s' if len(sessions) != 1 else ''}"
    return sessions, f"run: {program}", f"{kernels} of `{program}` {where}, ranked by GPU time"


def _sessions(directory: Path, index: dict[str, Any]) -> list[Session]:
    """The sessions an index (inductor.json, run.json, already checked by its reader) names, in its order."""
    return [Session.open(directory / k["session"]) for k in index["kernels"] if k.get("session")]


def _printable(text: object) -> str:
    """A name read from data, for a title line: a control character would move the cursor or ring the bell."""
    return "".join(c if c.isprintable() else "?" for c in str(text))


def session_kernel(session: Session, signature: str | None = None, shown_as: str | None = None) -> Kernel:
    """The kernel a session's new variants are compiled with; never a file imported on the session's say-so.

    A session is data: the kernel file it names may be anyone's. So irscope compiles
    one of its own built-in kernels when the session was recorded from exactly that
    source, rebuilds a kernel recorded with its argument types (an Inductor kernel)
    from the session's copy of the source without running any of it, where its
    frontend can (Triton; ``Frontend.rebuild``), and otherwise asks for the kernel
    file by name, which is the user's say-so to import it.
    """
    from . import frontends

    recorded = session.kernel
    # A trace's session lives in the cache: messages name the trace, and new variants go to a directory of one's own.
    where, into = (shown_as, "DIR") if shown_as else (session.path, session.path)
    if signature is None:
        for builtin in frontends.builtin_kernels():
            if builtin.name == recorded.name and builtin.identity().source_hash == recorded.source_hash:
                return builtin
        if session.frontend not in frontends.FRONTENDS:
            raise SessionError(
                f"{where}: its kernel's frontend {session.frontend!r} is none irscope knows "
                f"({', '.join(frontends.FRONTENDS)})"
            )
        if session.signature is not None:
            handle = KernelHandle(
                session.frontend,
                recorded.file,
                recorded.name,
                {
                    "signature": session.signature,
                    "source_text": session.source(),
                    **session.rebuild,
                    **({"launches": session.recorded_launches} if session.recorded_launches else {}),
                },
            )
            try:
                # Only a frontend that rebuilds from the stored text alone: any other would open recorded.file.
                rebuilt = frontends.frontend(session.frontend).rebuild(handle)
            except UsageError as exc:  # the stored source does not parse, or holds code irscope refuses
                raise SessionError(
                    f"{where}: {exc}; to compile it from the file instead, name it: "
                    f"irscope sweep {_quoted(_kernel_argument(recorded.file, recorded.name))} -S ... -o {_quoted(into)}"
                ) from None
            if rebuilt is not None:
                return rebuilt
    raise UsageError(
        f"{where} was recorded from {recorded.file}:{recorded.name}; irscope does not import a kernel file a session "
        f"names. To add variants, name the file yourself: irscope sweep {_quoted(_kernel_argument(recorded.file, recorded.name))} "
        f"{'-S ... ' if signature else ''}-o {_quoted(into)}"
    )


def _kernel_argument(file: str, name: str) -> str:
    """How the user names a recorded kernel: ``package.module:NAME`` for a file of an installed package (imported
    as the package imports it), else ``FILE:NAME``. Only a suggestion: nothing is imported here."""
    from .frontends.files import module_of_file

    module = module_of_file(file)
    return f"{module or file}:{name}"


def _quoted(text: object) -> str:
    """A command-line word as a shell reads it back: the suggested command is pasted, and the names in it are data."""
    return shlex.quote(str(text))


__all__ = ["Named", "Plan", "Settings", "configs_of", "open_named", "parse_sweep", "plan", "session_kernel"]
