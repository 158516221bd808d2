"""What a frontend says about itself before any of its code is imported.

Each frontend's package (``frontends/<name>/__init__.py``) holds one ``FrontendInfo``, found
through the ``irscope.frontends`` entry point group (registry.py), so that listing the
languages, checking a ``-c`` option, naming an extra to install or choosing who takes a Python
object costs no compiler import. The frontend itself (``Frontend``: finding and compiling
kernels) and its recorder for ``irscope run`` are behind ``load`` and ``recorder``, imported
when first used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ParameterError, UsageError

if TYPE_CHECKING:
    from ..types import Variant
    from .base import Frontend


@dataclass(frozen=True)
class OptionSpec:
    """An option a frontend's kernels take with ``-c``/``-s`` besides their own parameters.

    ``values`` are what it may be (None: what ``check`` accepts), ``words`` how an error says so.
    ``check`` turns a value into the one compiled with (raising ParameterError), where a value
    set is not enough (a CUDA block shape ``16x16``, a Triton release ``3.8.0``).
    """

    words: str
    values: Sequence[Any] | None = None
    check: Callable[[Any], Any] | None = None
    vendor: str = ""  # "nvidia" or "amd": only a compile for that vendor's GPUs takes it; "": both
    text: bool = False  # its value is text as typed (a version, a shape), never a number

    def checked(self, name: str, value: Any) -> Any:
        if self.check is not None:
            return self.check(value)
        if self.values is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value not in self.values
        ):
            raise ParameterError(f"{name} must be {self.words}, got {value!r}")
        return value


class Recorder(Protocol):
    """What a frontend installs in a program ``irscope run`` runs (interop/run/hook.py): it records the
    kernels the program compiles and launches, and writes what it recorded when the program ends."""

    def install(self) -> None: ...

    def finish(self) -> None: ...


# An NVIDIA arch a repro can name (sm_90, sm_90a, sm_100f); group 1 is its compute capability.
SM_ARCH = re.compile(r"sm_(\d{2,3})[af]?")


def reproducible(variant: Variant) -> tuple[int, str]:
    """What every repro needs of ``variant``: its compute capability and its stored source, or a UsageError
    saying which it lacks (it did not compile, it is not an NVIDIA variant, it holds no source)."""
    from ..types import Stage

    if not variant.ok or variant.compile_info is None:
        raise UsageError(f"{variant.kernel.name} {variant.config.label()} did not compile: nothing to reproduce")
    arch = SM_ARCH.fullmatch(variant.arch)
    if arch is None:
        raise UsageError(f"repro rebuilds NVIDIA variants (sm_XX); {variant.arch} is not one")
    source = variant.listings.get(Stage.SOURCE)
    if not source:
        raise UsageError(f"{variant.kernel.name}: no stored source to rebuild it from")
    return int(arch[1]), source


@dataclass(frozen=True)
class ReproFacts:
    """What a session holds about a variant beyond the variant itself, for ``irscope repro`` (all data)."""

    # The kernel's stored signature (``Session.signature``): a run's is the JIT's specialization, its constant 1s too.
    signature: Sequence[Mapping[str, Any]] | None = None
    # What the kernel read beyond its file, as ``irscope run`` recorded it (``Session.rebuild``'s closure: the
    # texts of other files and, per file, each name's binding; closure.py).
    closure: Mapping[str, Any] | None = None
    # The launches a program made of the kernel (``irscope run``), by config (``Session.recorded_launches``): each
    # its grid and each argument's dtype, shape and strides.
    launches: Mapping[str, Any] | None = None
    # The kernel itself where KERNEL named code (a kernel file, a built-in), not a session: its spec's example
    # arguments give the constants the JIT made of them (a unit stride), which a variant does not record.
    kernel: Any = None


@dataclass(frozen=True)
class FrontendInfo:
    """A kernel language, described: the registry's entry for it."""

    name: str  # its key: KernelHandle.frontend, Variant.frontend ("triton")
    display_name: str  # how people name it ("Triton", "CUDA C++")
    source_language: str  # the dialect its kernels' source is written in (ir/dialects.py: "python", "cuda")
    load: Callable[[], Frontend]  # the frontend itself, imported when first used
    suffixes: tuple[str, ...] = ()  # the kernel files it opens by their suffix
    objects: str = ""  # the Python objects it takes as kernels, in words ("a @triton.jit function")
    # Is ``obj`` one of its kernels? Asked only where the language's own module is imported already
    # (``imported``): a Triton function exists only once ``triton`` is, and no compiler is imported to say no.
    takes_object: Callable[[Any], bool] | None = None
    imported: str = ""  # the module whose presence in sys.modules makes ``takes_object`` worth asking
    requires: tuple[str, ...] = ()  # the top-level modules of its optional dependencies
    install_hint: str = ""  # what to install where one of them is missing ("pip install irscope[numba]")
    options: Mapping[str, OptionSpec] = field(default_factory=dict)  # change what is compiled
    launch_options: Mapping[str, OptionSpec] = field(default_factory=dict)  # change only how it launches
    # The option naming which build of its compiler compiles a variant (Triton's ``triton=3.8.0``), "": none.
    version_option: str = ""
    # Its compiler's package, and the releases of it irscope is tested with, in words (``irscope --version``).
    compiler_package: str = ""
    tested_releases: str = ""
    # What ``irscope run`` installs in the program to record this language's kernels: ``recorder(raw, gpu_free)``
    # with the run's raw/ folder and, without a GPU, the card the stand-in answers as (gpu_models.parse_gpu's
    # spelling: "H100", "MI300X:8").
    recorder: Callable[[Path, str | None], Recorder] | None = None
    # ``irscope repro``: the text of one standalone Python file that rebuilds a stored variant with this
    # language's own compiler, needing nothing of irscope's (None: it writes none yet).
    reproducer: Callable[[Variant, ReproFacts], str] | None = None
    # The language's own bank-conflict count for each shared-memory move of a variant (Gluon's ``gl.bank_conflicts``),
    # as JSON objects, which ``irscope annotate`` prints beside its own bank finding (None: the language has none).
    bank_conflicts: Callable[[Variant], list[dict[str, Any]]] | None = None
    # The module that registers the stages only its compiles have (CuTe DSL's ``cute_ir``), imported to read a
    # stored variant of it back in a process that has not loaded the frontend (no compiler is imported).
    stages: str = ""

    def all_options(self) -> dict[str, OptionSpec]:
        return {**self.options, **self.launch_options}


def check_vendor(info: FrontendInfo | None, options: Mapping[str, Any], vendor: str, arch: str) -> None:
    """One line for an option the compile for ``arch`` (a ``vendor``'s GPU) does not take."""
    known = info.all_options() if info is not None else {}
    for name in options:
        owner = known[name].vendor if name in known else ""
        if owner and owner != vendor:
            whose = "AMD" if owner == "amd" else "NVIDIA"
            raise ParameterError(f"{name} is a launch option of {whose} GPUs only; {arch} does not take it")
