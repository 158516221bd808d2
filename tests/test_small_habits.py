"""The small habits of issue 47, point 5: what a user meets in the first minutes, each checked as they meet it.

``irscope --version`` names what it runs on without importing torch or Triton; ``irscope tui`` with no terminal
ends in one line; shell completion keeps file names for KERNEL and SESSION; counts are in the singular for one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={**os.environ, **env}
    )


def test_version_names_python_triton_torch_with_its_cuda_and_the_gpu_without_importing_them():
    code = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from irscope.cli import main\n"
        "result = CliRunner().invoke(main, ['--version'])\n"
        "print(json.dumps([result.exit_code, result.output, sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('torch', 'triton', 'textual', 'numpy'))]))\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    code_, output, imported = json.loads(done.stdout)
    assert code_ == 0 and imported == []  # stays instant: no torch, Triton or textual imported to answer
    import torch
    import triton

    from irscope import __version__

    lines = output.splitlines()
    assert lines[0] == f"irscope {__version__}" and lines[1].startswith(f"Python {sys.version.split()[0]} ")
    assert lines[2] == f"triton {triton.__version__} (irscope is tested with 3.5 to 3.9)"
    built = f"CUDA {torch.version.cuda}" if torch.version.cuda else None
    built = built or (f"ROCm/HIP {torch.version.hip}" if torch.version.hip else "CPU only: built without CUDA or ROCm")
    assert lines[3] == f"torch {torch.__version__} ({built})"  # read from torch/version.py, as torch says
    assert lines[4].startswith("GPU: ") and len(lines) == 5
    if torch.cuda.is_available():
        assert torch.cuda.get_device_name(0) in lines[4]
    else:
        assert lines[4].startswith("GPU: none")


def test_version_says_no_gpu_where_irscope_is_told_there_is_none(run_irscope):
    done = run_irscope("--version", env={"IRSCOPE_NO_GPU": "1"})
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "GPU: none (IRSCOPE_NO_GPU is set)"


def test_tui_without_a_terminal_ends_in_one_line_instead_of_waiting_for_keys():
    """Before: textual's driver waited forever on a stdin that was no terminal (the CLI hung until killed)."""
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "tui", "samples/sessions/square_kernel"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("irscope: error: irscope tui needs a terminal, and its stdin and stderr are not one")
    assert done.stdout == ""


