"""Capture variants: resolve the target, consult the cache, compile, disassemble.

``capture_many`` is a generator that yields each variant as soon as it is
complete, so a CLI progress bar and a TUI worker consume it the same way, and a
caller that stops iterating (Ctrl-C, Escape) keeps everything already yielded.
Compiles run in worker processes, so that a compile running past its time
(``compile_timeout``: ptxas on a huge unrolled block can run for many minutes and
gigabytes) is stopped by killing its worker, as many at once as there are cores;
SASS is disassembled in batches (see ``sass.py`` for why), but the first variant
compiled goes alone, so the first result does not wait for five more compiles. A library caller may
pass ``compile_timeout=None`` to compile in its own process instead; a kernel given as
a Python object (``Kernel.compiles_here``: a notebook cell's) always compiles in the
calling process, with no compile timeout.
"""

from __future__ import annotations

import concurrent.futures as futures
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from .. import frontends
from ..arch import DEFAULT_CAPABILITY, CaptureMode, Target, Vendor, parse_arch, vendor_of
from ..errors import ParameterError, UsageError
from ..frontends import Compiled, Kernel, resolve_kernel
from ..frontends.config import resolve_config
from ..frontends.info import check_vendor
from ..gpu_models import named_gpu
from ..ir.hsaco import kernel_resources, listed_resources
from ..ir.ptx import cluster_label, required_cluster
from ..ir.ptx_module import function_names
from ..nvidia.device import gpu_capability
from ..nvidia.ptxas import parse_ptxas_log, static_shared
from ..nvidia.sass import disassemble
from ..processes import own_python
from ..processes.executors import Executor
from ..processes.executors.local import LocalExecutor
from ..processes.workers import DEFAULT_COMPILE_TIMEOUT
from ..types import CompileInfo, Config, KernelId, Resources, Stage, Status, Variant
from .cache import CaptureCache
from .worker import COMPILE

SASS_BATCH = 6  # variants per nvdisasm run in process, and in the second run of a sweep's
# In workers, the first variant compiled goes alone (the first result) and the next SASS_BATCH together (early
# rows: a progress bar that moves, an interrupted sweep that keeps some); then the SASS of those compiled
# since waits until their compiles took SASS_SHARE times what the last nvdisasm run took, until the first of
# them has waited SASS_WAIT_S (or SASS_SHARE / 2 times that run, if longer: a loaded machine), or until the
# compiles are done. nvdisasm's start-up costs 0.5 s of CPU whatever it reads (a 256-byte image or 21 cubins
# alike; Triton 3.6's CUDA 12.8 copy, 2-core EPYC), more than the six square_kernel compiles a batch of six
# stood for: batches of six took 27% of a 21-variant sweep's CPU in five runs (perf record), three runs now
# (tests/perf/RESULTS.md).
SASS_SHARE = 10.0
SASS_WAIT_S = 2.0
SASS_FIRST_GUESS_S = 0.5  # what a run is taken to cost until one has been timed
SASS_MAX = 256
MAX_COMPILE_TIMEOUT = 86400.0  # --compile-timeout's own limit (cli/options.py: MAX_SECONDS)


def choose_target(arch: str | int | None) -> Target:
    """``--arch`` given: ahead of time for it. Otherwise the GPU's JIT; without one, the arch of the card
    ``--gpu`` names (``IRSCOPE_GPU``), else sm_90."""
    if arch is not None:
        return Target.for_arch(arch, CaptureMode.AOT)
    capability = gpu_capability()
    if capability is not None:
        return Target(capability, CaptureMode.JIT)
    named = named_gpu()
    if named is not None:
        return Target.for_arch(named.model.arch, CaptureMode.AOT)
    return Target(DEFAULT_CAPABILITY, CaptureMode.AOT)


@dataclass(frozen=True)
class Captured:
    """One finished variant from ``capture_many``."""

    index: int  # position in the configs given
    variant: Variant
    cached: bool


