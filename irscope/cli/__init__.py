"""The ``irscope`` command: a click group whose commands live one per module.

stdout carries data (listings, tables, JSON); stderr carries diagnostics. A user
error is one line on stderr and a non-zero exit code (see errors.ExitCode);
``--debug`` shows the traceback instead. Heavy imports (triton, torch, textual)
happen inside the commands that need them, so ``irscope --help`` stays instant.

Run as a program, irscope also owns its process: a temporary folder of its own,
removed when it exits (Triton leaves ``.ptx`` files behind when it is interrupted,
or when ptxas fails), and Ctrl-C, TERM and HUP handled once.
"""

from __future__ import annotations

import atexit
import contextlib
import getpass
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator

import click

from ..errors import STOP_SIGNALS, ExitCode, IrscopeError, exception_line
from ..paths import keep_private_temp_folder
from ..processes.timeline import mark

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
    "run": ("irscope.cli.run", "run"),
    "compare": ("irscope.cli.compare", "compare"),
    "passes": ("irscope.cli.passes", "passes"),
    "autotune": ("irscope.cli.autotune", "autotune"),
    "ncu": ("irscope.cli.ncu", "ncu"),
    "report": ("irscope.cli.report", "report"),
    "export": ("irscope.cli.export", "export"),
    "cache": ("irscope.cli.cache", "cache"),
    "check": ("irscope.cli.check", "check"),
    "repro": ("irscope.cli.repro", "repro"),
    "mcp": ("irscope.cli.mcp", "mcp"),
}
# command name -> its help's first sentence, for `irscope --help`'s list: importing the 18 command modules to
# read them was 40% of `irscope --help`'s CPU (0.36 -> 0.22 s on a loaded 2-core machine, bytecode kept;
# tests/perf/RESULTS.md). tests/test_cli_help.py holds each to its command's own help.
SUMMARIES = {
    "list": "List built-in kernels with their parameters, defaults and sweep ranges.",
    "dump": "Compile KERNEL for one configuration and print a stage of it.",
    "sweep": "Capture the cartesian product of -s values of KERNEL and print a table.",
    "diff": "Diff one stage of two variants of KERNEL (a kernel or a session directory).",
    "annotate": "Explain every instruction of KERNEL's PTX, SASS or (for a gfx arch) AMDGCN in plain words.",
    "bench": "Check KERNEL's variants against the torch reference, then time them on this GPU.",
    "tui": "Open KERNEL (or a session directory) in the terminal UI.",
    "inductor": "Capture the Triton kernels torch.compile (Inductor) generates.",
    "run": "Run COMMAND (a Python program) as it is and record every Triton kernel it compiles and launches.",
    "compare": "Compare implementations of one operation: KERNELS in any language irscope compiles.",
    "passes": "Every compiler pass Triton (MLIR) or TileLang (TIR) runs on KERNEL (a kernel or a session swept with --passes).",
    "ncu": "The hottest SASS instructions of KERNEL's variant, each with its Python line and why warps stall there.",
    "report": "Write SESSION as one HTML file: the variants table, the runtime chart, every stage of every variant "
    "(highlighted, each line linked to its Python line), the selected variant's findings and the diffs asked for.",
    "export": "Write KERNEL's variants as a tritonparse trace (one compilation event each).",
    "cache": "Show the cache (location, size, entries), or trim it.",
    "check": "Fail (exit 1, after a table) when KERNEL's variants break a condition against a baseline.",
    "repro": "Write a Python file that rebuilds one variant of KERNEL with its own compiler and prints its PTX.",
    "autotune": "Every config Triton's autotuner timed, what each took and the one it picked (marked *).",
    "mcp": "Serve capture, dump, sweep, diff, annotate, passes, compare, check, bench and repro to an MCP client over "
    "stdio (pip install irscope[mcp]).",
}

# What irscope changed in its own environment (TMPDIR...) and the user's values, for the
# programs it runs as they are (irscope run): name -> the user's value (None: unset).
USER_ENVIRONMENT: dict[str, str | None] = {}


class LazyGroup(click.Group):
    """Imports a command's module only when that command is asked for."""

    def __call__(self, *args, **kwargs):
        # The console script and run() call the group; click's CliRunner calls .main(), so
        # tests that invoke irscope in-process keep their own signal handlers and temp folder.
        mark("irscope CLI imported")
        atexit.register(mark, "Python exits")  # the last handler to run: after it, only the interpreter's teardown
        with _private_tempdir(), _stop_once() as stopped_by:
            try:
                return self.main(*args, **kwargs)
            except SystemExit as exc:
                # Stopped by TERM or HUP: the same way out as Ctrl-C, and the status a shell gives that signal.
                if stopped_by and stopped_by[0] != signal.SIGINT and exc.code == ExitCode.INTERRUPTED:
                    raise SystemExit(128 + stopped_by[0]) from None
                raise
            finally:
                mark("command returned")

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``irscope --help``, as click writes it, from SUMMARIES: no command's module imported."""
        from click.utils import make_default_short_help

        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        with formatter.section("Commands"):
            formatter.write_dl([(name, make_default_short_help(SUMMARIES[name], limit)) for name in COMMANDS])

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
            _error_line(f"irscope: error: {exc}")
            ctx.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            _error_line("irscope: interrupted")
            ctx.exit(int(ExitCode.INTERRUPTED))
        except click.UsageError as exc:  # a bad option value, a missing argument: one line too
            if isinstance(exc, click.exceptions.NoArgsIsHelpError) or (ctx.obj and ctx.obj.get("debug")):
                raise
            where = exc.ctx.command_path if exc.ctx else ctx.command_path
            _error_line(f"irscope: error: {exc.format_message()} (see {where} -h)")
            ctx.exit(int(ExitCode.USAGE))
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
            from ..frontends.registry import install_hint  # a frontend's extra, or irscope's own

            hint = install_hint(exc)
            if hint is not None:  # an optional dependency this command needs: the user's to install
                _error_line(
                    f"irscope: error: {ctx.invoked_subcommand or 'this'} needs "
                    f"{getattr(exc, 'name', '').partition('.')[0]}, which is not installed: {hint}"
                )
                ctx.exit(int(ExitCode.USAGE))
            _error_line(f"irscope: internal error: {exception_line(exc)} (rerun with --debug for the traceback)")
            ctx.exit(int(ExitCode.INTERNAL))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show Python tracebacks instead of one-line errors.")
