"""What capture costs over Triton itself (issues 2 and 42): 21 square_kernel variants for sm_90 from empty
caches, whole processes, beside a plain ``triton.compile`` loop over the same configs; then the CLI on a
cached variant beside the floor it cannot go under.

1. Capture, cold: each run is a fresh process with empty Triton and irscope caches, timed from its start
   (its imports count) to its exit: wall seconds, and CPU seconds (user + system) of the process and every
   process it started and waited for (workers, ptxas, nvdisasm: ``RUSAGE_CHILDREN`` across the run). The
   plain loop is ``triton.compile`` once per config, one after another, in one process, with the same
   specialization (no SASS, nothing written); irscope is ``capture_many`` as ``irscope sweep`` runs it (one
   compile worker per core, SASS, the cache written), every variant checked ok with its SASS. The two run
   in turn (A B A B ...) and each pair gives a ratio, so a machine whose speed drifts (other jobs) moves
   both; the medians of the ratios are printed. Target (issue 42): wall <= 0.65x the loop's with two cores.
   Then the same capture with Triton's hash of itself kept from an earlier worker (``triton-keys``, which
   every capture after a machine's first finds; frontends/triton/source_key.py), Triton and variants cold.
2. The CLI on a cached variant: ``irscope --help``, ``irscope dump square_kernel -c BLOCK_SIZE=1024`` and
   ``irscope diff square_kernel -a BLOCK_SIZE=256 -b BLOCK_SIZE=1024``, each beside ``python -c "import
   triton; import kernels/square.py"``, the floor of a cached dump or diff: the cache key holds Triton's own
   hash of the kernel (``fn.cache_key``), which needs the kernel imported with Triton. With the bytecode
   of irscope's modules written once and reused, as an installed irscope has it (this machine's environment
   sets PYTHONDONTWRITEBYTECODE=1). Targets (issue 42): 0.1 / 0.2 / 0.25 s.

The load average is printed beside each figure: other jobs on the machine slow every run.

    python tests/perf/bench_capture.py [--repeat 5] [--cli-repeat 7] [--no-cli]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
TRITON_KEYS = "triton-keys"  # irscope.paths.TRITON_KEYS, written out: the bench also runs against older checkouts

CONFIGS = [(b, w) for b in (128, 256, 512, 1024, 2048, 4096, 8192) for w in (1, 4, 8)]

PRELUDE = r"""
import json, sys
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
kernel = resolve_kernel("square_kernel")
configs = [resolve_config(kernel, {"BLOCK_SIZE": b, "num_warps": w}) for b, w in CONFIGS]
"""

LOOP = r"""
import triton
from triton.backends.compiler import GPUTarget
from irscope.frontends.triton.specialize import specialize
target = GPUTarget("cuda", 90, 32)
for config in configs:
    source, options = specialize(kernel, config, 90)[:2]
    triton.compile(source, target=target, options=options)
