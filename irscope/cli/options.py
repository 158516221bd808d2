"""Options shared by the commands that take a KERNEL."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from ..stages import Stage, specs

if TYPE_CHECKING:
    from ..named import Named, Settings


class _Stages(Sequence[str]):
    """Stage names from the registry, listed when a command first parses or shows its help: then with every
    built-in frontend's own stages registered (CuTe DSL's ``cute_ir``), which importing the frontends here,
    at every command's start, would cost (~0.4 s)."""

    def __init__(self, keys: Callable[[], list[str]]) -> None:
        self._make = keys

    @functools.cached_property
    def _keys(self) -> list[str]:
        from ..frontends.registry import register_builtin_stages

        register_builtin_stages()
        return self._make()

    def __getitem__(self, i: Any) -> Any:
        return self._keys[i]

    def __len__(self) -> int:
        return len(self._keys)

    def __eq__(self, other: object) -> bool:
        return list(self) == other


# Derived from the stage registry: every compiled stage, every stage, and those annotate can explain (whose
# dialect ir/dialects.py explains: importing the parsers behind the dialects costs ~0.1 s more).
STAGE_CHOICES = _Stages(lambda: [s.value for s in Stage.compiled()])
ALL_STAGES = _Stages(lambda: [spec.key for spec in specs()])


def _explained() -> list[str]:
    from ..ir.dialects import dialect_of

    return [s.value for s in Stage.all() if dialect_of(s).explained]


EXPLAINED_STAGES = _Stages(_explained)


# Limits of the number options: past them a value is a mistake (`inf`, a stray digit), not a wish.
MAX_SECONDS = 86400.0  # a day: a timeout longer than that is a hang
MAX_MILLISECONDS = 3_600_000.0  # an hour of timed calls per variant
MAX_JOBS = 256  # compile processes: each is a Python with Triton loaded


class Bounded(click.FloatRange):
    """A FloatRange that also refuses ``nan``, which compares false with both of its limits."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value} is not in the range {self._describe_range()}.", param, ctx)
        return number


def seconds() -> Bounded:
    return Bounded(min=0, min_open=True, max=MAX_SECONDS)


def milliseconds() -> Bounded:
    return Bounded(min=0, min_open=True, max=MAX_MILLISECONDS)


def into_settings(fn: Callable[..., Any], fields: Mapping[str, str]) -> Callable[..., Any]:
    """``fn`` taking its options named in ``fields`` (option -> Settings field) as one ``settings`` argument:
    the options of a command are arguments of its call, never kept in click's context or the environment."""

    @functools.wraps(fn)
    def command(*args: Any, **kwargs: Any) -> Any:
        from ..named import Settings

        given = {field: kwargs.pop(name) for name, field in fields.items() if name in kwargs}
        settings = kwargs.get("settings") or Settings()
        kwargs["settings"] = replace(settings, **{k: v for k, v in given.items() if v is not None})
        return fn(*args, **kwargs)

    return command


