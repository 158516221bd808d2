"""What only a real process shows: the working directory's files, signals to irscope, a kernel file that recurses.

Python puts a ``-c``/``-m`` program's working directory first on ``sys.path``, so a ``pickle.py``
lying there is imported by any such process irscope starts. irscope's own process is started here
as its console script starts it, so a canary can come only from what irscope starts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .case import Case
from .payloads import module
from .workspace import Outcome, Workspace, console_script, process

SHADOWS = ("pickle", "json", "selectors", "triton", "numpy", "multiprocessing", "sitecustomize", "irscope")


def _shadow_case(name: str, argv: tuple[str, ...]) -> Case:
    def prepare(ws: Workspace, originals):
        if name in ("multiprocessing", "irscope", "triton"):
            (ws.work / name).mkdir()
            (ws.work / name / "__init__.py").write_text(module(ws.canary_path(name)))
        else:
            (ws.work / f"{name}.py").write_text(module(ws.canary_path(name)))
        cache = ws.allow(ws.work / "cache")  # a cache of its own: a hit would start no worker
        args = [a.replace("{out}", str(ws.allow(ws.work / "out"))) for a in argv]
        return process(*args, cwd=ws.work, env={"IRSCOPE_CACHE_DIR": str(cache)})

    return Case(
        f"working directory@{argv[0]}", f"a {name} module in the working directory", prepare, frozenset({0}), slow=True
    )


def shadow_cases() -> list[Case]:
    dump = ("dump", "square_kernel", "-c", "BLOCK_SIZE=256", "--no-cache")
    sweep = ("sweep", "square_kernel", "-s", "BLOCK_SIZE=128,256", "-j", "2", "-o", "{out}")
    cases = [_shadow_case(name, dump) for name in SHADOWS]
    cases += [_shadow_case(name, sweep) for name in ("pickle", "triton")]
    cases += [_shadow_case("pickle", ("list",))]
    return cases


# ---------------------------------------------------------------- signals: nothing irscope started outlives it

SLOW_CU = """#ifndef N
#define N 40000
#endif
__global__ void slow_kernel(float* y, int n) {
    float a = threadIdx.x;
    #pragma unroll
    for (int i = 0; i < N; ++i) { a = a * 1.0001f + __sinf(a) * (i & 7); if (a > n) a -= y[i % 64]; }
    y[threadIdx.x] = a;
}
"""


def descendants(root: int) -> dict[int, str]:
    """Every living process below ``root``: pid -> its command name."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
            if rest[0] != "Z":
                parents[int(entry)], names[int(entry)] = int(rest[1]), name
    found, frontier = {}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found[child] = names[child]
                frontier.append(child)
    return found


def _alive(pids) -> list[int]:
    out = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.append(pid)
    return out


def _signal_case(signame: str) -> Case:
    def prepare(ws: Workspace, originals):
        cu = ws.work / "slow.cu"
        cu.write_text(SLOW_CU)
        launcher = console_script(ws.work)
        cache = ws.allow(ws.work / "cache")
        ws.allow(ws.work / "out")

        def run() -> Outcome:
            env = {**os.environ, "IRSCOPE_CACHE_DIR": str(cache)}
            proc = subprocess.Popen(
                [
                    sys.executable,
                    str(launcher),
                    "sweep",
                    f"{cu}:slow_kernel",
                    "-j",
                    "1",
                    "-o",
                    str(ws.work / "out"),
                    "--compile-timeout",
                    "600",
                ],
                cwd=ws.work,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            started: dict[int, str] = {}  # pid -> its command's name
            deadline = time.monotonic() + 120
            while (
                not any(n in ("cicc", "ptxas", "nvcc") for n in started.values())
                and time.monotonic() < deadline
                and proc.poll() is None
            ):
                time.sleep(0.2)
                started.update(descendants(proc.pid))
            os.kill(proc.pid, getattr(signal, signame))
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
            time.sleep(3)  # a worker's own watchdog may take a moment
            left = _alive(started)
            for pid in left:  # ours: started by the irscope this case started
                os.kill(pid, signal.SIGKILL)
            if not any(n in ("cicc", "ptxas", "nvcc") for n in started.values()):
                return Outcome(1, "", f"irscope: error: no compiler started (saw {sorted(set(started.values()))})\n")
            if left:
                return Outcome(1, "", f"irscope: error: outlived irscope: {sorted({started[p] for p in left})}\n")
            return Outcome(0, "", "")

        return run

    return Case(
        "signals@sweep",
        f"SIG{signame[3:]} to irscope mid-compile leaves no process behind",
        prepare,
        frozenset({0}),
        slow=True,
    )


# ---------------------------------------------------------------- a kernel file that calls irscope at import

RECURSIVE = """from irscope.capturing import capture

capture("square_kernel", {"BLOCK_SIZE": 512}, arch="sm_90", use_cache=False)
"""
MOST_PROCESSES = 8


def _recursion_case() -> Case:
    def prepare(ws: Workspace, originals):
        script = ws.work / "calls_irscope.py"
        script.write_text(RECURSIVE)
        cache = ws.allow(ws.work / "cache")

        def run() -> Outcome:
            env = {**os.environ, "IRSCOPE_CACHE_DIR": str(cache)}
            proc = subprocess.Popen(
                [sys.executable, str(script)],
                cwd=ws.work,
                env=env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            most, deadline = 0, time.monotonic() + 90
            while proc.poll() is None and time.monotonic() < deadline and most <= MOST_PROCESSES:
                most = max(most, len([n for n in descendants(proc.pid).values() if n.startswith("python")]))
                time.sleep(0.2)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)  # its own session: the group is this script and what it started
            err = proc.communicate()[1]
            if most > MOST_PROCESSES:
                return Outcome(1, "", f"irscope: error: {most} Python processes and growing\n")
            if proc.returncode != 0:  # the user's own script: its error is theirs to read, in any form
                return Outcome(1, "", f"irscope: error: exit {proc.returncode}: {err.strip().splitlines()[-1:]}\n")
            return Outcome(0, "", "")

        return run

    return Case(
        "kernel file run as a script", "it calls irscope's capture at import", prepare, frozenset({0}), slow=True
    )


def process_cases() -> list[Case]:
    return [*shadow_cases(), *(_signal_case(s) for s in ("SIGTERM", "SIGHUP", "SIGKILL")), _recursion_case()]
