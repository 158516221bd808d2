"""The seam between a kernel language and the rest of irscope.

A frontend (Triton today; CUDA C++ and Numba next) knows how to find kernels in a
file, what can be set and swept for each, how to compile one config for a target
into stages and metadata, what keys the cache, and how to launch the kernel on a
GPU with example inputs. Everything after capture (ir, diff, annotate, session,
the TUI) sees only the ``Variant`` a compile becomes, never which frontend made it.

In the spirit of harlequin's ``HarlequinAdapter``: one abstract class per role,
implemented once per frontend, and nothing outside ``irscope/frontends/<name>/``
imports a frontend's own modules.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..arch import Target, Vendor
from ..errors import KernelNotFound, UsageError
from ..records import AutotunerRun
from ..stages import Stage
from ..types import CaptureError, Config, KernelId, PassLog


@dataclass(frozen=True)
class KernelHandle:
    """A kernel named so another process can find it again: picklable, and plain data.

    ``extra`` is the frontend's own (a Triton kernel's user-given signature, say);
    it must be JSON-like, because sessions store handles too.
    """

    frontend: str
    file: str
    name: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        """A hashable identity, for workers that keep kernels between jobs."""
        return json.dumps([self.frontend, self.file, self.name, self.extra], sort_keys=True, default=str)


@dataclass
class Compiled:
    """What one compile left behind (also when it failed part way).

    ``stages`` are the frontend's listings (source excluded: capture adds it);
    ``cubin`` feeds SASS and ptxas's report. ``options`` are the launch options
    the compiler used, as data (``CompileInfo.options``).
    """

    stages: dict[Stage, str] = field(default_factory=dict)
    cubin: bytes | None = None
    shared: int = 0  # dynamic shared memory requested at launch (ptxas does not see it)
    options: dict[str, Any] = field(default_factory=dict)
    threads_per_block: int | None = None
    compiler: str = ""  # "triton 3.6.0"
    ptxas_log: str | None = None
    seconds: float = 0.0
    error: CaptureError | None = None
    signature: dict[str, str] = field(default_factory=dict)
    divisible_by_16: tuple[str, ...] = ()
    heuristics: dict[str, Any] = field(default_factory=dict)  # constexprs the kernel's decorators set
    gpu_registers: int | None = None
    gpu_spills: int | None = None
    # Where no ptxas report was seen (the CuTe DSL assembles inside its own library): the cubin's own
    # .nv.info, as cuobjdump -res-usage reads it ({"registers": n, "stack_frame": bytes}).
    cubin_resources: dict[str, int] = field(default_factory=dict)
    # The cluster shape the launch asks for, where the host code says it (CuTe DSL's cluster=); else the PTX's
    # .reqnctapercluster is read (capturing/pipeline.py: nvidia_resources).
    cluster: tuple[int, int, int] | None = None
    passes: PassLog | None = None  # every MLIR pass, where the compile was asked to record them
    # Why a stage the frontend lists was not made though the compile went on (TileLang's AMDGCN where no
    # hipcc is here): its reason, in place of "compile failed".
    stage_errors: dict[Stage, str] = field(default_factory=dict)

    @property
    def produced(self) -> bool:
        """Did the compile get far enough to describe a kernel (its metadata is known)?"""
        return bool(self.options) or self.cubin is not None


@dataclass
class Launch:
    """One config of a kernel, ready to run on the GPU with example inputs (needs torch).

    ``first`` launches once, compiling if need be, and returns the loaded kernel (its
    ``n_regs``/``n_spills`` where the frontend has them); ``run`` launches once with
    nothing else on the host's path, because it is what gets timed. ``outputs`` are
    the tensors it writes, in the order the reference returns them, and ``expected``
    what they should hold (None: no reference).
    """

    first: Callable[[], Any]
    run: Callable[[], Any]
    outputs: dict[str, Any]
    expected: Sequence[Any] | None
    tolerance: Callable[[str], tuple[float, float]]
    bytes_moved: float | None  # None: not known (a recorded launch rerun), so no GB/s
    flops: float | None = None

    @classmethod
    def from_spec(
        cls, spec: Any, config: Config, ns: Any, expected: Any, first: Callable[[], Any], run: Callable[[], Any]
    ) -> Launch:
        """A launch of example inputs ``ns`` a KernelSpec or CudaSpec built: its outputs, tolerances and traffic."""
        values = config.values()
        return cls(
            first=first,
            run=run,
            outputs={n: getattr(ns, n) for n in spec.outputs()},
            expected=expected,
            tolerance=lambda name: spec.tolerance_for(spec.tensors[name].dtype),
            bytes_moved=spec.bytes_for(values),
            flops=spec.flops_for(values),
        )


class Kernel(abc.ABC):
    """One kernel, resolved by its frontend: what capture, measure and the CLI need of it."""

    frontend: str
    stages: tuple[Stage, ...]  # what its compile produces, SASS included where there is a cubin
    vendors: tuple[Vendor, ...] = (Vendor.NVIDIA,)  # whose GPUs it compiles for
    name: str
    file: str
    # Set for a Python function handed over as an object (objects.py), defined in a notebook cell or
    # a running script: no worker process could import it again (``compiles_here``).
    defined_in_process: bool = False

    @abc.abstractmethod
    def identity(self) -> KernelId:
        """Name, file and a hash that changes whenever the kernel or anything it calls changes."""

    @abc.abstractmethod
    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """Every name ``-c`` accepts: name -> {"default", "sweep", "kind"} (constexpr, option or size).

        A kernel with a list of configs of its own (Triton's ``@triton.autotune``) gives
        each name those configs set a ``"configs"`` column, its value in each config in
        order; a sweep without ``-s`` is then exactly that list (``listed_configs``).
        Two more kinds are never set with ``-c``: ``heuristic`` (the kernel works the
        value out from its arguments) and ``mark`` (a ``"configs"`` column that labels
        each listed config, such as ``pruned``; ``config_from_table`` puts it in the sizes).
        """

    @abc.abstractmethod
    def handle(self) -> KernelHandle:
        """How a worker process (or a session) finds this kernel again."""

    @abc.abstractmethod
    def cache_material(self) -> dict[str, Any]:
        """Everything besides config and arch that changes what a compile produces."""

    @abc.abstractmethod
    def compile(self, config: Config, target: Target) -> Compiled:
        """Compile one config for ``target``, in this process."""

    def with_spec_file(self, path: Path) -> Kernel:
        """This kernel with the CudaSpec the Python file ``path`` declares (``--spec``: the user's say-so)."""
        raise UsageError(f"--spec names a spec for a CUDA C++ kernel; {self.name} is a {self.frontend} kernel")

    def check_config(self, config: Config) -> None:  # noqa: B027 (a hook: most kernels take any config)
        """Refuse (ParameterError) a config whose values the compiler could not be handed as they are."""

    def import_first(self, config: Config, install: bool = True) -> str | None:
        """A folder a worker must import from before anything else to compile ``config`` (None: none).

        Only Triton kernels name which compiler builds them (``-c triton=3.8.0``: its private folder);
        another frontend's config cannot carry that option (``config.config_from_table`` refuses it).
        ``install=False``: the config came from data, which may name a folder but never have one made.
        """
        return None

    @property
    def records_passes(self) -> bool:
        """Can a compile record every pass of the compiler (``compile_passes``)?"""
        return False

    def compile_passes(self, config: Config, target: Target) -> Compiled:
        """``compile`` ahead of time, recording every pass of the compiler in ``Compiled.passes``."""
        raise NotImplementedError(f"{self.name}: only Triton and TileLang kernels record their compiler's passes")

    @property
    def generated_by(self) -> str:
        """The generator that wrote the kernel's source (``"inductor"``), whose origin comments map it back to
        the user's own file (``Variant.generated_by``, ir/sourcemap.py: ORIGINS); "": the user wrote it."""
        return ""

    @property
    def description(self) -> str:
        """One line on what the kernel does, where its file says."""
        return ""

    @property
    def can_launch(self) -> bool:
        """Does the kernel declare example inputs, so that it can run on a GPU?"""
        return False

    @property
    def compiles_here(self) -> bool:
        """Must it compile and run in this process? A kernel defined in a notebook cell has no file a worker
        process could import it from: capture and bench then run it here, with no compile timeout."""
        return self.defined_in_process

    def no_launch_reason(self) -> str:
        """Why the kernel cannot launch (where not ``can_launch``), and how to give it what it lacks: one line."""
        return (
            f"{self.name} has no example inputs: bench needs a KernelSpec or CudaSpec (inputs and a torch "
            "reference) or the launches `irscope run` recorded of it (Inductor launches its kernels itself, unseen)"
        )

    def launch(self, config: Config, device: str = "cuda", seed: int = 0) -> Launch:
        """The kernel ready to run with example inputs (only where ``can_launch``)."""
        raise NotImplementedError(f"{self.name} declares no example inputs to launch with")

    def launch_binary(self, config: Config, binary: dict[str, Any], device: str = "cuda", seed: int = 0) -> Launch:
        """A compile made elsewhere (``binary``: another Triton's cubin) ready to run with example inputs."""
        raise UsageError(f"{self.name} is a {self.frontend} kernel: only another Triton's variants launch as binaries")

    @property
    def autotuned(self) -> bool:
        """Does the kernel carry an autotuner of its own (Triton's ``@triton.autotune``)?"""
        return False

    def run_autotuner(self, config: Config, device: str = "cuda", seed: int = 0) -> AutotunerRun:
        """Launch the kernel once through its own autotuner, as a user's program would, on
        ``config``'s example inputs (only where ``autotuned`` and ``can_launch``): what it timed and picked."""
        raise NotImplementedError(f"{self.name} has no autotuner of its own")

    def source(self) -> str:
        return Path(self.file).read_text(encoding="utf-8")


def claims_python_file(path: Path, name: str | None, names: Callable[[Path], Sequence[str]]) -> bool:
    """``Frontend.claims`` for a language written in ``.py`` files, whose kernels ``names(path)`` finds without
    running the file: kernel ``name`` is one of them; no name given, the file holds any (a file of one
    language's kernels is that frontend's to choose from, or to say which it holds)."""
    if path.suffix != ".py":
        return False
    found = names(path)
    return name in found if name is not None else bool(found)


def choose_kernel(found: Sequence[str], name: str | None, path: Path, kind: str) -> str:
    """``name`` among the kernels ``found`` in ``path`` (the only one when None), or one line saying what is there.

    ``kind`` names them as the file's language does: ``"__global__ kernel"``, ``"@cuda.jit kernel"``.
    """
    listed = ", ".join(found) or "none"
    if name is None:
        if len(found) != 1:
            raise KernelNotFound(f"{path} holds {len(found)} {kind}s ({listed}); name one as {path}:NAME")
        return found[0]
    if name not in found:
        raise KernelNotFound(f"no {kind} named {name!r} in {path}; found: {listed}")
    return name


class Frontend(abc.ABC):
    """A kernel language: which files it opens and how it finds kernels in them."""

    name: str
    suffixes: tuple[str, ...]  # the files it opens: (".py",)

    @abc.abstractmethod
    def kernel_names(self, path: Path) -> list[str]:
        """The kernels ``path`` declares, in file order."""

    @abc.abstractmethod
    def resolve(self, path: Path, name: str | None, signature: str | None = None) -> Kernel:
        """The kernel ``name`` in ``path`` (the only one when ``name`` is None)."""

    @abc.abstractmethod
    def load(self, handle: KernelHandle) -> Kernel:
        """The kernel a handle names (in a worker process, or from a session)."""

    def builtin(self, directory: Path) -> Sequence[Kernel]:
        """The built-in example kernels this frontend finds in ``directory``."""
        return []

    def builtin_named(self, directory: Path, name: str) -> Sequence[Kernel]:
        """The built-in kernels of ``directory`` named ``name``, in ``builtin``'s order (a frontend may find
        them without loading the others)."""
        return [k for k in self.builtin(directory) if k.name == name]

    def from_object(self, obj: Any, signature: str | None, name: str | None) -> Kernel:
        """The kernel a Python object of this language is (``objects.kernel_from_object`` chose the frontend)."""
        raise UsageError(f"{self.name} kernels are given as files, not as Python objects")

    def rebuild(self, handle: KernelHandle) -> Kernel | None:
        """A session's kernel from its stored source (``handle.extra["source_text"]``) alone, running none of it;
        None where the language cannot (Numba compiles by importing the file, nvcc reads the file's includes)."""
        return None

    def claims(self, path: Path, name: str | None) -> bool:
        """Does ``path`` hold kernel ``name`` (None: the file's one kernel) in this language, though another
        frontend owns its suffix?

        (CUDA C++ in a Python file's ``load_inline`` strings.) Read without running the file.
        """
        return False
