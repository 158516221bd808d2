"""KERNEL on the command line: a kernel to compile, a session directory or a tritonparse trace to read from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..errors import SessionError, UsageError
from ..arch import normalise_arch
from ..frontends import Kernel, KernelHandle
from ..kernel import config_from_table, parse_assignments, resolve_kernel
from ..session import Session
from ..types import Config, Variant
from .output import echo


@dataclass
class Target:
    """What KERNEL named: a kernel (``ref``), a session, or a session with its kernel."""

    name: str
    table: dict[str, Any]
    ref: Kernel | None = None
    session: Session | None = None
    trace: str | None = None  # the tritonparse trace the session was read from (new variants go only to -o)

    def config(self, overrides: Mapping[str, Any]) -> Config:
        config = config_from_table(self.table, overrides, self.name)
        if self.ref is not None:
            self.ref.check_config(config)
        return config

    def variant(self, overrides: Mapping[str, Any], arch: str | None = None, use_cache: bool = True,
                passes: bool = False) -> Variant:
        """The variant for ``overrides``: read from the session, or captured (``passes``: with every pass)."""
        config = self.config(overrides)
        if self.session is not None:
            entry = self.find_entry(config, overrides, _arch_name(arch))
            if entry is None:
                have = "; ".join(e.config.label() + f" @{e.arch}" for e in self.session.entries[:6])
                more = f" (+{len(self.session.entries) - 6} more)" if len(self.session.entries) > 6 else ""
                raise SessionError(
                    f"session {self.session.path} has no variant {config.label()}"
                    f"{' @' + _arch_name(arch) if arch else ''}; it has: {have or 'none'}{more}"
                )
            variant = self.session.variant(entry)
            if passes and variant.ok and variant.passes is None:
                raise UsageError(f"session {self.session.path} kept no passes for {config.label()}; "
                                 f"sweep it with --passes, or name the kernel instead of the session")
            return variant
        from ..capture import capture

        return capture(self.ref, config=config, arch=arch, use_cache=use_cache, passes=passes)


    def find_entry(self, config: Config, overrides: Mapping[str, Any], arch: str | None):
        """The session entry for ``overrides``: the exact config if present, else the one entry
        that agrees on every value given (unspecified values need not be the defaults)."""
        exact = self.session.find(config, arch)
        if exact is not None:
            return exact
        given = {k: v for k, v in config.values().items() if k in overrides}
        matches = [e for e in self.session.entries
                   if all(e.config.values().get(k) == v for k, v in given.items()) and (arch is None or e.arch == arch)]
        if len(matches) > 1:
            varying = sorted({k for e in matches for k, v in e.config.values().items() if v != matches[0].value(k)})
            raise SessionError(f"{len(matches)} variants of session {self.session.path} match; "
                               f"say which with -c for: {', '.join(varying) or 'arch'}")
        return matches[0] if matches else None


def _arch_name(arch: str | None) -> str | None:
    return normalise_arch(arch)


def open_target(kernel: str, signature: str | None = None, need_kernel: bool = False) -> Target:
    """Resolve KERNEL; with ``need_kernel`` a session also gives the kernel to compile new variants with.

    A kernel file's spec is the one ``--spec`` names (kernel_options), never one found beside it.
    """
    from ..interop.tritonparse.events import is_trace, split_argument
    from .options import spec_file_given

    spec_file = spec_file_given()
    if spec_file is not None and (is_trace(kernel) or Path(kernel).is_dir()):
        raise UsageError(f"--spec goes with a kernel file, not a session or trace ({kernel})")

    try:
        is_dir = Path(kernel).is_dir()
    except OSError as exc:  # a name longer than a path may be: no kernel, file or session has it
        raise UsageError(f"{kernel[:60]}...: not a kernel, kernel file or session ({exc.strerror})") from None
    if is_trace(kernel) and not is_dir:
        from ..interop.tritonparse.session import trace_session

        path, name = split_argument(kernel)
        session = trace_session(path, name, note=lambda line: echo(f"irscope: {path.name}: {line}", err=True))
        ref = session_kernel(session, signature, shown_as=f"{path}:{session.kernel.name}") if need_kernel else None
        return Target(session.kernel.name, session.parameters, ref, session, trace=str(path))
    if is_dir:
        if not Session.is_session(kernel):
            raise SessionError(f"{kernel} is a directory but not an irscope session (no session.json)")
        session = Session.open(kernel)
        ref = session_kernel(session, signature) if need_kernel else None
        return Target(session.kernel.name, session.parameters, ref, session)
    ref = resolve_kernel(kernel, signature, spec_file)
    return Target(ref.name, ref.parameter_table(), ref)


def session_kernel(session: Session, signature: str | None = None, shown_as: str | None = None) -> Kernel:
    """The kernel a session's new variants are compiled with; never a file imported on the session's say-so.

    A session is data: the kernel file it names may be anyone's. So irscope compiles
    one of its own built-in kernels when the session was recorded from exactly that
    source, rebuilds a kernel recorded with its argument types (an Inductor kernel)
    from the session's copy of the source without running any of it, where its
    frontend can (Triton; ``Frontend.rebuild``), and otherwise asks for the kernel
    file by name, which is the user's say-so to import it.
    """
    from .. import frontends

    k = session.kernel
    # A trace's session lives in the cache: messages name the trace, and new variants go to a directory of one's own.
    where, into = (shown_as, "DIR") if shown_as else (session.path, session.path)
    if signature is None:
        for builtin in frontends.builtin_kernels():
            if builtin.name == k.name and builtin.identity().source_hash == k.source_hash:
                return builtin
        if session.frontend not in frontends.FRONTENDS:
            raise SessionError(f"{where}: its kernel's frontend {session.frontend!r} is none irscope knows "
                               f"({', '.join(frontends.FRONTENDS)})")
        if session.signature is not None:
            handle = KernelHandle(session.frontend, k.file, k.name,
                                  {"signature": session.signature, "source_text": session.source(),
                                   **session.rebuild,
                                   **({"launches": session.recorded_launches} if session.recorded_launches else {})})
            try:
                # Only a frontend that rebuilds from the stored text alone: any other would open k.file.
                rebuilt = frontends.frontend(session.frontend).rebuild(handle)
            except UsageError as exc:  # the stored source does not parse, or holds code irscope refuses
                raise SessionError(f"{where}: {exc}; to compile it from the file instead, name it: "
                                   f"irscope sweep {_quoted(f'{k.file}:{k.name}')} -S ... -o {_quoted(into)}") from None
            if rebuilt is not None:
                return rebuilt
    raise UsageError(
        f"{where} was recorded from {k.file}:{k.name}; irscope does not import a kernel file a session "
        f"names. To add variants, name the file yourself: irscope sweep {_quoted(f'{k.file}:{k.name}')} "
        f"{'-S ... ' if signature else ''}-o {_quoted(into)}"
    )


def _quoted(text: object) -> str:
    """A command-line word as a shell reads it back: the suggested command is pasted, and the names in it are data."""
    import shlex

    return shlex.quote(str(text))


def overrides(assignments: tuple[str, ...]) -> dict[str, str]:
    return parse_assignments(assignments)
