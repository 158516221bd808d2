"""The front door (irscope/named.py): every way of naming KERNEL resolves in one place, for every face."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode, SessionError, UsageError
from irscope.named import open_named

REPO = Path(__file__).resolve().parents[1]
SESSION = REPO / "samples" / "sessions" / "square_kernel"
LOGS = REPO / "samples" / "inductor"

KERNEL_FILE = """
import triton
import triton.language as tl

@triton.jit
def halve(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 0.5, mask=offs < n)
"""


def test_a_kernel_file_a_session_and_a_builtin_each_resolve_to_what_they_name(tmp_path):
    path = tmp_path / "halve.py"
    path.write_text(KERNEL_FILE)
    named = open_named(f"{path}:halve", signature="*fp32, i32, -")
    assert (named.name, named.kernel.name, named.session) == ("halve", "halve", None)
    assert named.config({"BLOCK": "256"}).constexprs == {"BLOCK": 256}

    session = open_named(str(SESSION))
    assert session.kernel is None and session.session is not None and session.name == "square_kernel"
    assert len(session.configs({"BLOCK_SIZE": ["128", "1024"]}, {})) == 2
    # The session was recorded from the built-in's exact source: that kernel compiles its new variants.
    assert open_named(str(SESSION), need_kernel=True).kernel.name == "square_kernel"


def test_the_compile_timeout_given_at_the_door_is_the_one_every_capture_uses(tmp_path):
    """A runaway compile is stopped at the timeout the front door was given, not one read from the environment."""
    path = tmp_path / "halve.py"
    path.write_text(KERNEL_FILE)
    named = open_named(f"{path}:halve", signature="*fp32, i32, -", compile_timeout=1e-3)
    variant = named.variant({"BLOCK": "1024"}, "sm_90", use_cache=False)
    assert not variant.ok and variant.error.stage == "timeout", variant.error


def test_an_inductor_capture_is_several_sessions_only_where_several_can_be_shown(cli, tmp_path):
    out = tmp_path / "red"
    assert cli("inductor", "--log", str(LOGS / "reduction.log"), "-o", str(out)).exit_code == 0
    several = open_named(str(out), several=True)
    assert len(several.sessions) == 5 and several.title.startswith("Inductor: ")
    assert several.about == "5 Inductor kernels"
    with pytest.raises(UsageError, match="an Inductor capture of several kernels"):
        open_named(str(out))
    one_line_error(cli("dump", str(out)), ExitCode.USAGE, "Inductor capture of several kernels", "irscope tui")


def test_a_directory_that_is_nothing_irscope_wrote_is_damage_not_a_crash(tmp_path):
    with pytest.raises(SessionError, match="not an irscope session"):
        open_named(str(tmp_path))


def test_a_run_title_never_carries_control_characters_from_its_run_json(tmp_path):
    """run.json is data: a device name with an escape sequence must not reach the TUI's title bar."""
    from irscope.named import _printable

    assert _printable("NVIDIA\x1b[2J H100\x07") == "NVIDIA?[2J H100?"


def test_the_tui_and_the_report_import_nothing_from_the_cli():
    for room in ("tui", "report"):
        for path in (REPO / "irscope" / room).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom):
                    module = node.module or ""
                    assert not (node.level >= 2 and module.startswith("cli")), f"{path}: imports the CLI"
                    assert not module.startswith("irscope.cli"), f"{path}: imports the CLI"


def test_a_symlink_loop_where_a_capture_names_a_session_is_damage_in_one_line(cli, tmp_path):
    """Found by an outside review: resolving a loop raised RuntimeError, an internal error (exit 70)."""
    import json

    capture = tmp_path / "ind"
    capture.mkdir()
    (capture / "inductor.json").write_text(
        json.dumps(
            {"format": "irscope.inductor/1", "origin": {"log": "x.log"}, "kernels": [{"name": "k", "session": "lnk"}]}
        )
    )
    (capture / "lnk").symlink_to("lnk")
    with pytest.raises(SessionError, match="cannot be followed"):
        open_named(str(capture), several=True)
    one_line_error(cli("tui", str(capture)), ExitCode.SESSION_ERROR, "cannot be followed")


def test_the_index_formats_are_data_and_never_follow_a_module_rename():
    """inductor.json and run.json say what they are in a format tag: a module's move must not change it."""
    from irscope.interop.inductor.capture import INDEX_FORMAT as INDUCTOR
    from irscope.interop.run import INDEX_FORMAT as RUN

    assert (INDUCTOR, RUN) == ("irscope.inductor/1", "irscope.run/1")


def test_a_commands_options_reach_the_front_door_as_arguments_never_through_the_environment(cli, monkeypatch):
    """--sample-gpu (and --spec, --compile-timeout, --executor) travel as the command's Settings: nothing is left in
    os.environ or click's context for a later command in the same process to pick up."""
    import os

    monkeypatch.delenv("IRSCOPE_SAMPLE_GPU", raising=False)
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=128", "--arch", "sm_90", "--sample-gpu", "H100", "--json")
    assert result.exit_code == 0, result.stderr
    assert "IRSCOPE_SAMPLE_GPU" not in os.environ
    timed_out = cli("dump", "square_kernel", "--arch", "sm_80", "--compile-timeout", "0.001", "--no-cache")
    assert timed_out.exit_code != 0
    assert cli("dump", "square_kernel", "--arch", "sm_80", "--no-cache").exit_code == 0  # no timeout left behind
