"""What recording every MLIR pass costs (issue 17): `irscope passes matmul_kernel` against a plain
capture of the same variant (`irscope dump matmul_kernel`), and the stored pass data against the
variant's stages.

Each command runs as a whole process with empty Triton and irscope caches (a cold compile both
ways; `irscope passes` bypasses Triton's cache anyway), alternating, --repeat times; medians.

    python tests/perf/bench_passes.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = "matmul_kernel"
COMMANDS = {
    "plain capture (irscope dump)": ["dump", KERNEL, "--arch", "sm_90"],
    "irscope passes": ["passes", KERNEL, "--arch", "sm_90"],
}


def timed(args: list[str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TRITON_CACHE_DIR": f"{tmp}/triton", "IRSCOPE_CACHE_DIR": f"{tmp}/irscope"}
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "irscope", *args], env=env, check=True, capture_output=True)
        return time.perf_counter() - start


def storage() -> dict:
    from irscope.capturing import capture
    from irscope.storage.variants import PASSES_FILE, write_variant

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["IRSCOPE_CACHE_DIR"] = f"{tmp}/cache"
        v = capture(KERNEL, arch="sm_90", passes=True)
        write_variant(Path(tmp) / "v", v, with_source=False, with_cubin=False)
        files = {p.name: p.stat().st_size for p in (Path(tmp) / "v").iterdir()}
        raw = len(gzip.decompress((Path(tmp) / "v" / PASSES_FILE).read_bytes()))
    stages = sum(n for name, n in files.items() if name not in (PASSES_FILE, "variant.json"))
    assert v.passes is not None, "captured with passes=True"
    return {
        "passes": len(v.passes.steps),
        "changed": sum(s.changed for s in v.passes.steps),
        "stage_bytes": stages,
        "passes_bytes": files[PASSES_FILE],
        "passes_json_bytes": raw,
        "stage_files": {k: n for k, n in sorted(files.items()) if k != PASSES_FILE},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    runs: dict[str, list[float]] = {label: [] for label in COMMANDS}
    for _ in range(repeat):
        for label, args in COMMANDS.items():
            runs[label].append(timed(args))
    median = {label: statistics.median(times) for label, times in runs.items()}
    for label, times in runs.items():
        print(f"{label + ':':32} {median[label]:.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)})")
    ratio = median["irscope passes"] / median["plain capture (irscope dump)"]
    print(f"  ratio passes / plain capture: {ratio:.2f}x   (target <= 2x)")
    s = storage()
    print(f"{KERNEL} sm_90: {s['passes']} passes, {s['changed']} changed the IR")
    print(f"stages stored (ttir, ttgir, llir, ptx, sass): {s['stage_bytes']} B  {json.dumps(s['stage_files'])}")
    print(
        f"pass data stored (passes.json.gz): {s['passes_bytes']} B = {s['passes_bytes'] / s['stage_bytes']:.2f}x "
        f"the stages (target <= 3x); as plain JSON {s['passes_json_bytes']} B = "
        f"{s['passes_json_bytes'] / s['stage_bytes']:.2f}x"
    )


if __name__ == "__main__":
    main()