def capture(
    kernel: str | Kernel,
    overrides: Mapping[str, object] | None = None,
    arch: str | int | None = None,
    *,
    config: Config | None = None,
    signature: str | None = None,
    use_cache: bool = True,
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT,
    passes: bool = False,
) -> Variant:
    """Capture one variant: ``capture("square_kernel", {"BLOCK_SIZE": 256}, arch="sm_90")``."""
    resolved = kernel if isinstance(kernel, Kernel) else resolve_kernel(kernel, signature)
    config = config or resolve_config(resolved, overrides or {})
    return next(
        iter(
            capture_many(resolved, [config], arch, use_cache=use_cache, compile_timeout=compile_timeout, passes=passes)
        )
    ).variant


def capture_many(
    kernel: Kernel,
    configs: Sequence[Config],
    arch: str | int | None = None,
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    cache: CaptureCache | None = None,
    cancel: threading.Event | None = None,
    compile_timeout: float | None = DEFAULT_COMPILE_TIMEOUT,
    passes: bool = False,
    executor: Executor | None = None,
) -> Iterator[Captured]:
    """Yield every config of ``kernel`` captured, in completion order.

    ``passes``: record every pass of the compiler too (``Variant.passes``; Triton and TileLang kernels,
    ahead of time); a cached variant without them is compiled again.

    ``compile_timeout``: seconds a variant may compile before its worker is killed
    and it fails with stage "timeout" (``--compile-timeout``; at most ``MAX_COMPILE_TIMEOUT``: nan, inf
    and 1e300 would wait for ever or overflow select()); None: compile in this process, with no limit.
    A kernel that ``compiles_here`` (given as an object) compiles in this process whatever ``jobs``
    and ``compile_timeout`` say: no timeout applies to it.

    ``executor``: where the compiles run (``executors``; default: worker processes of this host).
    Another machine's (Ray) always compiles ahead of time and never takes a kernel that ``compiles_here``.
    """
    executor = executor or LocalExecutor()
    executor.check_kernel(kernel)
    target = _checked_target(kernel, configs, arch, compile_timeout, passes)
    cache = cache or CaptureCache()
    kernel_id = kernel.identity()
    source = kernel.source()
    pending: list[int] = []
    keys: dict[int, str] = {}
    for i, config in enumerate(configs):
        keys[i] = cache.key(kernel, config, target.arch)
        hit = cache.get(keys[i]) if use_cache else None
        if hit is not None and passes and hit.passes is None and hit.ok:
            hit = None  # compiled before without its passes
        if hit is not None and hit.kernel == kernel_id:
            yield Captured(i, replace(hit, listings={**hit.listings, Stage.SOURCE: source}), True)
        else:
            pending.append(i)
    if not pending:
        return
    # Which Triton compiles each (-c triton=3.8.0): another than this process's compiles in
    # workers that import it first, ahead of time (this process's JIT is the running Triton).
    first: dict[int, str | None] = {}
    folders: dict[str | None, str | None] = {}
    for i in pending:
        version = frontends.compiler_version(kernel.frontend, configs[i].options)
        if version not in folders:
            folders[version] = kernel.import_first(configs[i])
        first[i] = folders[version]

    def finish(done: list[tuple[int, Variant]]) -> Iterator[Captured]:
        for i, variant in done:
            if variant.error is None or variant.error.is_fact:
                cache.put(keys[i], variant)  # a full disk or a killed compiler is not a fact about the kernel
            yield Captured(i, variant, False)

    run = _Run(kernel, configs, kernel_id, source, finish, cancel, compile_timeout, passes, executor)
    for folder in dict.fromkeys(first.values()):
        group = [i for i in pending if first[i] == folder]
        yield from _compile(run, group, target if folder is None else target.ahead_of_time(), jobs, folder)
        if cancel is not None and cancel.is_set():
            return


