"""Triton's own autotuner, run on the GPU as a user's launch runs it, and what it found read back.

irscope times each autotuned config itself (the GPU's duration of the kernel);
a user's program gets whichever config ``Autotuner.run`` picks from its own
timings. To show both, the kernel is launched through the object the file
defines (``obj[grid](*args, **kwargs)``, heuristics outside the autotuner
included), so pruning, ``pre_hook``/``reset_to_zero``/``restore_value`` and the
benchmark (``triton.testing.do_bench`` unless the decorator names another) are
Triton's. The autotuner's cache is emptied first and its disk cache
(``cache_results``, ``TRITON_CACHE_AUTOTUNING``) left out for the run, so it
times every config now, on this GPU and these inputs.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from ...records import AutotunerRun, TunedConfig
from ...types import Config
from .compile import triton_cache_for
from .inputs import launch_arguments
from .versions import lone_pruned_config_is_timed

if TYPE_CHECKING:
    from .kernel import TritonKernel

# Autotuner._bench asks do_bench for quantiles=(0.5, 0.2, 0.8) and keeps the smallest list:
# the median decides, p20 breaks a tie.
TRITON_RANKING = "median (p20, p80 beside it)"
TRITON_METHOD = "CUDA events around each call (triton.testing.do_bench), launch overhead included"


def run_autotuner(kernel: TritonKernel, config: Config, device: str = "cuda", seed: int = 0) -> AutotunerRun:
    """Launch ``kernel`` once through its autotuner on ``config``'s example inputs (those of ``kernel.launch``)."""
    import torch  # a second to import: only once the autotuner runs

    tuning, spec = kernel.tuned, kernel.launch_spec
    tuner = tuning.autotuner
    ns, _ = kernel.example_inputs(config, device, seed)
    args, kwargs = launch_arguments(kernel, config, ns)
    # The caller passes neither what the autotuner's configs set nor what a heuristic works out.
    kwargs = {
        k: v
        for k, v in kwargs.items()
        if k not in tuning.tuned_names() and k not in {n for n, _, _ in tuning.heuristics()}
    }
    tensors = {n: getattr(ns, n) for n in spec.tensors}
    constexprs = set(kernel.constexpr_names())
    values = config.values()

    def grid(meta: dict[str, Any]) -> tuple[int, ...]:
        # Triton calls a grid with every argument bound, the chosen config's constexprs among them.
        return spec.grid(spec.namespace({**values, **{k: v for k, v in meta.items() if k in constexprs}}, tensors))

    tuner.cache.clear()
    tuner.__dict__.pop("configs_timings", None)
    tuner.best_config = None
    cache_results, tuner.cache_results = tuner.cache_results, False
    start = time.perf_counter()
    try:
        with triton_cache_for(kernel.file):  # the compiles capture made, where it made them
            tuning.layers[0][grid](*args, **kwargs)
        torch.cuda.synchronize()
    finally:
        tuner.cache_results = cache_results
    marks = {n for n, p in kernel.parameter_table().items() if p["kind"] == "mark"}
    given = {**{n: v for n, v in config.sizes.items() if n not in marks}, **kwargs}
    return read_run(tuner, given, time.perf_counter() - start)


def read_run(tuner: Any, given: dict[str, Any], seconds: float | None = None) -> AutotunerRun:
    """What ``Autotuner.run`` left behind: ``configs_timings`` (the configs it timed) and ``best_config``.

    It times nothing where it has one config; from Triton 3.8 on, nor where ``prune_configs_by`` kept
    one (``versions.lone_pruned_config_is_timed``): that one is its pick, the others are pruned.
    """
    timings: Any = getattr(tuner, "configs_timings", None)
    best = getattr(tuner, "best_config", None)
    several = len(tuner.configs) > 1
    kept_one = several and not isinstance(timings, dict) and best is not None and not lone_pruned_config_is_timed()
    benchmarked = several and not kept_one
    if benchmarked and not isinstance(timings, dict):
        raise RuntimeError("Triton's autotuner chose a config without timing any (a cached result?)")
    listed = list(tuner.configs)
    if benchmarked:  # a prune function may return configs of its own: they were timed, so they are shown
        listed += [c for c in timings if not any(c == x for x in tuner.configs)]
    if kept_one:
        if not any(c == best for c in listed):  # the prune's own config
            listed.append(best)
        configs = [TunedConfig(_values(c), pruned=not (c is best or c == best)) for c in listed]
    else:
        configs = [_tuned(c, timings.get(c) if benchmarked else None, benchmarked) for c in listed]
    picked = next((i for i, c in enumerate(listed) if c is best), None)
    if picked is None and best is not None:
        picked = next((i for i, c in enumerate(listed) if c == best), None)
    own = getattr(tuner, "_do_bench", None) is not None
    return AutotunerRun(
        tuple(configs),
        picked,
        given,
        method="the autotuner's own do_bench" if own else TRITON_METHOD,
        ranked_by="first figure" if own else TRITON_RANKING,
        benchmarked=benchmarked,
        seconds=seconds,
    )


def _values(c: Any) -> dict[str, Any]:
    values = {**c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages}
    if c.num_ctas not in (None, 1):
        values["num_ctas"] = c.num_ctas
    if c.maxnreg is not None:
        values["maxnreg"] = c.maxnreg
    return values


def _tuned(c: Any, timing: Any, benchmarked: bool) -> TunedConfig:
    values = _values(c)
    if timing is None:
        return TunedConfig(values, pruned=benchmarked)
    figures = tuple(float(t) for t in timing) if isinstance(timing, (list, tuple)) else (float(timing),)
    if not figures or not math.isfinite(figures[0]):  # Autotuner._bench: inf for OutOfResources, PTXASError
        return TunedConfig(values, failed=True)
    return TunedConfig(values, figures[0], figures)
