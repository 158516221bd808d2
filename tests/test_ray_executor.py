"""Sweeps through a real Ray cluster on this host, two nodes (a head and a worker node) of 1 CPU each: the same
variants as the local pool, byte for byte; none lost when a Ray worker dies mid-sweep; progress naming each node.

The cluster is started once for the module (Ray's start-up is most of these tests' time; CI's budget is
tight) with a Triton cache of its own, so its workers compile for real rather than read what the local pool
compiled. The CLI test runs as a user does: another process, finding the cluster through ``RAY_ADDRESS``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402
from written_kernels import MM_UNIT_B, TILE_MM  # noqa: E402

from irscope.capturing import capture_many  # noqa: E402
from irscope.capturing.worker import COMPILE, failure  # noqa: E402
from irscope.errors import UsageError  # noqa: E402
from irscope.frontends import Compiled, resolve_kernel  # noqa: E402
from irscope.frontends.config import resolve_config  # noqa: E402
from irscope.processes.executors import Work, executor_named  # noqa: E402
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
    """Two Ray nodes of 1 CPU each, this process their driver; workers with their own Triton cache and the
    kill marker's path (yields the folder of both)."""
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
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)  # the nodes' raylets, so their workers, inherit the environment above
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    yield root, cluster
    ray.shutdown()
    cluster.shutdown()


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
        configs = [resolve_config(kernel, {"BM": 32, "BN": 64, "BK": 16, "num_warps": 2})]
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
    assert (local_ray[0] / "killed").exists()  # a worker really died, running one of these compiles
    assert sorted(r.index for r in first) == [0, 1, 2, 3]
    assert all(r.variant.ok for r in first), [r.variant.error for r in first]
    again = list(run_sweep(kernel, configs, "sm_90", Session.open(tmp_path / "session"), executor=executor))
    assert sorted(r.index for r in again) == [0, 1, 2, 3] and all(r.reused for r in again)
    assert [v.config for v in (r.variant for r in sorted(again, key=lambda r: r.index))] == configs


def answers_junk(state, *job):
    return "not a Compiled"


def answers_a_damaged_compiled(state, *job):
    return Compiled(stages={"../../outside": "written outside"}, seconds=0.1)  # a node that cannot be trusted


def raises(state, *job):
    raise RuntimeError("the job's own code failed")


@pytest.mark.parametrize(
    ("run", "said"),
    [
        (answers_junk, "answered a str"),
        (answers_a_damaged_compiled, "answered a damaged Compiled"),  # checked field by field (issue 41, point 8)
        (raises, "the job's own code failed"),
    ],
)
def test_a_task_answering_junk_or_raising_is_that_variants_failure(local_ray, run, said):
    work = Work(serve=COMPILE.serve, run=run, result=Compiled, failure=failure, check=COMPILE.check)
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


def test_a_node_whose_copy_of_the_kernel_differs_fails_the_variant_instead_of_passing_it_off(tmp_path):
    from irscope.arch import Target

    path = tmp_path / "tile_mm.py"
    path.write_text(TILE_MM)
    kernel = resolve_kernel(f"{path}:tile_mm", MM_UNIT_B)
    config = resolve_config(kernel, {"BM": 32, "BN": 32, "BK": 16})
    job = (kernel.handle(), config, Target.for_arch("sm_90"), False, kernel.identity().source_hash)
    path.write_text(TILE_MM.replace("acc = tl.dot(x, y, acc)", "acc = tl.dot(x, y, acc) * 2"))  # the node's copy
    pool = executor_named("local").pool(COMPILE, 1)  # a fresh process reads the file, as a node's worker does
    try:
        pool.submit(0, job)
        got = {}
        while pool.outstanding:
            got.update(pool.results(timeout=60))
    finally:
        pool.close()
    # (the same file passes the check: every sweep above went through it)
    assert got[0].error is not None and "differs from the one here" in got[0].error.message


def test_a_ray_bench_on_a_cluster_without_gpus_is_no_gpu(local_ray):
    from irscope.errors import NoGpu
    from irscope.measure.bench import bench

    kernel = resolve_kernel("square_kernel")
    with pytest.raises(NoGpu, match="the Ray cluster has no GPU"):
        list(bench(kernel, [resolve_config(kernel, {"BLOCK_SIZE": 128})], executor=executor_named("ray")))


def test_a_sweep_on_two_ray_nodes_uses_both_and_progress_names_each(local_ray, tmp_path, run_irscope):
    cluster = local_ray[1]
    blocks = "64,256,512,2048"  # none compiled by the tests above: the cluster's Triton cache has none of them
    result = run_irscope(
        *("sweep", "square_kernel", "-s", f"BLOCK_SIZE={blocks}", "--arch", "sm_90", "--executor", "ray"),
        *("-o", str(tmp_path / "session")),
        env={"RAY_ADDRESS": cluster.address, "IRSCOPE_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert result.returncode == 0, result.stderr
    assert "4 variants into" in result.stderr and "4 ok" in result.stderr
    line = next(ln for ln in result.stderr.splitlines() if ln.startswith("irscope: done per node: "))
    done = {node: int(n) for node, n in (part.split(" ") for part in line.split(": ")[-1].split(", "))}
    nodes = [cluster.head_node, *cluster.worker_nodes]
    # Both nodes compiled, each named apart: one host's nodes by their IP and the start of their id.
    assert sorted(label.split("/")[-1] for label in done) == sorted(node.node_id[:8] for node in nodes), line
    assert all(label.split("/")[0] == nodes[0].node_ip_address for label in done), line
    assert sum(done.values()) == 4, line
    session = Session.open(tmp_path / "session")
    assert sorted(v.config.values()["BLOCK_SIZE"] for v in session) == [64, 256, 512, 2048]
    assert all(v.ok for v in session)
