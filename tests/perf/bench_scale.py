"""Sweeps at scale (issue 32): first-result latency and wall time for 21, 200 and 1,000 variants, each beside
the bare sequential loop, and the TUI's first paint of a 5,000-variant session.

The kernel is ``tests/scale_kernel.py:poly``, written for this benchmark: Horner's rule of degree TERMS
unrolled (each TERMS value is different code) x BLOCK x num_warps. Every run starts in a fresh process
with empty Triton and irscope caches; times are from the moment the process is started (its imports
count) to the first variant done and to the last.

- compile only (the default; any machine, no GPU needed): irscope's ``run_sweep`` into a session for
  sm_90, as ``irscope sweep -o`` runs it (compiles in one worker per core, SASS, the session written),
  beside ``triton.compile`` called once per config, one after another, in one process, with the same
  specialization (no SASS, nothing written).
- ``--gpu`` (on the device): irscope's ``bench`` (compile, check, time with CUPTI) on one GPU and on
  two (``--gpus 0,1``), beside the bare loop: each config launched through Triton's JIT and timed with
  ``triton.testing.do_bench``, one after another.
- the TUI: ``irscope tui SESSION`` of a 5,000-variant session (tests/large_session.py says how it is made)
  and of the 21-variant session in samples/, in a real terminal (tmux), from the command's start to the
  table and a PTX listing on screen (bench_tui.first_paint), five starts each: with the bytecode of
  irscope's modules written once and reused, as an installed irscope has it, and as this machine's
  environment starts Python (PYTHONDONTWRITEBYTECODE=1: every irscope module compiled from source at
  each start); skipped where textual or tmux is missing (the device).

    python tests/perf/bench_scale.py [--sizes 21,200,1000] [--gpu [--gpus 0,1]] [--no-tui]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
KERNEL = TESTS / "scale_kernel.py"

# The configs of each size: (BLOCKs, num_warps, TERMS), their product in this order.
SIZES = {
    21: ((128,), (1, 4, 8), tuple(range(1, 8))),
    200: ((32, 64, 128, 256, 512), (1, 2, 4, 8), tuple(range(1, 11))),
    1000: ((32, 64, 128, 256, 512), (1, 2, 4, 8), tuple(range(1, 51))),
}

PRELUDE = r"""
import json, sys, time
sys.path.insert(0, {tests!r})
from irscope.frontends.config import resolve_config
from irscope.frontends import resolve_kernel
kernel = resolve_kernel({kernel!r})
configs = [resolve_config(kernel, {{"BLOCK": b, "num_warps": w, "TERMS": t}})
           for b in {blocks!r} for w in {warps!r} for t in {terms!r}]
marks = {{}}
"""

BARE_COMPILE = r"""
import triton
from triton.backends.compiler import GPUTarget
from irscope.frontends.triton.specialize import specialize
target = GPUTarget("cuda", 90, 32)
for config in configs:
    source, options = specialize(kernel, config, 90)[:2]
    triton.compile(source, target=target, options=options)
    marks.setdefault("first", time.time())
marks.update(last=time.time(), count=len(configs))
"""

IRSCOPE_COMPILE = r"""
from irscope.session import Session, run_sweep
session = Session.of_kernel({out!r}, kernel, kernel.parameter_table())
done = 0
for result in run_sweep(kernel, configs, "sm_90", session):
    assert result.variant.ok, result.variant.error
    marks.setdefault("first", time.time())
    done += 1
marks.update(last=time.time(), count=done)
"""

BARE_GPU = r"""
import torch, triton, triton.testing
from scale_kernel import poly
n = 1 << 20
x = torch.rand(n, device="cuda")
y = torch.empty_like(x)
for config in configs:
    c = config.constexprs
    grid = (triton.cdiv(n, c["BLOCK"]),)
    run = lambda: poly[grid](y, x, n, BLOCK=c["BLOCK"], TERMS=c["TERMS"], num_warps=config.options["num_warps"])
    run()
    triton.testing.do_bench(run)
    marks.setdefault("first", time.time())
marks.update(last=time.time(), count=len(configs))
"""

IRSCOPE_GPU = r"""
from irscope.measure.bench import bench
from irscope.session import Session
session = Session.of_kernel({out!r}, kernel, kernel.parameter_table())
latest = {{}}
for result in bench(kernel, configs, session, gpus={gpus!r}):
    latest[result.index] = result
    marks.setdefault("first", time.time())
