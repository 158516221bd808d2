"""Options shared by the commands that take a KERNEL."""

from __future__ import annotations

from typing import Any, Callable

import click

from ..stages import Stage, specs

# Derived from the stage registry: every compiled stage, and those annotate can explain.
STAGE_CHOICES = [s.value for s in Stage.compiled()]
EXPLAINED_STAGES = [spec.key for spec in specs() if spec.explained]
ALL_STAGES = [spec.key for spec in specs()]


def kernel_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """KERNEL argument with -c, --arch and --signature."""
    fn = click.option(
        "--signature", "-S", metavar="TYPES",
        help='Argument types for a kernel file without a KernelSpec, in Triton\'s AOT syntax: '
             '"*fp32:16, *fp32:16, i32, i32:16, 1024" (:16 = divisible by 16, :1 = equal to 1, '
             'a bare value = a constant, as Triton\'s AOT compiler reads it).',
    )(fn)
    fn = click.option(
        "--arch", metavar="SM", callback=check_arch,
        help="Compile ahead of time for this GPU architecture (sm_80, sm_86, sm_89, sm_90, sm_100, ...). "
             "Default: the GPU's own (through the JIT), or sm_90 without a GPU.",
    )(fn)
    fn = click.option(
        "--compile-timeout", metavar="SECONDS", type=click.FloatRange(min=0, min_open=True), expose_value=False,
        callback=set_compile_timeout,
        help="Kill a compile that runs longer than this (default 300; ptxas on a huge block can run for minutes).",
    )(fn)
    fn = click.option(
        "-c", "assignments", multiple=True, metavar="NAME=VALUE",
        help="Set a constexpr, a launch option (num_warps, num_stages, num_ctas, maxnreg) or an input size. Repeatable.",
    )(fn)
    return click.argument("kernel")(fn)


def check_arch(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--arch: refused before anything is compiled or written (an unknown arch is ParameterError, exit 2)."""
    if value is not None:
        from ..arch import parse_arch

        parse_arch(value)
    return value


def set_compile_timeout(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    """--compile-timeout: the environment carries it to every capture, worker and TUI job of this run."""
    if value is not None:
        import os

        from ..capture.pipeline import TIMEOUT_ENV

        os.environ[TIMEOUT_ENV] = repr(value)


def sample_gpu_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--sample-gpu, for the commands that show recorded runtimes where nothing was measured."""
    return click.option(
        "--sample-gpu", metavar="NAME", expose_value=False, callback=set_sample_gpu,
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