def _checked_target(
    kernel: Kernel, configs: Sequence[Config], arch: str | int | None, compile_timeout: float | None, passes: bool
) -> Target:
    """The target ``arch`` names for ``kernel``, once the kernel, every config and the options can go there
    (a UsageError or ParameterError saying why not)."""
    if compile_timeout is not None and not 0 < compile_timeout <= MAX_COMPILE_TIMEOUT:
        raise UsageError(
            f"a compile timeout must be more than 0 and at most {MAX_COMPILE_TIMEOUT:.0f} seconds, "
            f"got {compile_timeout!r}"
        )
    if passes and not kernel.records_passes:
        raise UsageError(
            f"{kernel.name} is a {kernel.frontend} kernel: only Triton (Gluon's too) and TileLang kernels record "
            "their compiler's passes"
        )
    target = choose_target(arch)
    if target.vendor not in kernel.vendors:
        raise ParameterError(
            f"{kernel.name} is a {kernel.frontend} kernel: it compiles only for NVIDIA archs (sm_XX), not {target.arch}"
        )
    info = frontends.frontend_info(kernel.frontend)
    for config in configs:
        check_vendor(info, config.options, target.vendor.value, target.arch)
    if target.mode is CaptureMode.JIT and not kernel.can_launch:
        # No example inputs to launch with (a --signature kernel, an Inductor kernel): compile
        # ahead of time for the GPU's own arch, which gives the JIT's IR for that signature.
        target = target.ahead_of_time()
    return target


@dataclass(frozen=True)
class _Run:
    """What every compile of one ``capture_many`` call shares."""

    kernel: Kernel
    configs: Sequence[Config]
    kernel_id: KernelId
    source: str
    finish: Callable[[list[tuple[int, Variant]]], Iterator[Captured]]  # cache and yield a finished batch
    cancel: threading.Event | None
    timeout: float | None
    passes: bool
    executor: Executor


def _compile(run: _Run, pending: list[int], target: Target, jobs: int | None, folder: str | None) -> Iterator[Captured]:
    """Compile ``pending`` in this process or in workers (``folder``: one they import first, always in workers).

    A kernel that ``compiles_here`` (given as an object: a notebook cell's) compiles in this
    process whatever ``jobs`` and ``compile_timeout`` say, one variant after another, and no
    compile timeout applies to it.
    """
    kernel, configs = run.kernel, run.configs
    made = (kernel.frontend, kernel.generated_by)
    workers = _worker_count(jobs, len(pending), target)
    # No worker could import a cell's kernel again; a compile in this process cannot be stopped part way.
    in_process = (
        folder is None and not run.executor.remote and (kernel.compiles_here or (run.timeout is None and workers <= 1))
    )
    if (workers > 1 or run.executor.remote) and target.mode is CaptureMode.JIT and not in_process:
        # Many variants on a GPU machine: compile them ahead of time for the GPU's own arch, in
        # parallel. The IR is the JIT's (tests/gpu/test_jit_equals_aot.py), and the GPU still runs
        # each through the JIT when it is measured, from the same Triton cache. Another machine
        # (Ray) may have no GPU, or another: it always compiles ahead of time for this one's arch.
        target = target.ahead_of_time()
    if in_process:
        batch: list[tuple[int, Variant]] = []
        for n, i in enumerate(pending):
            if run.cancel is not None and run.cancel.is_set():
                break
            compiled = kernel.compile_passes(configs[i], target) if run.passes else kernel.compile(configs[i], target)
            batch.append(
                (i, build_variant(run.kernel_id, configs[i], target, compiled, run.source, kernel.stages, *made))
            )
            if len(batch) >= SASS_BATCH or n == len(pending) - 1:
                yield from run.finish(derive(batch))
                batch = []
        return
    yield from _parallel(run, pending, target, workers, folder)


def _worker_count(jobs: int | None, n: int, target: Target) -> int:
    if n < 2:
        return 1
    if jobs is not None:
        return max(1, min(jobs, n))
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, n))