@click.option(
    "--gpu",
    metavar="MODEL",
    help="Without a GPU: the card a stand-in answers as when a kernel file or package is imported (H100, H200, "
    "B200, RTX5090, A100, MI300X, MI355X; MODEL:N for N of them), and the arch compiled for. [env: IRSCOPE_GPU]",
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx) if value and not ctx.resilient_parsing else None,
    help="Show irscope's version, and Python's, Triton's, torch's (with its CUDA or ROCm) and the GPU, and exit.",
)
@click.pass_context
def main(ctx: click.Context, debug: bool, gpu: str | None) -> None:
    """See what the compiler did with your Triton kernel.

    Capture every stage (Python, TTIR, TTGIR, LLIR, PTX, SASS) of a kernel for a
    configuration, map each IR line back to its Python line, sweep and diff
    configurations, annotate instructions, and time variants on a GPU.

    KERNEL is a built-in kernel name (see `irscope list`) or path/to/file.py:kernel_name.
    Without a GPU, kernels are compiled ahead of time for sm_90 (or --arch).
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    from ..processes.own_python import quiet_known_warnings

    quiet_known_warnings()
    if gpu is not None:  # the one setting every process irscope starts reads (workers, irscope run's program)
        from ..gpu_models import ENV, parse_gpu

        try:
            spelled = parse_gpu(gpu).spelled()
        except IrscopeError as exc:
            raise click.BadParameter(str(exc), param_hint="--gpu") from None
        previous = os.environ.get(ENV)
        os.environ[ENV] = spelled
        # put back once the command is done: a test (or a script) calling irscope in-process keeps its own
        ctx.call_on_close(lambda: os.environ.pop(ENV, None) if previous is None else os.environ.update({ENV: previous}))


def _print_version(ctx: click.Context) -> None:
    from .output import echo
    from .version import version_lines

    for line in version_lines():
        echo(line)  # a GPU's or a build's name is data: through the choke point that shows controls as escapes
    ctx.exit()


def _error_line(message: str) -> None:
    from .output import error_line  # rich comes with it: only errors pay for it, not `irscope --help`

    error_line(message)


def run() -> None:
    main(prog_name="irscope")


@contextlib.contextmanager
def _stop_once() -> Iterator[list[int]]:
    """The first stop signal raises KeyboardInterrupt; later ones are ignored while irscope cleans up.

    A second one would land in whatever cleanup the first started (a generator's
    ``finally`` closing a worker pool, say) and print a traceback instead of one line.
    TERM and HUP, left to their default, would end irscope at once with its workers
    still compiling and its temporary folder left behind. Yields the signals caught.
    """
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    # A signal already handled or ignored (Ctrl-C in a background job, HUP under nohup) stays so.
    default = {signal.SIGINT: signal.default_int_handler}
    ours = {s: signal.getsignal(s) for s in STOP_SIGNALS if signal.getsignal(s) is default.get(s, signal.SIG_DFL)}

    def stop(signum, frame):
        for s in ours:
            signal.signal(s, signal.SIG_IGN)
        caught.append(signum)
        raise KeyboardInterrupt

    for s in ours:
        signal.signal(s, stop)
    try:
        yield caught
    finally:
        if not caught:  # once stopped, the process is on its way out: stay deaf
            for s, previous in ours.items():
                signal.signal(s, previous)


@contextlib.contextmanager
def _private_tempdir() -> Iterator[None]:
    """A temporary folder for this process and every process it starts (through TMPDIR), removed at exit."""
    previous = tempfile.tempdir
    system = tempfile.gettempdir()
    try:
        private = tempfile.mkdtemp(prefix="irscope-", dir=system)
    except OSError:  # an unwritable temp folder: the commands that need one will say so
        yield
        return
    saved = {name: os.environ.get(name) for name in ("TMPDIR", "TORCHINDUCTOR_CACHE_DIR")}
    if saved["TORCHINDUCTOR_CACHE_DIR"] is None:
        with contextlib.suppress(Exception):  # getuser() fails for a uid without a name
            # Inductor keeps its cache under the temp folder; it should outlive this process.
            user = re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser())
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(system, f"torchinductor_{user}")
    os.environ["TMPDIR"] = private
    tempfile.tempdir = private
    keep_private_temp_folder(private)
    USER_ENVIRONMENT.update(saved)
    try:
        yield
    finally:
        keep_private_temp_folder(None)
        USER_ENVIRONMENT.clear()
        tempfile.tempdir = previous
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(private, ignore_errors=True)
        mark("private temp folder removed")


if __name__ == "__main__":  # pragma: no cover
    run()
