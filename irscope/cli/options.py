"""Options shared by the commands that take a KERNEL."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..stages import Stage, specs

if TYPE_CHECKING:
    from ..named import Named
    from ..processes.executors import Executor

# Derived from the stage registry: every compiled stage, and those annotate can explain.
STAGE_CHOICES = [s.value for s in Stage.compiled()]
EXPLAINED_STAGES = [spec.key for spec in specs() if spec.explained]
ALL_STAGES = [spec.key for spec in specs()]


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


def kernel_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """KERNEL argument with -c, --arch, --signature and --spec."""
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
        expose_value=False,
        callback=remember_spec_file,
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
        expose_value=False,
        callback=set_compile_timeout,
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
    return click.argument("kernel")(fn)


def check_arch(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--arch: refused before anything is compiled or written (an unknown arch is ParameterError, exit 2)."""
    if value is not None:
        from ..arch import normalise_arch

        normalise_arch(value)
    return value


SPEC_FILE = "irscope.spec_file"  # click's ctx.meta key: --spec, for open_named


def remember_spec_file(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """--spec: kept in the command's context for ``open_named``, which hands it to the front door."""
    if value is not None:
        ctx.meta[SPEC_FILE] = value


def spec_file_given() -> str | None:
    """The --spec of the command running now, if any."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(SPEC_FILE) if ctx is not None else None


COMPILE_TIMEOUT = "irscope.compile_timeout"  # click's ctx.meta key: --compile-timeout


def set_compile_timeout(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    """--compile-timeout: kept in the command's context; ``open_named`` hands it to every capture of this command."""
    if value is not None:
        ctx.meta[COMPILE_TIMEOUT] = value


def compile_timeout_given() -> float:
    """The --compile-timeout of the command running now, else the default."""
    from ..processes.workers import DEFAULT_COMPILE_TIMEOUT

    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(COMPILE_TIMEOUT, DEFAULT_COMPILE_TIMEOUT) if ctx is not None else DEFAULT_COMPILE_TIMEOUT


def open_named(kernel: str, signature: str | None = None, need_kernel: bool = False) -> Named:
    """KERNEL resolved by the front door (``irscope.named``), with this command's --spec and --compile-timeout."""
    from ..named import open_named as resolve
    from .output import echo

    return resolve(
        kernel,
        signature=signature,
        need_kernel=need_kernel,
        spec_file=spec_file_given(),
        compile_timeout=compile_timeout_given(),
        note=lambda line: echo(f"irscope: {line}", err=True),
    )


def overrides(assignments: tuple[str, ...]) -> dict[str, str]:
    """``-c NAME=VALUE`` words -> ``{NAME: VALUE}``."""
    from ..frontends.config import parse_assignments

    return parse_assignments(assignments)


def sample_gpu_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--sample-gpu, for the commands that show recorded runtimes where nothing was measured."""
    return click.option(
        "--sample-gpu",
        metavar="NAME",
        expose_value=False,
        callback=set_sample_gpu,
        help="Show the runtimes recorded on this GPU in samples/ (a part of its name: H100, H200; default "
        "$IRSCOPE_SAMPLE_GPU, else H100). A variant it did not record shows another GPU's, labelled.",
    )(fn)


def set_sample_gpu(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """--sample-gpu: refused unless samples were recorded on such a GPU (ParameterError, exit 2); the
    environment carries the choice to every runtime shown in this run, the TUI's included."""
    if value is not None:
        import os

        from ..measure.samples import SAMPLE_GPU_ENV, check_sample_gpu

        os.environ[SAMPLE_GPU_ENV] = check_sample_gpu(value)


def executor_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--executor and --gpu-type, kept in the command's context for ``executor_given``."""
    fn = click.option(
        "--gpu-type",
        metavar="TYPE",
        expose_value=False,
        callback=remember(GPU_TYPE),
        help="With --executor ray: measure only on GPUs of this type (Ray's accelerator_type: H100, A100, ...).",
    )(fn)
    return click.option(
        "--executor",
        type=click.Choice(["local", "ray"]),
        expose_value=False,
        callback=remember(EXECUTOR),
        help="Where compiles and measurements run: local (default), this host's worker processes; ray, a Ray "
        "cluster ($RAY_ADDRESS, else a local instance; pip install irscope[ray]; see docs/ray.md).",
    )(fn)


EXECUTOR = "irscope.executor"  # click's ctx.meta keys: --executor, --gpu-type
GPU_TYPE = "irscope.gpu_type"


def remember(key: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is not None:
            ctx.meta[key] = value

    return keep


def executor_given() -> Executor:
    """The executor the running command was asked for (Ray missing or unreachable: UsageError, exit 2)."""
    from ..processes.executors import executor_named

    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    return executor_named(meta.get(EXECUTOR), meta.get(GPU_TYPE))