def _parallel(run: _Run, pending: list[int], target: Target, workers: int, folder: str | None) -> Iterator[Captured]:
    made = (run.kernel.frontend, run.kernel.generated_by)
    # A private Triton's folder goes before everything else the workers import (own_python.import_path).
    env = None if folder is None else {"PYTHONPATH": os.pathsep.join([folder, *own_python.import_path()])}
    pool = run.executor.pool(COMPILE, workers, timeout=run.timeout, env=env)
    # Another machine checks that its copy of the kernel is this one (capturing.worker.compile_job).
    check = (run.kernel_id.source_hash,) if run.executor.remote else ()
    # nvdisasm runs on a thread (it is a subprocess: no GIL held) while the
    # workers keep compiling; its batches are yielded in the order they finish.
    sass = futures.ThreadPoolExecutor(max_workers=1)
    disassembling: list[futures.Future] = []
    batch: list[tuple[int, Variant]] = []
    runs = 0  # nvdisasm runs asked for
    held_s = 0.0  # the compile seconds of the variants in ``batch``
    since = 0.0  # when the first of them came back
    cost = [SASS_FIRST_GUESS_S]  # seconds the last batch's SASS took

    def timed_derive(todo: list[tuple[int, Variant]]) -> list[tuple[int, Variant]]:
        start = time.perf_counter()
        done = derive(todo)
        cost[0] = time.perf_counter() - start
        return done

    try:
        for i in pending:
            pool.submit(i, (run.kernel.handle(), run.configs[i], target, run.passes, *check))
        while pool.outstanding or batch or disassembling:
            if run.cancel is not None and run.cancel.is_set():
                return
            for i, compiled in pool.results(timeout=0.02 if disassembling else 0.2):
                held_s += compiled.seconds
                since = since if batch else time.monotonic()
                batch.append(
                    (
                        i,
                        build_variant(
                            run.kernel_id, run.configs[i], target, compiled, run.source, run.kernel.stages, *made
                        ),
                    )
                )
            # The first variant compiled is disassembled at once, the next six together; after them, batches
            # as large as SASS_SHARE allows: every nvdisasm run costs a start-up of its own.
            if runs < 2:
                due = runs == 0 or len(batch) >= SASS_BATCH
            else:
                waited = time.monotonic() - since >= max(SASS_WAIT_S, SASS_SHARE / 2 * cost[0])
                due = held_s >= SASS_SHARE * cost[0] or waited or len(batch) >= SASS_MAX
            if batch and (due or not pool.outstanding):
                runs += 1
                disassembling.append(sass.submit(timed_derive, batch))
                batch, held_s = [], 0.0
            while disassembling and disassembling[0].done():
                yield from run.finish(disassembling.pop(0).result())
    finally:
        pool.close()
        sass.shutdown(wait=True, cancel_futures=True)


def build_variant(
    kernel_id: KernelId,
    config: Config,
    target: Target,
    compiled: Compiled,
    source: str,
    stages: Sequence[Stage],
    frontend: str = "",
    generated_by: str = "",
) -> Variant:
    """Turn what a compile left behind into a Variant (without the stages irscope derives, such as SASS, which
    come in batches: ``derive``).

    ``stages`` are those the kernel's frontend produces; each one missing gets its reason. ``frontend``
    (its name) and ``generated_by`` travel on the variant, with the frontend's source language.
    """
    listings = {Stage.SOURCE: source, **compiled.stages}
    where = compiled.error.stage if compiled.error else None
    vendor = target.vendor.value
    stage_errors = {
        s: f"not produced: compile failed at {where}"
        for s in stages
        if s not in listings and not s.spec.derived_from and s.spec.made_for(vendor)
    }
    stage_errors.update({s: why for s, why in compiled.stage_errors.items() if s not in listings})
    stage_errors.update(other_vendor_stages(stages, target))
    resources = info = None
    if compiled.produced:
        resources = amd_resources(compiled) if target.vendor is Vendor.AMD else nvidia_resources(compiled)
        info = CompileInfo(
            mode=target.mode,
            arch=target.arch,
            compiler=compiled.compiler,
            compile_seconds=compiled.seconds,
            options=dict(compiled.options),
            threads_per_block=compiled.threads_per_block,
            signature=compiled.signature,
            divisible_by_16=compiled.divisible_by_16,
            heuristics=dict(compiled.heuristics),
        )
    return Variant(
        kernel=kernel_id,
        config=config,
        arch=target.arch,
        status=Status.FAILED if compiled.error else Status.OK,
        listings=listings,
        stage_errors=stage_errors,
        cubin=compiled.cubin,
        resources=resources,
        compile_info=info,
        error=compiled.error,
        passes=compiled.passes,
        frontend=frontend,
        source_language=frontends.frontend_info(frontend).source_language if frontend else "",
        generated_by=generated_by,
    )


