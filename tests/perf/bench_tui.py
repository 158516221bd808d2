"""TUI speed (issue 6).

1. First paint: `irscope tui` started in a real terminal (tmux), until the screen shows the
   variants table and a PTX listing. With the kernel's variants cached (the second start), and
   with the session recorded in samples/. Target <= 1.0 s after the command starts. Each start
   is timed with the bytecode of irscope's modules written (as an installed irscope has it; this
   machine's environment sets PYTHONDONTWRITEBYTECODE=1, which would compile every module from
   source at every start), and says the CPU its process had used by then and the load average.
2. Switching variant and stage on listings of 5,000+ lines (softmax_kernel, BLOCK_SIZE=16384
   on one warp against 32768 on two: ~9,100 PTX and ~18,600 SASS lines), from the keypress sent
   to a real terminal (tmux) to the new listing on its screen. Target <= 50 ms.

    python tests/perf/bench_tui.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent.parent


def tmux_start(args: list[str], **kwargs) -> None:
    """tmux new-session, tried again if the server was still going down from a previous kill."""
    for _attempt in range(3):
        if subprocess.run(["tmux", "new-session", "-d", *args], **kwargs).returncode == 0:
            return
        time.sleep(0.5)
    raise RuntimeError("tmux would not start a session")


class Paint(NamedTuple):
    seconds: float  # from the command's start to the screen showing the table and the listing
    cpu: float | None  # CPU seconds (user + system) the TUI's process had used by then (None: no /proc)
    load: float  # the 1-minute load average as it started


def bytecode_env(folder: str) -> dict[str, str]:
    """Write and reuse the bytecode of what the TUI imports, in ``folder`` (not in the tree)."""
    return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": folder}


def first_paint(
    args: list[str], env: dict[str, str], needle: str = ".version", header: str = "BLOCK_SIZE", tree: Path = REPO
) -> Paint:
    """``irscope tui ARGS`` of the irscope in ``tree``, started in tmux, until the screen shows ``needle`` and ``header``.

    It runs in ``tree``: ``python -m`` puts the working directory first on sys.path, ahead of PYTHONPATH.
    """
    session = f"bench-{uuid.uuid4().hex[:8]}"
    env_args = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    tmux_start(
        ["-s", session, "-x", "120", "-y", "36", *env_args, sys.executable, "-m", "irscope", "tui", *args], cwd=tree
    )
    try:
        pid = subprocess.run(
            ["tmux", "display-message", "-p", "-t", session, "#{pane_pid}"], capture_output=True, text=True
        ).stdout.strip()
        while time.perf_counter() - start < 30:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            if needle in screen and header in screen:
                return Paint(time.perf_counter() - start, cpu_seconds(pid), load)
            time.sleep(0.005)
        raise RuntimeError("the TUI never painted")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def cpu_seconds(pid: str) -> float | None:
    """User + system CPU of process ``pid`` so far (the pane runs the command itself, not a shell)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def paints(runs: list[Paint]) -> str:
    """Best and median of ``runs``, each run with its CPU and load average."""
    seconds = [r.seconds for r in runs]
    each = ", ".join(
        f"{r.seconds:.2f}"
        + (f" (cpu {r.cpu:.2f}, load {r.load:.1f})" if r.cpu is not None else f" (load {r.load:.1f})")
        for r in runs
    )
    return f"best {min(seconds):.2f} s, median {statistics.median(seconds):.2f} s; runs: {each}"


