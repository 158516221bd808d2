"""Every command README.md and docs/*.md show runs as written, with the inputs the repository ships (issue 47, point 2).

The commands are read from the pages' code blocks: each line of a ``bash``/``sh`` block, and each ``$ `` line
of a ``text`` block, whose following lines are the output the page shows. Each page's commands run in order in
a folder of their own (``examples``, ``samples`` and ``tests`` linked in, as in a checkout), in this process,
through the click app with the words the shell would give it (``VAR=...`` lines of the page set ``$VAR``; an
unquoted ``<``, ``>``, ``|``, ``;`` or ``&``, which the shell would take, fails the test). GPU-only commands
must end in one line on stderr with exit 4; the few that cannot run here are in ``SKIPPED`` with the reason.
Where a page shows output, each shown line must be in what the command printed: word for word, except numbers
with a decimal point (timings) and the stretch a ``...`` leaves out. Compiles are shared through irscope's
compile cache, so this runs in about the time the distinct compiles take.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

# docs/tilelang.md's one operator in three languages: needs both the CuTe DSL and TileLang.
THREE_LANGUAGES = (
    "irscope compare add_kernel examples/cute_add.py:add examples/tilelang_kernels.py:add --arch sm_90 "
    '-S "examples/cute_add.py:add=float32[128,256]:16, float32[128,256]:16, float32[128,256]:16"'
)
# Commands that do not run here, each with why (the rest run, and GPU-only ones are in GPU_ONLY).
NEEDS_AMD_RECORDING = "an input recorded on an AMD GPU, which the repository does not ship (not done)"
USERS_TRACE = "names the user's own tritonparse trace files (tritonparse's file names): not shipped (not done)"
RUNS_GPU_PROGRAM = "runs a program that launches on a CUDA GPU (tests/gpu/test_run_gpu.py runs it on one)"
FROM_GPU_RUN = "opens what the GPU run above recorded"
IDIOMLIB = (
    "a library module installed in the user's Python (idiomlib is tests/fixtures/idiomlib, which"
    " tests/test_library_kernels.py puts on the path and opens the same way)"
)
OTHER_TRITONS = (
    "compiles with private copies of three Tritons (tests/test_triton_versions.py, tests/test_triton_axis.py)"
)
SKIPPED = {
    "pip install -e . && irscope tui square_kernel": "installs the package (the TUI command runs below)",
    "bash .ci/run": "is the CI itself",
    "irscope run -o runs/app -- python tests/gpu/run_program.py": RUNS_GPU_PROGRAM,
    "irscope run -o runs/demo -- python tests/gpu/run_program.py": RUNS_GPU_PROGRAM,
    "irscope report runs/demo -o runs/demo/report.html": FROM_GPU_RUN,
    "irscope tui runs/demo": FROM_GPU_RUN,
    "irscope sweep runs/demo/kernels/scale_shift_kernel -s BLOCK=256,512,2048": FROM_GPU_RUN,
    "irscope diff runs/demo/kernels/relu_sq_kernel -a TILE=256 -b TILE=4096": FROM_GPU_RUN,
    "irscope bench runs/demo/kernels/relu_sq_kernel": FROM_GPU_RUN,
    "irscope inductor --log rocm_train.log -o runs/rocm": NEEDS_AMD_RECORDING,
    "irscope tui runs/rocm": NEEDS_AMD_RECORDING,
    "irscope dump trace_mapped.ndjson.gz:add_kernel --stage amdgcn": NEEDS_AMD_RECORDING,
    "irscope sweep rocm-run/kernels/axpy -s BLOCK=256,512 --arch gfx942": NEEDS_AMD_RECORDING,
    "irscope dump logs/dedicated_log_triton_trace_rank_none_pid_7_host_h_.ndjson:add_kernel --stage ttgir": USERS_TRACE,
    "irscope tui parsed/trace_mapped.ndjson.gz:add_kernel": USERS_TRACE,
    "irscope sweep trace.ndjson:add_kernel -s BLOCK_SIZE=128,256,512 -o runs/add": USERS_TRACE,
    "irscope export runs/add -o traces/dedicated_log_triton_trace_add.ndjson": USERS_TRACE,
    "irscope cache --trim 200M": "would trim this machine's shared compile cache (tests/test_cache.py trims its own)",
    "pip install irscope[ray]": "installs a package",
    "export RAY_ADDRESS=10.0.0.5:6379": "names a Ray cluster this machine does not have",
    "irscope sweep square_kernel -s BLOCK_SIZE=64,128,256,512 --arch sm_90 --executor ray -o runs/square": (
        "starts a Ray cluster (tests/test_ray_executor.py)"
    ),
    "irscope bench square_kernel -s BLOCK_SIZE=256,1024 --executor ray --gpu-type H100": "needs a Ray cluster with GPUs",
    "irscope sweep softmax_kernel -s triton=3.6.0,3.8.0,3.9.0 -o runs/upgrade": OTHER_TRITONS,
    "irscope diff softmax_kernel -a triton=3.6.0 -b triton=3.9.0 --stage ttgir": OTHER_TRITONS,
    "irscope passes softmax_kernel --first-divergence -a triton=3.6.0 -b triton=3.9.0": OTHER_TRITONS,
    "irscope tui runs/upgrade": OTHER_TRITONS,
    "pip install --no-deps --target /opt/tritons/3.9.0 triton==3.9.0": "installs a package",
    'pip install "irscope[numba]"': "installs a package (the Numba tests run with it installed)",
    "pip install irscope[mcp]": "installs a package (tests/test_mcp.py runs the server)",
    "irscope run -o runs/three -- python examples/run_languages.py": (
        "compiles TileLang (its first compile ~45 s here) and the CuTe DSL twice each; tests/test_run_languages.py "
        "runs this program under irscope run and checks what the page says of it"
    ),
    "irscope run -o runs/libs -- python examples/library_kernels.py": (
        "runs for minutes (chunk_h's 48 autotune configs); tests/test_real_libraries.py runs it with 2 of them, and"
        " tests/test_library_kernels.py the same idioms from tests/fixtures/idiomlib"
    ),
    "irscope dump idiomlib.ops.loss:cross_entropy_fwd": IDIOMLIB,
    'irscope dump idiomlib.ops.loss:cross_entropy_fwd -S "X_ptr=*fp32:16, X_stride=i32, Y_ptr=*i64:16,      '
    'weight_ptr=None, loss_ptr=*fp32:16, n_cols=i32, softcap=None, n_non_ignore=i32"      -c reduction=mean '
    "-c HAS_WEIGHT=False -c HAS_SOFTCAPPING=False -c BLOCK_SIZE=1024 -c num_warps=8": IDIOMLIB,
    'irscope dump 09-persistent-matmul.py:matmul_kernel_tma --arch sm_100a -S "a_desc=tensordesc<fp16[128, 64]>,      '
    'b_desc=tensordesc<fp16[256, 64]>, c_desc=tensordesc<fp16[128, 256]>, M=i32:16, N=i32:16, K=i32:16" -c ...': (
        "Triton's own tutorial file (python/tutorials/ of its repository), not shipped; the page elides its -c values"
    ),
}
# CuTe DSL commands: they run where nvidia-cutlass-dsl is installed; without it each must fail in one line naming
# the extra that brings it, exit 2 (docs/cute.md says so).
NEEDS_CUTE = {
    'irscope dump examples/cute_add.py:add -S "float32[128,256], float32[128,256], float32[128,256]" --arch sm_90',
    'irscope dump examples/cute_add.py:add -S "float32[128,256], float32[128,256], float32[128,256]"      '
    "-c tile_n=128 --stage ptx",
    'irscope dump examples/cute_kernels.py:mm -S "float16[512,256]:16, float16[512,256]:16, float32[512,512]:16"      '
    "--arch sm_90 --stage cute_ir",
    'irscope diff examples/cute_kernels.py:mm -S "float16[512,256]:16, float16[512,256]:16, float32[512,512]:16"      '
    "--arch sm_90 -a tile_k=16 -b tile_k=32",
    "irscope diff examples/row_sum.py:row_sum_kernel --arch sm_90      "
    '-b kernel=examples/cute_kernels.py:row_sum -b "signature=float32[4096,1024]:16, float32[4096]"',
    "irscope compare examples/row_sum.py:row_sum_kernel examples/cute_kernels.py:row_sum --arch sm_90      "
    '-S "examples/cute_kernels.py:row_sum=float32[4096,1024]:16, float32[4096]"',
    THREE_LANGUAGES,
}
HAS_CUTE = importlib.util.find_spec("cutlass") is not None
# TileLang commands: the same, with tilelang (docs/tilelang.md).
NEEDS_TILELANG = {
    "irscope dump examples/tilelang_kernels.py:add --arch sm_90",
    "irscope dump examples/tilelang_kernels.py:matmul -c block_M=128 -c num_stages=3 --stage ptx",
    "irscope passes examples/tilelang_kernels.py:matmul",
    "irscope passes examples/tilelang_kernels.py:matmul --after LayoutInference",
    "irscope passes examples/tilelang_kernels.py:matmul --first-divergence -a num_stages=2 -b num_stages=3",
    "irscope dump examples/tilelang_kernels.py:add --arch gfx942 --stage all",
    "irscope dump examples/tilelang_kernels.py:row_max --arch gfx942 --stage amdgcn",
    "irscope passes examples/tilelang_kernels.py:row_max --arch gfx942",
    "irscope diff examples/tilelang_kernels.py:add --arch gfx942 -a block=128 -b block=256",
    THREE_LANGUAGES,
}
HAS_TILELANG = importlib.util.find_spec("tilelang") is not None
GPU_ONLY = {
    "irscope bench square_kernel",
    "irscope bench square_kernel -s BLOCK_SIZE=128,1024,8192 -c n_rows=65536 -c n_cols=1024 --ncu",
    "irscope sweep square_kernel -o runs/square --bench",
    "irscope inductor tests/gpu/inductor_fns.py:gelu --input 'f32[4096,4096]'",
}
# Commands a page shows failing, with the exit code docs/bad-input.md gives them.
EXIT_CODES = {
    "irscope dump square_kernel -c BLOCK_SIZE=1000": 3,
    "irscope dump triton-out/cache": 2,  # a folder of two kernels: the line names them
    "irscope passes triton-out/mlir.log": 2,  # a log of four compiles: the line lists them
}
# Output a page shows that this machine cannot print, and why (the command still runs and must succeed).
NOT_COMPARED = {
    "irscope tui square_kernel": "a screen of the TUI; here the app is opened without painting (tests/test_tui*.py)",
    "irscope cache": "this machine's cache sizes",
    "irscope compare gelu_kernel gelu_tanh_kernel gelu_numba_kernel": "the runtimes of an H100 (samples/compare/)",
    "irscope list": "the page cuts the table's columns to fit",
    "irscope sweep square_kernel -s BLOCK_SIZE=128,256,1024 -s num_warps=1,4 -c n_cols=1024 -o runs/square": (
        "its compile times set the table's column widths, and how many variants a warm cache reuses varies"
    ),
}


@dataclass
class Command:
    page: str
    line: str  # as the page writes it, without its trailing comment
    shown: list[str] = field(default_factory=list)  # the output the page shows after it


def _without_comment(line: str) -> str:
    """The command without a trailing ``# comment`` (outside quotes), as the shell reads it."""
    at = line.find(" #")
    while at != -1:
        before = line[:at]
        if before.count('"') % 2 == 0 and before.count("'") % 2 == 0:
            return before.rstrip()
        at = line.find(" #", at + 1)
    return line.rstrip()