def other_vendor_stages(stages: Sequence[Stage], target: Target) -> dict[Stage, str]:
    """Why a compile for ``target`` has none of the stages of the other vendor's GPUs: not a failure."""
    return {
        s: f"not produced for {target.arch}: {s.label} is a stage of {'AMD' if s.spec.vendor == 'amd' else 'NVIDIA'} "
        "GPUs only"
        for s in stages
        if not s.spec.made_for(target.vendor.value)
    }


def nvidia_resources(compiled: Compiled) -> Resources:
    return Resources(
        # a block's shared memory: what the launch requests (Triton) and the kernel's own __shared__ arrays
        shared=compiled.shared + static_shared(compiled.ptxas_log or ""),
        gpu_registers=compiled.gpu_registers,
        gpu_spills=compiled.gpu_spills,
        cluster=cluster_label(compiled.cluster or required_cluster(compiled.stages.get(Stage.PTX, ""))),
        **{**compiled.cubin_resources, **parse_ptxas_log(compiled.ptxas_log or "")},
    )


def amd_resources(compiled: Compiled) -> Resources:
    """From the HSACO's metadata note (``ir/hsaco.py`` says why there): the kernel's registers, its
    static LDS beside what the launch requests, and its scratch."""
    if compiled.cubin is not None:
        kernel = kernel_resources(compiled.cubin)[0]  # Triton's HSACO holds its one kernel
    else:  # a record that kept only the listing (tritonparse's): the same metadata, as LLVM printed it
        try:
            kernel = listed_resources(compiled.stages.get(Stage.AMDGCN, ""))[0]
        except ValueError:
            return Resources(shared=compiled.shared)
    return Resources(
        shared=compiled.shared + kernel.lds,
        registers=kernel.vgprs,
        sgprs=kernel.sgprs,
        agprs=kernel.agprs,
        scratch=kernel.scratch,
        vgpr_spills=kernel.vgpr_spills,
        sgpr_spills=kernel.sgpr_spills,
    )


def with_sass(batch: list[tuple[int, Variant]]) -> list[tuple[int, Variant]]:
    """Add SASS to every variant that has a cubin, with one nvdisasm run per arch."""
    todo = [(n, v) for n, (_, v) in enumerate(batch) if v.cubin and vendor_of(v.arch) is Vendor.NVIDIA]
    ptx = [v.listings.get(Stage.PTX) for _, v in todo]
    # The SASS of the functions the PTX listing shows: one kernel's own, where its cubin holds a whole file's.
    functions = [function_names(text) if text else None for text in ptx]
    results = disassemble([v.cubin for _, v in todo if v.cubin], ptx, [parse_arch(v.arch) for _, v in todo], functions)
    out = list(batch)
    for (n, v), result in zip(todo, results):
        if result.text is not None:
            v = replace(v, listings={**v.listings, Stage.SASS: result.text})
        else:
            v = replace(v, stage_errors={**v.stage_errors, Stage.SASS: result.error or "unavailable"})
        out[n] = (batch[n][0], v)
    for n, (i, v) in enumerate(out):
        if not v.cubin and Stage.SASS not in v.stage_errors and vendor_of(v.arch) is Vendor.NVIDIA:
            out[n] = (i, replace(v, stage_errors={**v.stage_errors, Stage.SASS: "not produced: no cubin"}))
    return out


# The stages irscope derives from what a compile left behind (``StageSpec.derived_from``), each added to a
# batch of variants at once: SASS from the cubin, one nvdisasm run per arch.
DERIVED: dict[Stage, Callable[[list[tuple[int, Variant]]], list[tuple[int, Variant]]]] = {Stage.SASS: with_sass}


def derive(batch: list[tuple[int, Variant]]) -> list[tuple[int, Variant]]:
    """Every derived stage added to ``batch``."""
    for add in DERIVED.values():
        batch = add(batch)
    return batch
