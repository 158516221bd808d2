"""Where `irscope bench` spends its time, every process on one clock (issue 32): the timeline of the command.

Runs the CLI as a user does, with ``IRSCOPE_TIMELINE`` set (irscope/processes/timeline.py), from empty caches
and then warm, and prints each step's second since the command's process started: the main
process, its compile workers and its GPU worker(s). Runs of the same kind of step ("variant 3
measured") are folded into their first and last.

    python tests/perf/probe_cli_timeline.py [--gpus 0] [--runs cold,warm,warm@0+1] [-- extra bench args]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

SQUARE = ["square_kernel", "-s", "BLOCK_SIZE=128,256,512,1024,2048,4096,8192", "-s", "num_warps=1,4,8"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", default="0")
    parser.add_argument(
        "--runs",
        default="cold,warm",
        help="names of runs, in order; a name with 'fresh' in it keeps no GPU worker parent; NAME@0+1 runs on "
        "GPUs 0 and 1 instead of --gpus",
    )
    parser.add_argument("extra", nargs="*", help="bench arguments (default: the 21-variant square sweep)")
    args = parser.parse_args()
    bench_args = args.extra or SQUARE
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "IRSCOPE_CACHE_DIR": f"{tmp}/irscope", "TRITON_CACHE_DIR": f"{tmp}/triton"}
        for run in args.runs.split(","):
            run, _, gpus = run.partition("@")
            gpus = gpus.replace("+", ",") or args.gpus
            log = f"{tmp}/{run}.timeline"
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "irscope", "bench", *bench_args, "--gpus", gpus],
                env={**env, "IRSCOPE_TIMELINE": log, **({"IRSCOPE_KEEP_GPU_WORKERS": "0"} if "fresh" in run else {})},
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - start
            print(
                f"== {run}: `irscope bench {' '.join(bench_args)} --gpus {gpus}`: exit {done.returncode}, "
                f"wall {wall:.2f} s"
            )
            if done.returncode not in (0, 1):
                print(done.stderr[-2000:])
            print(folded(open(log).read().splitlines()) if os.path.exists(log) else "(no timeline written)")


def folded(lines: list[str]) -> str:
    """The timeline with runs of one kind of step folded into their first and last."""
    out: list[str] = []
    run: list[str] = []

    def kind(line: str) -> str:
        return re.sub(r"\d+", "N", line.split(None, 2)[2]) if len(line.split(None, 2)) == 3 else line

    def flush() -> None:
        if len(run) > 2:
            out.extend([run[0], f"      ... {len(run) - 2} more", run[-1]])
        else:
            out.extend(run)
        run.clear()

    for line in sorted(lines, key=lambda ln: float(ln.split()[0])):
        if run and kind(line) != kind(run[0]):
            flush()
        run.append(line)
    flush()
    return "\n".join(out)


if __name__ == "__main__":
    main()