def kernel_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """KERNEL argument with -c, --arch, --signature, --spec and --compile-timeout (these two into ``settings``)."""
    fn = into_settings(fn, {"spec_file": "spec_file", "compile_timeout": "compile_timeout"})
    fn = click.option(
        "--signature",
        "-S",
        metavar="TYPES",
        help="Argument types for a kernel file without a KernelSpec, in Triton's AOT syntax: "
        '"*fp32:16, *fp32:16, i32, i32:16, 1024" (:16 = divisible by 16, :1 = equal to 1, '
        "a bare value = a constant, as Triton's AOT compiler reads it).",
    )(fn)
    fn = click.option(
        "--spec",
        "spec_file",
        metavar="FILE.py",
        type=click.Path(dir_okay=False),
        help="The CudaSpec (inputs, grid, reference) of a .cu or load_inline kernel, for bench. A spec file is "
        "Python and runs: one beside a .cu is used only when named here (built-in kernels: their own).",
    )(fn)
    fn = click.option(
        "--arch",
        metavar="SM",
        callback=check_arch,
        help="Compile ahead of time for this GPU architecture (sm_80, sm_86, sm_89, sm_90, sm_100, ...). "
        "Default: the GPU's own (through the JIT), or sm_90 without a GPU.",
    )(fn)
    fn = click.option(
        "--compile-timeout",
        metavar="SECONDS",
        type=seconds(),
        help="Kill a compile that runs longer than this (default 300; ptxas on a huge block can run for minutes).",
    )(fn)
    fn = click.option(
        "-c",
        "assignments",
        multiple=True,
        metavar="NAME=VALUE[,...]",
        help="Set a constexpr, a launch option (num_warps, num_stages, num_ctas; maxnreg on NVIDIA; waves_per_eu, "
        "matrix_instr_nonkdim, kpack on AMD) or an input size. "
        "Repeatable, or comma-separated.",
    )(fn)
    return click.argument("kernel", shell_complete=complete_path)(fn)


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """Shell completion of a KERNEL, SESSION or file argument: the shell's own file-name completion.

    Without it, turning on click's completion (docs/shell-completion.md) left these arguments with none at all:
    an argument of no type completes to nothing, and bash then offers no file either."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


def check_arch(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--arch: refused before anything is compiled or written (an unknown arch is ParameterError, exit 2)."""
    if value is not None:
        from ..arch import normalise_arch

        normalise_arch(value)
    return value


def with_notes(settings: Settings | None) -> Settings:
    """``settings`` (a command's, or the defaults) with the front door's notes going to stderr."""
    from ..named import Settings
    from .output import echo

    return replace(settings or Settings(), note=lambda line: echo(f"irscope: {line}", err=True))


def open_named(
    kernel: str, settings: Settings | None = None, signature: str | None = None, need_kernel: bool = False
) -> Named:
    """KERNEL resolved by the front door (``irscope.named``), with this command's settings (--spec, --compile-timeout)."""
    from ..named import open_named as resolve

    return resolve(kernel, with_notes(settings), signature=signature, need_kernel=need_kernel)


def overrides(assignments: tuple[str, ...]) -> dict[str, str]:
    """``-c NAME=VALUE`` words -> ``{NAME: VALUE}``."""
    from ..frontends.config import parse_assignments

    return parse_assignments(assignments)


def sample_gpu_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--sample-gpu (into ``settings``), for the commands that show recorded runtimes where nothing was measured."""
    return click.option(
        "--sample-gpu",
        metavar="NAME",
        callback=check_sample_gpu_option,
        help="Show the runtimes recorded on this GPU in samples/ (a part of its name: H100, H200; default "
        "$IRSCOPE_SAMPLE_GPU, else H100). A variant it did not record shows another GPU's, labelled.",
    )(into_settings(fn, {"sample_gpu": "sample_gpu"}))


def check_sample_gpu_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--sample-gpu: refused unless samples were recorded on such a GPU (ParameterError, exit 2); the command
    hands the choice to every runtime it shows (``Settings.sample_gpu``), the TUI's included."""
    if value is None:
        return None
    from ..measure.samples import check_sample_gpu

    return check_sample_gpu(value)


def executor_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--executor and --gpu-type (into ``settings``: ``Settings.runner``)."""
    fn = into_settings(fn, {"executor": "executor", "gpu_type": "gpu_type"})
    fn = click.option(
        "--gpu-type",
        metavar="TYPE",
        help="With --executor ray: measure only on GPUs of this type (Ray's accelerator_type: H100, A100, ...).",
    )(fn)
    return click.option(
        "--executor",
        type=click.Choice(["local", "ray"]),
        help="Where compiles and measurements run: local (default), this host's worker processes; ray, a Ray "
        "cluster ($RAY_ADDRESS, else a local instance; pip install irscope[ray]; see docs/ray.md).",
    )(fn)
