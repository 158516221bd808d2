"""Sweeps through a real local Ray instance (2 CPUs): the same variants as the local pool, byte for byte, and
none lost when a Ray worker dies mid-sweep.

The instance is started once for the module (Ray's start-up is most of these tests' time) with a Triton
cache of its own, so its workers compile for real rather than read what the local pool compiled.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from written_kernels import MM_UNIT_B, TILE_MM  # noqa: E402

from irscope.capturing import capture_many  # noqa: E402
from irscope.capturing.worker import COMPILE, failure  # noqa: E402
from irscope.config import resolve_config  # noqa: E402
from irscope.errors import UsageError  # noqa: E402
from irscope.executors import Work, executor_named  # noqa: E402
from irscope.frontends import Compiled, resolve_kernel  # noqa: E402
from irscope.session import Session, run_sweep  # noqa: E402

KILL_MARKER = "IRSCOPE_TEST_KILL_MARKER"
DRIVER_PID = "IRSCOPE_TEST_DRIVER_PID"

# The first Ray worker that imports this file dies there, as a worker does on a node lost mid-compile; the
# marker file says it happened, and every later import (Ray's retry in a fresh worker) goes on.
KILLED_ONCE = f'''\
import os

import triton
import triton.language as tl

marker = os.environ.get("{KILL_MARKER}")
if marker and os.getpid() != int(os.environ["{DRIVER_PID}"]):
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        pass
    else:
        os.close(fd)
        os._exit(1)


@triton.jit
def clipped_copy(x_ptr, y_ptr, n, lo, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(x, lo), mask=mask)
'''
KILLED_ONCE_SIGNATURE = "*fp32:16, *fp32:16, i32, fp32"


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    """A real local Ray instance of 2 CPUs, its workers with their own Triton cache and the kill marker's path."""
    root = tmp_path_factory.mktemp("ray")
    saved = {k: os.environ.get(k) for k in ("TRITON_CACHE_DIR", KILL_MARKER, DRIVER_PID, "PYTHONPATH")}
    os.environ.update(
        {
            "TRITON_CACHE_DIR": str(root / "ray-triton"),
            KILL_MARKER: str(root / "killed"),
            DRIVER_PID: str(os.getpid()),
            # this file's jobs (answers_junk, raises) are imported by name in the workers, as irscope's are
            "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *filter(None, [saved["PYTHONPATH"]])]),
        }
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)  # the workers inherit the environment above
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    yield root
    ray.shutdown()


def _listing_facts(v):
    """Everything a variant holds but the seconds its compile took."""
    info = replace(v.compile_info, compile_seconds=0.0) if v.compile_info else None
    return (v.status, v.listings, v.stage_errors, v.cubin, v.resources, info, v.error, v.config, v.arch, v.kernel)


def _sweep(kernel, configs, executor, monkeypatch, cache_dir):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache_dir))  # the local pool's workers: a cold cache of their own
    return {c.index: c.variant for c in capture_many(kernel, configs, "sm_90", use_cache=False, executor=executor)}


@pytest.mark.parametrize("which", ["tile_mm", "square_kernel"])
def test_ray_compiles_the_same_variants_as_the_local_pool_byte_for_byte(local_ray, tmp_path, monkeypatch, which):
    if which == "tile_mm":
        path = tmp_path / "tile_mm.py"
        path.write_text(TILE_MM)
        kernel = resolve_kernel(f"{path}:tile_mm", MM_UNIT_B)
        configs = [
            resolve_config(kernel, {"BM": 64, "BN": 64, "BK": 32}),
            resolve_config(kernel, {"BM": 32, "BN": 64, "BK": 16, "num_warps": 2}),
        ]
    else:
        kernel = resolve_kernel("square_kernel")
        configs = [resolve_config(kernel, {"BLOCK_SIZE": b}) for b in (128, 1024)]
    executor = executor_named("ray")
    on_ray = _sweep(kernel, configs, executor, monkeypatch, tmp_path / "unused")
    local = _sweep(kernel, configs, None, monkeypatch, tmp_path / "local-triton")
    assert sorted(on_ray) == sorted(local) == list(range(len(configs)))
    for i in local:
        assert local[i].ok, local[i].error
        assert {"ttir", "ttgir", "llir", "ptx", "sass"} <= {s.value for s in local[i].listings}
        assert _listing_facts(on_ray[i]) == _listing_facts(local[i])
    assert sum(executor.done_per_node.values()) == len(configs)  # every one compiled on Ray, none read from a cache


def test_a_ray_worker_killed_mid_sweep_loses_no_variant_and_a_rerun_resumes(local_ray, tmp_path):
    path = tmp_path / "killed_once.py"
    path.write_text(KILLED_ONCE)
    kernel = resolve_kernel(f"{path}:clipped_copy", KILLED_ONCE_SIGNATURE)
    configs = [resolve_config(kernel, {"BLOCK": b}) for b in (64, 128, 256, 512)]
    session = Session.of_kernel(tmp_path / "session", kernel, kernel.parameter_table())
    executor = executor_named("ray")
    first = list(run_sweep(kernel, configs, "sm_90", session, executor=executor))
    assert (local_ray / "killed").exists()  # a worker really died, running one of these compiles
    assert sorted(r.index for r in first) == [0, 1, 2, 3]
    assert all(r.variant.ok for r in first), [r.variant.error for r in first]
    again = list(run_sweep(kernel, configs, "sm_90", Session.open(tmp_path / "session"), executor=executor))
    assert sorted(r.index for r in again) == [0, 1, 2, 3] and all(r.reused for r in again)
    assert [v.config for v in (r.variant for r in sorted(again, key=lambda r: r.index))] == configs


def answers_junk(state, *job):
    return "not a Compiled"


def raises(state, *job):
    raise RuntimeError("the job's own code failed")


@pytest.mark.parametrize(("run", "said"), [(answers_junk, "answered a str"), (raises, "the job's own code failed")])
def test_a_task_answering_junk_or_raising_is_that_variants_failure(local_ray, run, said):
    work = Work(serve=COMPILE.serve, run=run, result=Compiled, failure=failure)
    pool = executor_named("ray").pool(work, 2)
    try:
        pool.submit("a", ())
        pool.submit("b", ())
        got = {}
        while pool.outstanding:
            got.update(pool.results(timeout=30))
    finally:
        pool.close()
    assert sorted(got) == ["a", "b"]
    for answer in got.values():
        assert isinstance(answer, Compiled) and answer.error is not None and said in str(answer.error)


def test_a_kernel_defined_in_this_process_is_refused_by_ray_in_one_line(local_ray):
    import triton
    import triton.language as tl

    from irscope.frontends import kernel_from_object

    @triton.jit
    def here(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

    kernel = kernel_from_object(here, signature="*fp32:16")
    assert kernel.compiles_here
    with pytest.raises(UsageError, match="no Ray worker can load it"):
        list(capture_many(kernel, [resolve_config(kernel, {"BLOCK": 64})], "sm_90", executor=executor_named("ray")))