def switching(tmp: str) -> dict:
    """Keypress to screen in a real terminal: tmux send-keys, then poll capture-pane for the change."""
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs
    from irscope.session import Session, run_sweep

    ref = resolve_kernel("softmax_kernel")
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})[:0] + [
        c
        for c in sweep_configs(
            ref.parameter_table(), ref.name, {"BLOCK_SIZE": ["16384", "32768"], "num_warps": ["1", "2"]}, {}
        )
        if (c.constexprs["BLOCK_SIZE"], c.options["num_warps"]) in ((16384, 1), (32768, 2))
    ]
    session = Session.create(Path(tmp) / "softmax", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
    variants = [r.variant for r in sorted(run_sweep(ref, configs, "sm_90", session), key=lambda r: r.index)]
    sizes = {
        st: [
            len(v.listings[getattr(__import__("irscope.types").types.Stage, st.upper())].splitlines()) for v in variants
        ]
        for st in ("ptx", "sass")
    }
    name = f"bench-{uuid.uuid4().hex[:8]}"
    trace = Path(tmp) / "trace.txt"
    tmux_start(
        [
            "-s",
            name,
            "-x",
            "160",
            "-y",
            "50",
            "-e",
            f"IRSCOPE_TUI_TRACE={trace}",
            sys.executable,
            "-m",
            "irscope",
            "tui",
            str(session.path),
        ],
        cwd=REPO,
    )

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout

    def timed(key: str, marker: str) -> float:
        start = time.perf_counter()
        subprocess.run(["tmux", "send-keys", "-t", name, key], check=True)
        while time.perf_counter() - start < 10:
            if marker in screen():
                return time.perf_counter() - start
        raise RuntimeError(f"{marker!r} never appeared after {key}")

    times: dict[str, list[float]] = {"variant": [], "stage": [], "floor": []}
    try:
        deadline = time.time() + 30
        while ".reqntid 32" not in screen() and time.time() < deadline:
            time.sleep(0.05)
        for _ in range(4):  # the floor: a key that only rewrites the status line (and a 2-row table)
            for label in ("median_us", "BLOCK_SIZE", "num_warps", "registers", "sweep order"):
                times["floor"].append(timed("o", f"sorted by {label}"))
        for _ in range(8):
            times["variant"].append(timed("Down", ".reqntid 64"))
            times["variant"].append(timed("Up", ".reqntid 32"))
            times["stage"].append(timed("6", "/*0000*/"))
            times["stage"].append(timed("5", ".reqntid 32"))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    inside = in_app_latencies(trace.read_text())
    return {
        "sizes": sizes,
        **{k: statistics.median(v) for k, v in times.items()},
        **{f"{k}_max": max(v) for k, v in times.items()},
        **{f"app_{k}": statistics.median(v) for k, v in inside.items()},
        **{f"app_{k}_max": max(v) for k, v in inside.items()},
    }


def in_app_latencies(trace: str) -> dict[str, list[float]]:
    """From the app's own trace: key received -> listing shown -> screen written, per switch."""
    events = [line.split() for line in trace.splitlines() if line.strip()]
    out: dict[str, list[float]] = {"variant": [], "stage": []}
    for i, (kind, what, when) in enumerate(events):
        if kind != "key" or what not in ("down", "up", "5", "6"):
            continue
        show = next((j for j in range(i + 1, len(events)) if events[j][0] in ("show", "key")), None)
        if show is None or events[show][0] != "show":
            continue
        written = next((float(e[2]) for e in events[show + 1 :] if e[0] == "display"), None)
        if written is not None:
            out["variant" if what in ("down", "up") else "stage"].append(written - float(when))
    return out


def tmux_overhead() -> float:
    """What one capture-pane costs: the floor under every figure above."""
    name = f"bench-{uuid.uuid4().hex[:8]}"
    tmux_start(["-s", name, "-x", "160", "-y", "50", "sleep", "30"])
    try:
        start = time.perf_counter()
        for _ in range(20):
            subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True)
        return (time.perf_counter() - start) / 20
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"IRSCOPE_CACHE_DIR": f"{tmp}/cache"}
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from irscope.frontends import resolve_kernel; from irscope.capturing import "
                "capture_many; from irscope.frontends.config import sweep_configs; r = resolve_kernel('square_kernel');"
                " list(capture_many(r, sweep_configs(r.parameter_table(), r.name, {}, {}), None))",
            ],
            env={**os.environ, **env},
            check=True,
        )
        env.update(bytecode_env(f"{tmp}/bytecode"))
        first_paint(["samples/sessions/square_kernel"], env)  # writes the bytecode: not timed
        cached = [first_paint(["square_kernel"], env) for _ in range(5)]
        session = [first_paint(["samples/sessions/square_kernel"], env) for _ in range(5)]
        result = switching(tmp)
    overhead = tmux_overhead()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print(f"first paint, `irscope tui square_kernel`, 21 variants cached: {paints(cached)}   (target <= 1.0 s)")
    print(f"first paint, `irscope tui samples/sessions/square_kernel`: {paints(session)}   (target <= 1.0 s)")
    print(f"listing sizes (lines, the two variants): {result['sizes']}")
    print(
        f"switch variant, keypress to screen in tmux: median {result['variant'] * 1e3:.1f} ms, max "
        f"{result['variant_max'] * 1e3:.1f} ms   (target <= 50 ms)"
    )
    print(
        f"switch stage, keypress to screen in tmux:   median {result['stage'] * 1e3:.1f} ms, max "
        f"{result['stage_max'] * 1e3:.1f} ms   (target <= 50 ms)"
    )
    print(
        f"  the same terminal round trip for a key that only rewrites the status line: median "
        f"{result['floor'] * 1e3:.1f} ms (one tmux capture-pane alone costs {overhead * 1e3:.1f} ms)"
    )
    print(
        f"inside the app, key received to screen written: variant median {result['app_variant'] * 1e3:.1f} ms "
        f"(max {result['app_variant_max'] * 1e3:.1f}), stage median {result['app_stage'] * 1e3:.1f} ms "
        f"(max {result['app_stage_max'] * 1e3:.1f})   (target <= 50 ms)"
    )


if __name__ == "__main__":
    main()