@pytest.mark.parametrize(
    "words",
    [
        "irscope tui ",
        "irscope dump samp",
        "irscope sweep kernels/sq",
        "irscope diff samples/sessions/",
        "irscope passes ",
        "irscope compare kernels/square.py:square_kernel ",
        "irscope report ",
        "irscope inductor ",
        "irscope run ",
        "irscope check ",
        "irscope annotate ",
    ],
)
def test_shell_completion_of_kernel_and_session_arguments_is_the_shells_file_names(words):
    """click's protocol: ``file,<incomplete>`` tells bash, zsh and fish to complete file names themselves."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {"COMP_WORDS": words, "COMP_CWORD": str(cword), "_IRSCOPE_COMPLETE": "bash_complete"}
    done = subprocess.run(
        [sys.executable, "-m", "irscope"], capture_output=True, text=True, timeout=60, env={**os.environ, **env}
    )
    incomplete = "" if words.endswith(" ") else words.split()[-1]
    assert done.returncode == 0 and done.stdout.splitlines() == [f"file,{incomplete}"], done.stdout + done.stderr


def test_shell_completion_still_completes_commands_and_choices():
    env = {"COMP_WORDS": "irscope dump k --stage pt", "COMP_CWORD": "4", "_IRSCOPE_COMPLETE": "bash_complete"}
    done = subprocess.run(
        [sys.executable, "-m", "irscope"], capture_output=True, text=True, timeout=60, env={**os.environ, **env}
    )
    assert done.stdout.splitlines() == ["plain,ptx"]


def test_a_count_of_one_is_in_the_singular():
    from irscope.types import plural

    assert [plural(n, "line") for n in (0, 1, 2)] == ["0 lines", "1 line", "2 lines"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "pass", "passes") == "3 passes"


def test_a_piped_table_has_no_trailing_spaces(run_irscope):
    """Rows were padded to the table's width: `irscope list | cat -A` showed up to 130 spaces before each $."""
    done = run_irscope("list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) > 10 and all(line == line.rstrip() for line in lines)
    assert lines[0].split() == ["kernel", "parameter", "default", "sweep", "description"]


def test_tables_as_csv(run_irscope):
    import csv
    import io

    done = run_irscope("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,256", "-c", "n_cols=256", "--csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    as_json = run_irscope("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,256", "-c", "n_cols=256", "--json")
    expected = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [r["BLOCK_SIZE"] for r in rows] == ["128", "256"] and [r["status"] for r in rows] == ["ok", "ok"]
    assert [int(r["regs"]) for r in rows] == [e["registers"] for e in expected]
    assert [int(r["ptx lines"]) for r in rows] == [e["ptx_lines"] for e in expected]
    assert "2 variants" in done.stderr  # the summary line stays on stderr: stdout is the CSV alone
    listed = list(csv.reader(io.StringIO(run_irscope("list", "--csv").stdout)))
    assert listed[0] == ["kernel", "parameter", "default", "sweep", "description"]
    assert ["square_kernel", "BLOCK_SIZE"] == listed[[r[0] for r in listed].index("square_kernel")][:2]


@pytest.mark.parametrize("command", ["sweep", "bench", "list", "check", "inductor", "run"])
def test_every_command_that_prints_a_table_takes_csv(cli, command):
    assert "--csv" in cli(command, "--help").output


def test_a_session_as_a_pandas_dataframe():
    pandas = pytest.importorskip("pandas", reason="pandas is optional (Session.to_dataframe says so without it)")
    import irscope

    session = irscope.open(REPO / "samples" / "sessions" / "square_kernel")
    frame = session.to_dataframe()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == len(session)
    for i, entry in enumerate(session.entries):
        row = frame.iloc[i]
        assert row["BLOCK_SIZE"] == entry.config.values()["BLOCK_SIZE"] and row["arch"] == entry.arch
        assert row["registers"] == entry.facts.registers and row["status"] == entry.status.value
        assert row["median_us"] == pytest.approx(entry.measurement.median_us)


def test_a_session_as_a_dataframe_without_pandas_says_what_to_install():
    code = (
        "import sys; sys.modules['pandas'] = None\n"
        "import irscope\n"
        "from irscope.errors import UsageError\n"
        "try:\n"
        "    irscope.open('samples/sessions/square_kernel').to_dataframe()\n"
        "except UsageError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.stdout.strip() == "Session.to_dataframe needs pandas, which is not installed: pip install pandas"


def test_torchs_numpy_warning_stays_out_of_irscopes_own_processes():
    """torch without NumPy warns "Failed to initialize NumPy" when imported: not in irscope's output."""
    from irscope.processes.own_python import command

    hidden = "sys.modules['numpy'] = None; import torch; print('imported')"  # as where pip install torch left no NumPy
    plain = subprocess.run([sys.executable, "-c", "import sys; " + hidden], capture_output=True, text=True, timeout=120)
    assert "Failed to initialize NumPy" in plain.stderr  # control: torch does warn there
    ours = subprocess.run(command(hidden), capture_output=True, text=True, timeout=120)
    assert ours.stdout == "imported\n" and "NumPy" not in ours.stderr, ours.stderr


def test_rays_token_authentication_news_stays_out_of_irscopes_output():
    """Ray 2.5x logs on every ray.init whether its cluster uses token authentication; irscope leaves it out."""
    import logging

    pytest.importorskip("ray")
    from ray._private.authentication import authentication_token_setup as setup

    from irscope.processes.executors.ray_executor import RAY_TOKEN_LOGGER, _not_token_auth_news, quiet_token_auth_news

    logged: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: logged.append(record.getMessage())
    setup.logger.addHandler(handler)
    try:
        assert setup.logger.name == RAY_TOKEN_LOGGER
        setup._warn_token_auth_enabled()  # control: Ray's own line, as ray.init logs it
        assert len(logged) == 1 and logged[0].startswith("Token authentication is enabled")
        quiet_token_auth_news()  # what connect() does before ray.init
        setup._warn_token_auth_enabled()
        setup._warn_token_auth_disabled()
        assert len(logged) == 1
    finally:
        setup.logger.removeHandler(handler)
        setup.logger.removeFilter(_not_token_auth_news)


CELLS = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
from ipykernel.compiler import XCachingCompiler  # what a Jupyter kernel compiles cells with (ZMQInteractiveShell's)

shell = InteractiveShell.instance(compiler_class=XCachingCompiler)
shell.run_cell("x = 1", store_history=True)
shell.run_cell("def kernel():\\n    return 2", store_history=True)
shell.run_cell("y = 3", store_history=True)
from irscope.paths import shown_file
from irscope.report.shared_paths import SharedPaths
file = shell.user_ns["kernel"].__code__.co_filename
print(json.dumps([file, shown_file(file), SharedPaths(file).file_label(file), shown_file("/tmp/ipykernel_1/99.py")]))
"""


def test_a_kernel_defined_in_a_notebook_cell_is_named_by_its_cell():
    """Not by the name ipykernel made up for the cell (its text's murmur2 hash: ``/tmp/ipykernel_<pid>/<hash>.py``)."""
    pytest.importorskip("ipykernel")
    done = subprocess.run([sys.executable, "-c", CELLS], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    file, shown, labelled, other = json.loads(done.stdout.splitlines()[-1])
    assert Path(file).parent.name.startswith("ipykernel_") and Path(file).stem.isdigit()  # control: the made-up name
    assert shown == labelled == "In [2]"
    assert other == "a notebook cell (99.py)"  # a cell this kernel never ran (a session from another)


def test_a_file_and_a_plain_ipython_cell_are_named_as_before():
    from irscope.paths import shown_file

    assert shown_file("/home/me/kernels/square.py") == "square.py"
    assert shown_file("<ipython-input-7-0123abcd>") == "In [7]"
    assert shown_file("/tmp/ipykernel_12/notes.py") == "notes.py"
