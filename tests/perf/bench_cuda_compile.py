"""CUDA compile speed (issue 14): 8 variants of a tiled matmul `.cu` file for sm_90, irscope against bare nvcc.

The kernel file (written to a temp dir) has a tunable ``TILE`` macro; the 8 variants are
TILE in 4, 8, 16, 32 times fast_math off/on. The reference is a bare
``nvcc -arch=sm_90 -cubin -o out.cubin -DTILE=T [--use_fast_math] file.cu`` per variant,
timed one after another (the target's reference) and, separately, 2 at a time (irscope
compiles in as many worker processes as there are cores). irscope's side is
``capture_many`` (its nvcc run adds -lineinfo, --keep for the PTX and -Xptxas -v), SASS
from nvdisasm, and each variant's source map built for PTX and SASS; it runs in a fresh
process with empty caches, imports and kernel lookup not timed. The median of --repeat
runs is reported.

    python tests/perf/bench_cuda_compile.py [--repeat 3]
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
from concurrent import futures
from pathlib import Path

from irscope.frontends.cuda.compile import command, nvcc_path, nvcc_version

TILES = [4, 8, 16, 32]  # TILE * TILE threads per block: at most 1024
FAST_MATH = [False, True]
VARIANTS = [(t, f) for t in TILES for f in FAST_MATH]

KERNEL = r"""// C = gelu(A @ B), shared-memory tiled (written for irscope's compile benchmark).
#ifndef TILE
#define TILE 16
#endif

__global__ void tiled_matmul_gelu(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int m, int n, int k) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? a[row * k + ak] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? b[bk * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < TILE; ++j) acc += as[threadIdx.y][j] * bs[j][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) {
        float inner = 0.7978845608f * (acc + 0.044715f * acc * acc * acc);
        c[row * n + col] = 0.5f * acc * (1.0f + tanhf(inner));
    }
}
"""

IRSCOPE = r"""
import json, sys, time
from irscope.capturing import capture_many
from irscope.frontends import resolve_kernel
from irscope.ir.sourcemap import SourceMap
from irscope.frontends.config import sweep_configs
from irscope.types import Stage, Status
ref = resolve_kernel(f"{FILE}:tiled_matmul_gelu")
configs = sweep_configs(ref.parameter_table(), ref.name, {"TILE": TILES, "fast_math": FAST_MATH}, {})
assert len(configs) == 8
start = time.perf_counter()
got = list(capture_many(ref, configs, "sm_90"))
mapped = []
for c in got:
    smap = SourceMap(c.variant)
    mapped.append(sum(line is not None for s in (Stage.PTX, Stage.SASS) for line in smap.own_lines(s)))
seconds = time.perf_counter() - start
assert len(got) == 8 and not any(c.cached for c in got)
for c in got:
    v = c.variant
    assert v.status is Status.OK and Stage.PTX in v.listings and Stage.SASS in v.listings, (v.error, v.stage_errors)
assert all(mapped), mapped  # every variant has PTX and SASS lines mapped to the .cu file
print(json.dumps({"seconds": seconds}))
"""


def bare_command(file: str, tile: int, fast_math: bool, out: str) -> list[str]:
    return (
        [nvcc_path() or "nvcc", "-arch=sm_90", "-cubin", "-o", out, f"-DTILE={tile}"]
        + (["--use_fast_math"] if fast_math else [])
        + [file]
    )


def bare(file: str, workers: int) -> float:
    """Seconds for the bare nvcc -cubin of every variant, ``workers`` at a time."""
    with tempfile.TemporaryDirectory(prefix="bare-nvcc-") as tmp:
        cmds = [bare_command(file, t, f, f"{tmp}/{t}_{int(f)}.cubin") for t, f in VARIANTS]
        start = time.perf_counter()
        with futures.ThreadPoolExecutor(workers) as pool:
            for proc in pool.map(lambda cmd: subprocess.run(cmd, capture_output=True, cwd=tmp, check=False), cmds):
                assert proc.returncode == 0, proc.stderr.decode()
        seconds = time.perf_counter() - start
        assert len(list(Path(tmp).glob("*.cubin"))) == len(VARIANTS)
    return seconds


def irscope(file: str) -> float:
    """Seconds for irscope's capture of every variant, in a fresh process with empty caches."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TRITON_CACHE_DIR": f"{tmp}/triton", "IRSCOPE_CACHE_DIR": f"{tmp}/irscope"}
        head = f"FILE = {file!r}\nTILES = {TILES!r}\nFAST_MATH = {FAST_MATH!r}\n"
        out = subprocess.run(
            [sys.executable, "-c", head + IRSCOPE], env=env, capture_output=True, text=True, check=False
        )
        assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def runs(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = str(Path(tmp, "tiled_matmul.cu"))
        Path(file).write_text(KERNEL)
        bare(file, 1)  # warm-up, not counted: nvcc's files into the page cache
        seq, par, cap = [], [], []
        for _ in range(args.repeat):
            seq.append(bare(file, 1))
            par.append(bare(file, 2))
            cap.append(irscope(file))
        example = bare_command(file, 16, True, "out.cubin")
        ours = command({"TILE": 16, "fast_math": True}, 90)  # TILE goes in the header it includes
    s, p, c = statistics.median(seq), statistics.median(par), statistics.median(cap)
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, {nvcc_version()}")
    print(f"bare command:    {' '.join(Path(a).name if a.startswith('/') else a for a in example)}")
    print(f"irscope command: {' '.join(Path(a).name if a.startswith('/') else a for a in ours)}")
    print(f"bare nvcc -cubin, 8 variants, sequential:  {s:.2f} s (runs: {runs(seq)})")
    print(f"bare nvcc -cubin, 8 variants, 2 at a time: {p:.2f} s (runs: {runs(par)})")
    print(f"irscope capture (PTX + cubin + SASS + source map), 8 variants, cold: {c:.2f} s (runs: {runs(cap)})")
    print(f"  ratio irscope / bare sequential:  {c / s:.2f}x   (target <= 1.3x: issue 14's reference)")
    print(f"  ratio irscope / bare 2 at a time: {c / p:.2f}x   (for comparison; no target)")


if __name__ == "__main__":
    main()
