"""`irscope run` overhead (issue 13): wall time of a program with and without irscope recording it.

The program is tests/gpu/run_program.py (a plain Triton kernel, an autotuned one and a
torch.compile'd function); its kernels are already in Triton's and Inductor's caches
(one plain run first). Plain and recorded runs alternate; the median of --repeat each
is printed, with the ratio, what irscope added in seconds, and where that went
(the program's own wall time under irscope vs collecting the sessions afterwards).
Needs a GPU.

    python tests/perf/bench_run.py [--repeat 3] [--steps 5000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = str(Path(__file__).resolve().parents[1] / "gpu" / "run_program.py")


def timed(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed: {done.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5000, help="launches of each of the program's kernels")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # irscope run compiles Inductor's kernels in the program's process (TORCHINDUCTOR_COMPILE_THREADS=1,
        # so Triton's listener sees them); the program alone is timed both as it is and with that setting.
        env = {
            **os.environ,
            "TRITON_CACHE_DIR": f"{tmp}/triton",
            "TORCHINDUCTOR_CACHE_DIR": f"{tmp}/inductor",
            "RUN_PROGRAM_STEPS": str(args.steps),
        }
        same = {**env, "TORCHINDUCTOR_COMPILE_THREADS": "1"}
        timed([sys.executable, PROGRAM], env)  # fills the caches
        timed([sys.executable, PROGRAM], same)
        as_is, plain, recorded, inside, kernels = [], [], [], [], []
        for n in range(args.repeat):
            as_is.append(timed([sys.executable, PROGRAM], env))
            plain.append(timed([sys.executable, PROGRAM], same))
            out = f"{tmp}/run{n}"
            recorded.append(
                timed([sys.executable, "-m", "irscope", "run", "-o", out, "--", sys.executable, PROGRAM], env)
            )
            index = json.loads(Path(out, "run.json").read_text())
            inside.append(index["wall_s"])
            kernels.append(sorted(f"{k['name']}:{k['gpu_calls']}" for k in index["kernels"]))
        p, r, i = statistics.median(plain), statistics.median(recorded), statistics.median(inside)
        print(f"program as it is: {statistics.median(as_is):.2f} s (runs: {', '.join(f'{x:.2f}' for x in as_is)})")
        print(
            f"program alone, Inductor compiling in-process as under irscope: {p:.2f} s "
            f"(runs: {', '.join(f'{x:.2f}' for x in plain)})"
        )
        print(f"kernels captured (name:GPU calls) per recorded run: {kernels}")
        print(f"under irscope run: {r:.2f} s (runs: {', '.join(f'{x:.2f}' for x in recorded)})")
        print(
            f"  of which the program itself (recorder and profiler inside it): {i:.2f} s; "
            f"irscope's start-up and collecting the sessions: {r - i:.2f} s"
        )
        print(f"ratio: {r / p:.3f} (target <= 1.10); added {r - p:.2f} s; steps={args.steps}")


if __name__ == "__main__":
    main()
