"""What a GPU worker's warm-up and its first variants spend, function by function (issue 32's fixed cost).

A fresh process does what a worker forked from the resident parent does: the parent's imports and
Triton's ``triton_key`` first (not timed), then the worker's warm-up and the first variants of the
sweep, each timed, and profiled in a second fresh process. Caches are warmed by a first process, as
for a second `irscope bench` of the same sweep.

    python tests/perf/probe_first_variant.py matmul_kernel -s BLOCK_SIZE_M=64,128 [--variants 3] [--top 30]
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import subprocess
import sys
import tempfile
import time


def child(args: argparse.Namespace) -> None:
    import cProfile
    import pstats

    import torch  # noqa: F401  (the resident parent's preload)
    from triton.runtime.cache import triton_key

    triton_key()
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import parse_sweep, sweep_configs
    from irscope.measure import worker

    kernel = resolve_kernel(args.kernel)
    configs = sweep_configs(kernel.parameter_table(), kernel.name, parse_sweep(args.s), {})
    state = worker.MeasureState()
    steps = [("warm-up", lambda: worker.warm_up(state))]
    steps += [
        (f"variant {i} ({c.label()})", functools.partial(worker.answer, state, kernel.handle(), c, {}))
        for i, c in enumerate(configs[: args.variants])
    ]
    for name, step in steps:
        profile = cProfile.Profile() if args.mode == "profile" else None
        start = time.perf_counter()
        if profile is not None:
            profile.enable()
        result = step()
        if profile is not None:
            profile.disable()
        if args.mode == "warm":
            continue
        print(f"== {name}: {time.perf_counter() - start:.3f} s ({getattr(result, 'status', result)})", flush=True)
        if profile is not None:
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(args.top)
            print(text.getvalue().split("\n\n", 2)[-1], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kernel", nargs="?", default="matmul_kernel")
    parser.add_argument("-s", action="append", default=[], help="sweeps, as bench's -s")
    parser.add_argument("--variants", type=int, default=3)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--mode", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode:
        child(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "IRSCOPE_CACHE_DIR": f"{tmp}/irscope", "TRITON_CACHE_DIR": f"{tmp}/triton"}
        for mode in ("warm", "time", "profile"):
            print(f"#### {mode}", flush=True)
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--mode", mode], env=env, check=False)


if __name__ == "__main__":
    main()
