"""Start the user's program as it is, with irscope's recorder put in front of it by ``sitecustomize``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import UsageError
from ...frontends.triton.listen import ENV_KERNEL, ENV_LAUNCH_COUNT, ENV_LAUNCH_SKIP
from ...gpu_models import GpuChoice
from .hook import ENV_DIR, ENV_GPU_FREE, ENV_OWNER, ENV_PROFILE

BOOTSTRAP = Path(__file__).parent / "bootstrap"
PASSED_ON = (signal.SIGTERM, signal.SIGHUP)  # what irscope is sent while the program runs goes on to it


@dataclass(frozen=True)
class Finished:
    exit_code: int
    wall_s: float


def environment(
    raw: Path,
    *,
    profile: bool,
    stand_in: GpuChoice | None,
    base: Mapping[str, str] | None = None,
    kernel: str | None = None,
    launch_skip: int = 0,
    launch_count: int | None = None,
) -> dict[str, str]:
    """The program's environment: its own, plus what starts and steers the recorder (``kernel``, ``launch_skip``,
    ``launch_count``: which kernels and launches it keeps, as Nsight Compute's -k/-s/-c)."""
    env = dict(os.environ if base is None else base)
    env.pop(ENV_OWNER, None)
    for name in (ENV_KERNEL, ENV_LAUNCH_SKIP, ENV_LAUNCH_COUNT):
        env.pop(name, None)
    if kernel:
        env[ENV_KERNEL] = kernel
    if launch_skip:
        env[ENV_LAUNCH_SKIP] = str(launch_skip)
    if launch_count is not None:
        env[ENV_LAUNCH_COUNT] = str(launch_count)
    env["PYTHONPATH"] = os.pathsep.join([str(BOOTSTRAP)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env[ENV_DIR] = str(raw.resolve())
    if profile and stand_in is None:
        env[ENV_PROFILE] = "1"
    if stand_in is not None:
        env[ENV_GPU_FREE] = stand_in.spelled()
    # Inductor compiles its kernels in worker processes by default, where Triton's compilation
    # listener does not fire; in-process compiles are the same compiles, seen.
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    return env


# Python's options that take a value as the next word (python -W error prog.py); -m and -c end the options.
PYTHON_VALUE_OPTIONS = ("-W", "-X", "--check-hash-based-pycs")


def check_program(command: Sequence[str]) -> None:
    """Refuse a program that cannot start, before anything is created or imported (a UsageError, exit 2).

    Started as it stands, ``python missing.py`` first imports irscope's recorder (torch, Triton: 10-12 s
    here) only to fail, and left its folder behind. Checked: the command is on PATH (or a file), and a
    Python's script, where it names one, exists. ``python -m MODULE`` and ``-c`` are left to Python.
    """
    program = command[0]
    if shutil.which(program) is None:
        why = "no such file" if os.sep in program else "not found on PATH"
        if os.sep in program and Path(program).exists():
            why = "not an executable file"
        raise UsageError(f"cannot start {program}: {why}")
    if not Path(program).name.startswith("python"):
        return
    words = iter(command[1:])
    for word in words:
        if word in PYTHON_VALUE_OPTIONS:
            next(words, None)
        elif word in ("-m", "-c", "-") or word.startswith(("-m", "-c")) and not word.startswith("--"):
            return
        elif not word.startswith("-"):
            if not Path(word).is_file():
                raise UsageError(f"cannot start {program} {word}: {word}: no such file")
            return


def run_program(command: Sequence[str], env: Mapping[str, str]) -> Finished:
    """Run ``command`` to the end; Ctrl-C goes to the program (it shares the terminal), TERM and HUP on to it."""
    start = time.perf_counter()
    try:
        process = subprocess.Popen(list(command), env=dict(env))
    except OSError as exc:
        raise UsageError(f"cannot start {command[0]}: {exc.strerror or exc}") from None
    # Ignored here only once the program has started: it would inherit SIG_IGN, and Python keeps it.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    # `kill` on irscope stops its program too, which then ends as it would alone: what it compiled is kept.
    passed_on = {
        s: signal.signal(s, lambda signum, frame: process.send_signal(signum))
        for s in PASSED_ON
        if signal.getsignal(s) is not signal.SIG_IGN
    }
    try:
        code = process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        for s, handler in passed_on.items():
            signal.signal(s, handler)
    return Finished(code, time.perf_counter() - start)
