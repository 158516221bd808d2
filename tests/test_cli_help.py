"""A command's start imports what it uses (issue 42): ``irscope --help`` lists the commands from
``cli.SUMMARIES`` without importing them (the list must be the one click writes from the commands
themselves); a built-in kernel's name loads only the files that spell it (the same kernel as the full
list's); rich loads with the first table."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from irscope.cli import COMMANDS, SUMMARIES, LazyGroup, main


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_the_command_list_is_the_one_click_writes_from_the_commands(width):
    ctx = click.Context(main, info_name="irscope", terminal_width=width, max_content_width=width)
    lazy = ctx.make_formatter()
    main.format_commands(ctx, lazy)
    real = ctx.make_formatter()
    click.Group.format_commands(main, ctx, real)  # click's own: every command imported for its short help
    assert set(SUMMARIES) == set(COMMANDS)
    assert lazy.getvalue() == real.getvalue()
    assert isinstance(main, LazyGroup)


def test_help_imports_no_command_module():
    code = (
        "import sys; from irscope.cli import main\n"
        "try:\n    main(['--help'], prog_name='irscope')\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('irscope.cli.')), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "list      List built-in kernels" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == "[]", out.stderr


def test_each_summary_is_its_commands_first_sentence():
    from click.utils import make_default_short_help

    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert command is not None and not command.hidden and command.short_help is None, name
        assert SUMMARIES[name] == make_default_short_help(command.help or "", 10**6), name


def test_a_builtin_name_finds_the_kernel_the_full_list_does():
    from irscope.errors import KernelNotFound
    from irscope.frontends import builtin_kernels, resolve_kernel

    kernels = builtin_kernels()
    assert {k.frontend for k in kernels} >= {"triton", "cuda"}
    for kernel in kernels:
        first = next(k for k in kernels if k.name == kernel.name)
        found = resolve_kernel(kernel.name)
        assert (found.frontend, found.file, found.name) == (first.frontend, first.file, first.name)
    with pytest.raises(KernelNotFound, match="built-in kernels: .*square_kernel"):
        resolve_kernel("square_kernels")


def test_a_triton_builtin_imports_only_its_own_file_and_no_rich():
    code = (
        "import re, sys\nfrom irscope.frontends import resolve_kernel\nimport irscope.cli.output\n"
        "resolve_kernel('square_kernel')\n"
        "print(sorted(m.group(1) for m in map(re.compile('irscope_kernel_(.*)_[0-9a-f]+$').match, sys.modules) if m))\n"
        "print('rich' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["['square']", "False"], out
