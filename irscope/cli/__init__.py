"""The ``irscope`` command: a click group whose commands live one per module.

stdout carries data (listings, tables, JSON); stderr carries diagnostics. A user
error is one line on stderr and a non-zero exit code (see errors.ExitCode);
``--debug`` shows the traceback instead. Heavy imports (triton, torch, textual)
happen inside the commands that need them, so ``irscope --help`` stays instant.
"""

from __future__ import annotations

import os
import sys

import click

from ..errors import ExitCode, IrscopeError

# command name -> (module, function); loaded only when the command runs
COMMANDS = {
    "list": ("irscope.cli.list_cmd", "list_kernels"),
    "dump": ("irscope.cli.dump", "dump"),
    "sweep": ("irscope.cli.sweep", "sweep"),
    "diff": ("irscope.cli.diff", "diff"),
    "annotate": ("irscope.cli.annotate", "annotate"),
    "bench": ("irscope.cli.bench", "bench"),
    "tui": ("irscope.cli.tui", "tui"),
    "inductor": ("irscope.cli.inductor", "inductor"),
}


class LazyGroup(click.Group):
    """Imports a command's module only when that command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, attr = COMMANDS[name]
        module = __import__(module_name, fromlist=[attr])
        return getattr(module, attr)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except IrscopeError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"irscope: error: {exc}", err=True)
            ctx.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            click.echo("irscope: interrupted", err=True)
            ctx.exit(int(ExitCode.INTERRUPTED))
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:
            # The reader went away (`irscope dump ... | head`): stop quietly, as cat would.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(0)
        except Exception as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"irscope: internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", err=True)
            ctx.exit(int(ExitCode.FAILURE))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show Python tracebacks instead of one-line errors.")
@click.version_option(package_name="irscope")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """See what the compiler did with your Triton kernel.

    Capture every stage (Python, TTIR, TTGIR, LLIR, PTX, SASS) of a kernel for a
    configuration, map each IR line back to its Python line, sweep and diff
    configurations, annotate instructions, and time variants on a GPU.

    KERNEL is a built-in kernel name (see `irscope list`) or path/to/file.py:kernel_name.
    Without a GPU, kernels are compiled ahead of time for sm_90 (or --arch).
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def run() -> None:
    main(prog_name="irscope")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