def documented_commands() -> list[Command]:
    commands = []
    for page in PAGES:
        text = page.read_text()
        name = page.relative_to(REPO).as_posix()
        for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
            lines = body.replace("\\\n", " ").splitlines()
            if lang in ("bash", "sh", "shell"):
                for line in lines:
                    if line.strip() and not line.strip().startswith("#"):
                        commands.append(Command(name, _without_comment(line.strip())))
            else:
                for line in lines:
                    if line.startswith("$ "):
                        commands.append(Command(name, _without_comment(line[2:].strip())))
                    elif commands and commands[-1].page == name and line.strip() and _in_block(commands[-1], body):
                        commands[-1].shown.append(line)
    return commands


def _in_block(command: Command, body: str) -> bool:
    return any(
        line.startswith("$ ") and _without_comment(line[2:].strip()) == command.line for line in body.splitlines()
    )


def shell_words(line: str, variables: dict[str, str]) -> list[str]:
    """The words bash gives the command, for the commands the pages use: ``$VAR`` expanded, quotes removed.

    An unquoted ``<``, ``>``, ``|``, ``;``, ``&``, ``(`` or ``)`` would be the shell's: the page's command
    would not run as written, so it fails here."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    operators = [word for word in lexer if word and set(word) <= set("<>|;&()")]
    assert not operators, f"{line!r}: the shell reads {operators} as its own"
    expanded = re.sub(r"\$\{?(\w+)\}?", lambda m: variables[m.group(1)], line)
    return shlex.split(expanded)


_DECIMAL = r"(?<![\d.])[-+]?\d+\.\d+(?![\d.])"  # a timing; not a version (3.6.0)


def _pattern(segment: str) -> str:
    """A shown stretch as a regular expression: runs of spaces as any, decimals (timings) as any decimal."""
    parts = re.split(f"({_DECIMAL})", " ".join(segment.split()))
    return "".join(r"(?<![\d.])[-+]?\d+(\.\d+)?(?![\d.])" if re.fullmatch(_DECIMAL, p) else re.escape(p) for p in parts)


def shown_line_printed(shown: str, printed: list[str]) -> bool:
    """Is the page's line in the output? Its text in one printed line (spacing aside), decimal numbers (timings)
    standing for any, and ``...`` for any stretch (a cut column, the rest of a long line)."""
    segments = [_pattern(s) for s in shown.replace("…", "...").split("...") if s.strip()]
    if not segments:
        return True
    pattern = re.compile(".*?".join(segments))
    return any(pattern.search(" ".join(line.split())) for line in printed)


COMMANDS = documented_commands()
BY_PAGE: dict[str, list[Command]] = {}
for _command in COMMANDS:
    BY_PAGE.setdefault(_command.page, []).append(_command)


def test_the_tables_name_only_commands_the_pages_still_show():
    lines = {c.line for c in COMMANDS}
    assert len(COMMANDS) > 60
    assert set(SKIPPED) <= lines, set(SKIPPED) - lines
    assert GPU_ONLY <= lines, GPU_ONLY - lines
    assert NEEDS_CUTE <= lines, NEEDS_CUTE - lines
    assert set(NOT_COMPARED) <= lines, set(NOT_COMPARED) - lines
    assert set(BEFORE.values()) <= lines, set(BEFORE.values()) - lines


def test_the_shell_words_reject_what_the_shell_would_take():
    assert shell_words("irscope dump 'examples/norms.cu:scale<__half>'", {}) == [
        "irscope",
        "dump",
        "examples/norms.cu:scale<__half>",
    ]
    with pytest.raises(AssertionError, match="the shell reads"):
        shell_words("irscope dump examples/norms.cu:scale<__half>", {})
    assert shell_words('irscope sweep x.py:k -S "$SIG"', {"SIG": "*fp32:16, i32"})[-1] == "*fp32:16, i32"


# A page whose commands open what another page's command wrote (runs/square): that command runs first, unchecked.
BEFORE = {
    "docs/diff.md": "irscope sweep square_kernel -s BLOCK_SIZE=128,256,1024 -s num_warps=1,4 -c n_cols=1024 -o runs/square",
    "docs/report.md": "irscope sweep square_kernel -o runs/square",  # README.md's
}


@pytest.mark.parametrize("page", sorted(BY_PAGE))
def test_every_documented_command_runs_as_written(page, tmp_path, monkeypatch):
    """Each page's commands, in order, in a folder of their own laid out as a checkout."""
    from irscope.cli import main
    from irscope.tui.app import IrscopeApp

    for name in ("examples", "samples", "tests"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    opened = []
    monkeypatch.setattr(IrscopeApp, "run", lambda self, *a, **k: opened.append(self))  # opened, not painted
    runner = CliRunner()
    variables: dict[str, str] = {}
    before = [Command(page, BEFORE[page])] if page in BEFORE else []  # its output unchecked
    for command in before + BY_PAGE[page]:
        if command.line in SKIPPED:
            continue
        assignment = re.fullmatch(r"(?:export )?(\w+)=(.*)", command.line)
        if assignment:
            variables[assignment.group(1)] = shlex.split(assignment.group(2))[0]
            continue
        words = shell_words(command.line, variables)
        if words[0] == "python":  # a file a command above wrote (repro.md's reproducer), run as the page runs it
            ran = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True, timeout=300)
            assert ran.returncode == 0, (page, command.line, ran.stderr[-2000:])
            continue
        assert words[0] == "irscope", f"{page}: {command.line!r} is neither run here nor in SKIPPED"
        result = runner.invoke(main, words[1:], catch_exceptions=False)
        where = f"{page}: {command.line}"
        if command.line in NEEDS_CUTE and not HAS_CUTE:
            assert result.exit_code == 2, (where, result.exit_code, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1, (where, result.stderr)
            assert "pip install irscope[cute]" in result.stderr, (where, result.stderr)
            continue
        if command.line in NEEDS_TILELANG and not HAS_TILELANG:
            assert result.exit_code == 2, (where, result.exit_code, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1, (where, result.stderr)
            assert "pip install irscope[tilelang]" in result.stderr, (where, result.stderr)
            continue
        if command.line in EXIT_CODES:  # a page showing what bad input gives: its one line and exit code
            assert result.exit_code == EXIT_CODES[command.line], (where, result.exit_code, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1, (where, result.stderr)
        elif command.line in GPU_ONLY:
            assert result.exit_code == 4, (where, result.exit_code, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1, (where, result.stderr)
            continue
        else:
            assert result.exit_code == 0, (where, result.exit_code, result.stderr[-2000:])
        if command.shown and command.line not in NOT_COMPARED:
            printed = (result.stdout + result.stderr).splitlines()
            missing = [line for line in command.shown if not shown_line_printed(line, printed)]
            assert not missing, (where, missing, result.stdout[-3000:], result.stderr[-1000:])