bad = [r for r in latest.values() if r.measurement.status.value != "ok"]
assert len(latest) == len(configs) and not bad, [str(r.measurement.error) for r in bad][:3]
marks.update(last=time.time(), count=len(latest))
"""


IRSCOPE_TREE = [REPO]  # which irscope the timed processes import (--irscope: compare with another tree)


def timed(body: str, size: int, **values) -> dict[str, float]:
    """Run ``body`` in a fresh process with empty caches: seconds from its start to the first result and the last."""
    blocks, warps, terms = SIZES[size]
    with tempfile.TemporaryDirectory() as tmp:
        values.setdefault("out", f"{tmp}/session")
        code = PRELUDE.format(tests=str(TESTS), kernel=f"{KERNEL}:poly", blocks=blocks, warps=warps, terms=terms)
        code += body.format(**values) + "\nprint(json.dumps(marks))\n"
        env = {**os.environ, "TRITON_CACHE_DIR": f"{tmp}/triton", "IRSCOPE_CACHE_DIR": f"{tmp}/irscope"}
        env["PYTHONPATH"] = os.pathsep.join([str(IRSCOPE_TREE[0]), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        start = time.time()
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    marks = json.loads(out.stdout.strip().splitlines()[-1])
    assert marks["count"] == size, marks
    return {"first": marks["first"] - start, "wall": marks["last"] - start}


def row(label: str, ours: dict[str, float], bare: dict[str, float]) -> str:
    return (
        f"{label:<34} first {ours['first']:6.2f} s (bare {bare['first']:6.2f} s, {ours['first'] / bare['first']:.2f}x)"
        f"   wall {ours['wall']:7.2f} s (bare {bare['wall']:7.2f} s, {ours['wall'] / bare['wall']:.2f}x)"
    )


def machine() -> str:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import triton

    return (
        f"machine: {os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable), {model}, "
        f"python {platform.python_version()}, triton {triton.__version__}"
    )


def tui_paint(count: int = 5000) -> str:
    try:
        import textual  # noqa: F401
    except ImportError:
        return "TUI first paint: skipped (no textual here)"
    if shutil.which("tmux") is None:
        return "TUI first paint: skipped (no tmux here)"
    sys.path[:0] = [str(IRSCOPE_TREE[0]), str(TESTS), str(TESTS / "perf")]  # the irscope timed, not an installed one
    from bench_tui import bytecode_env, first_paint, paints
    from large_session import make_large_session

    sample = IRSCOPE_TREE[0] / "samples" / "sessions" / "square_kernel"
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(TRITON_CACHE_DIR=f"{tmp}/triton", IRSCOPE_CACHE_DIR=f"{tmp}/irscope")
        start = time.perf_counter()
        session = make_large_session(Path(tmp) / "big", count)
        made = time.perf_counter() - start
        tree = {"PYTHONPATH": str(IRSCOPE_TREE[0])}
        installed = {**tree, **bytecode_env(f"{tmp}/bytecode")}
        first_paint([str(sample)], installed, tree=IRSCOPE_TREE[0])  # writes the bytecode: not timed
        from_source = {**tree, "PYTHONDONTWRITEBYTECODE": "1"}
        for label, env in (("bytecode kept", installed), ("PYTHONDONTWRITEBYTECODE=1", from_source)):
            big = [first_paint([str(session.path)], env, ".version", "TERMS", IRSCOPE_TREE[0]) for _ in range(5)]
            small = [first_paint([str(sample)], env, tree=IRSCOPE_TREE[0]) for _ in range(5)]
            lines += [
                f"TUI first paint, {len(session)}-variant session, {label}: {paints(big)}",
                f"TUI first paint, 21-variant sample session, {label}: {paints(small)}",
            ]
    return "\n".join(
        [*lines, f"(target <= 1.0 s for the {len(session)}-variant session; session made in {made:.1f} s)"]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="21,200,1000", help="Which sweep sizes to run (of 21, 200, 1000; '' none).")
    parser.add_argument("--gpu", action="store_true", help="Compile, check and time on this machine's GPUs.")
    parser.add_argument("--gpus", default="0,1", help="With --gpu: the two GPUs of the two-GPU run.")
    parser.add_argument("--no-tui", action="store_true", help="Skip the TUI's first paint.")
    parser.add_argument("--no-bare", action="store_true", help="Time irscope only (compile only; a before/after).")
    parser.add_argument("--irscope", type=Path, help="Time this irscope tree instead (a before/after comparison).")
    args = parser.parse_args()
    if args.irscope is not None:
        IRSCOPE_TREE[0] = args.irscope.resolve()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    print(machine(), f"· irscope from {IRSCOPE_TREE[0]}", flush=True)
    for size in sizes:
        if args.gpu:
            bare = timed(BARE_GPU, size)
            print(f"{size} variants, bare JIT + do_bench loop: first {bare['first']:.2f} s, wall {bare['wall']:.2f} s")
            one = timed(IRSCOPE_GPU, size, gpus=args.gpus.split(",")[:1])
            print(row(f"{size} variants, irscope bench 1 GPU", one, bare), flush=True)
            two = timed(IRSCOPE_GPU, size, gpus=args.gpus.split(","))
            print(row(f"{size} variants, irscope bench {len(args.gpus.split(','))} GPUs", two, bare), flush=True)
        elif args.no_bare:
            ours = timed(IRSCOPE_COMPILE, size)
            print(f"{size} variants, compile only: first {ours['first']:.2f} s, wall {ours['wall']:.2f} s", flush=True)
        else:
            bare = timed(BARE_COMPILE, size)
            ours = timed(IRSCOPE_COMPILE, size)
            print(row(f"{size} variants, compile only", ours, bare), flush=True)
    if not args.no_tui:
        print(tui_paint(), flush=True)


if __name__ == "__main__":
    main()
