"""``irscope --help`` lists the commands from ``cli.SUMMARIES`` without importing them: the list must be
the one click writes from the commands themselves."""

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