print(json.dumps({"count": len(configs)}))
"""

CAPTURE = r"""
from irscope.capturing import capture_many
got = list(capture_many(kernel, configs, "sm_90"))
assert all(c.variant.ok and "sass" in {s.value for s in c.variant.listings} for c in got), "a variant failed"
print(json.dumps({"count": len(got), "hits": sum(c.cached for c in got)}))
"""


def load() -> float:
    return os.getloadavg()[0]


def whole_process(
    body: str, env: dict[str, str] | None = None, keys: Path | None = None, keep_keys: Path | None = None
) -> dict[str, float]:
    """Run ``body`` in a fresh process with empty caches: its wall seconds and the CPU seconds of its tree.
    ``keys``: a ``triton-keys`` folder to start the irscope cache with (Triton's hash of itself, kept by the
    first worker that ever ran: frontends/triton/source_key.py), as every capture after the first has it;
    ``keep_keys``: where to copy the one this run kept."""
    with tempfile.TemporaryDirectory() as tmp:
        if keys is not None:
            shutil.copytree(keys, f"{tmp}/irscope/{TRITON_KEYS}")
        env = {
            **os.environ,
            **(env or {}),
            "TRITON_CACHE_DIR": f"{tmp}/triton",
            "IRSCOPE_CACHE_DIR": f"{tmp}/irscope",
            "PYTHONPATH": str(REPO),
        }
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", f"CONFIGS = {CONFIGS!r}\n{PRELUDE}{body}"],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if keep_keys is not None and out.returncode == 0 and os.path.isdir(f"{tmp}/irscope/{TRITON_KEYS}"):
            shutil.copytree(f"{tmp}/irscope/{TRITON_KEYS}", keep_keys)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["count"] == len(CONFIGS) and result.get("hits", 0) == 0, result
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "load": load()}


def timed_command(args: list[str], env: dict[str, str]) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, env=env, capture_output=True, check=True, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "load": load()}


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def capture_figures(repeat: int) -> list[str]:
    # The bytecode of what both import is written once (not timed), as an installed irscope and Triton have it.
    with tempfile.TemporaryDirectory() as pyc:
        env = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": pyc}
        keys = Path(pyc) / "kept-keys"
        whole_process(CAPTURE, env, keep_keys=keys)
        whole_process(LOOP, env)
        loops, captures, kept = [], [], []
        for _ in range(repeat):
            loops.append(whole_process(LOOP, env))
            captures.append(whole_process(CAPTURE, env))
            if keys.exists():  # (an irscope from before source_key.py keeps none)
                kept.append(whole_process(CAPTURE, env, keys=keys))
    walls = [c["wall"] / b["wall"] for b, c in zip(loops, captures)]
    cpus = [c["cpu"] / b["cpu"] for b, c in zip(loops, captures)]
    kept_walls = [c["wall"] / b["wall"] for b, c in zip(loops, kept)]
    kept_cpus = [c["cpu"] / b["cpu"] for b, c in zip(loops, kept)]

    def row(label: str, runs: list[dict[str, float]]) -> str:
        each = ", ".join(f"{r['wall']:.2f}/{r['cpu']:.2f} (load {r['load']:.1f})" for r in runs)
        return f"{label}: wall {median(runs, 'wall'):.2f} s, cpu {median(runs, 'cpu'):.2f} s   (runs wall/cpu: {each})"

    lines = [
        row("plain triton.compile loop, 21 configs, cold", loops),
        row(f"irscope capture incl. SASS, {len(CONFIGS)} configs, cold", captures),
        f"  irscope / loop, pair by pair: wall {statistics.median(walls):.2f}x (min {min(walls):.2f}x), "
        f"cpu {statistics.median(cpus):.2f}x (min {min(cpus):.2f}x)   (target: wall <= 0.65x with 2 cores)",
    ]
    if not kept:
        return lines
    return [
        *lines,
        row("irscope capture, the same, Triton's key kept (every capture after the first)", kept),
        f"  irscope / loop, pair by pair: wall {statistics.median(kept_walls):.2f}x (min {min(kept_walls):.2f}x), "
        f"cpu {statistics.median(kept_cpus):.2f}x (min {min(kept_cpus):.2f}x)",
    ]


def cli_figures(repeat: int) -> list[str]:
    python = sys.executable
    floor = [python, "-c", "import triton, sys; sys.path.insert(0, 'kernels'); import square"]
    commands = {
        "irscope --help": ([python, "-m", "irscope", "--help"], [python, "-c", "pass"], 0.1),
        "irscope dump (cached)": (
            [python, "-m", "irscope", "dump", "square_kernel", "-c", "BLOCK_SIZE=1024"],
            floor,
            0.2,
        ),
        "irscope diff (cached)": (
            [python, "-m", "irscope", "diff", "square_kernel", "-a", "BLOCK_SIZE=256", "-b", "BLOCK_SIZE=1024"],
            floor,
            0.25,
        ),
    }
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "TRITON_CACHE_DIR": f"{tmp}/triton",
            "IRSCOPE_CACHE_DIR": f"{tmp}/irscope",
            "PYTHONDONTWRITEBYTECODE": "",
            "PYTHONPYCACHEPREFIX": f"{tmp}/bytecode",
            "PYTHONPATH": str(REPO),
        }
        for label, (command, under, target) in commands.items():
            timed_command(command, env)  # fills the caches and writes the bytecode: not timed
            timed_command(under, env)
            ours, base = [], []
            for _ in range(repeat):
                ours.append(timed_command(command, env))
                base.append(timed_command(under, env))
            ratio = statistics.median(o["wall"] / b["wall"] for o, b in zip(ours, base))
            loads = [r["load"] for r in ours]
            lines.append(
                f"{label:<22} wall median {median(ours, 'wall'):.3f} s (min {min(r['wall'] for r in ours):.3f}), "
                f"cpu {median(ours, 'cpu'):.3f} s; floor ({' '.join(under[1:])[:40]}) {median(base, 'wall'):.3f} s; "
                f"{ratio:.2f}x the floor; load {min(loads):.1f}-{max(loads):.1f}   (target {target} s)"
            )
    return lines


def machine() -> str:
    model = "?"
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    import triton

    return (
        f"machine: {os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable), {model}, python "
        f"{platform.python_version()}, triton {triton.__version__}; load average {os.getloadavg()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5, help="Pairs of cold runs (loop, capture).")
    parser.add_argument("--cli-repeat", type=int, default=7, help="Runs of each CLI command and its floor.")
    parser.add_argument("--no-cli", action="store_true", help="Only the capture figures.")
    args = parser.parse_args()
    print(machine(), flush=True)
    for line in capture_figures(args.repeat):
        print(line, flush=True)
    if not args.no_cli:
        for line in cli_figures(args.cli_repeat):
            print(line, flush=True)
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
