"""Live capture: torch.compile a function on example inputs and keep what Inductor wrote.

No environment variables: the output code comes from ``run_and_get_code``, the
launch config each kernel's autotuner picked from the loaded output module, and
the time each kernel takes inside the compiled function from the torch profiler
(kernel names matched to the output code), beside the whole function's time
compiled and eager.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from ...errors import NoGpu, UsageError, exception_line
from ...spec import DTYPES as ELEMENT_TYPES
from .kernels import LaunchConfig
from .parse import OutputCode, parse_output_code

DTYPES = {d.short: d.name for d in ELEMENT_TYPES.values() if d.short}  # f16 -> float16
# f32[4096,4096]   bf16[8, 512, 768]   i64[1024]   f32[]
INPUT_SPEC = re.compile(r"^(?P<dtype>[a-z]+\d*)\[(?P<dims>[\d,\s]*)\]$")


def parse_input(spec: str) -> tuple[str, tuple[int, ...]]:
    m = INPUT_SPEC.match(spec.strip())
    if not m or m.group("dtype") not in DTYPES:
        raise UsageError(
            f"cannot read --input {spec!r}: expected DTYPE[D0,D1,...] with DTYPE one of "
            f"{', '.join(DTYPES)}, e.g. f32[4096,4096]"
        )
    dims = tuple(int(d) for d in m.group("dims").replace(" ", "").split(",") if d)
    return DTYPES[m.group("dtype")], dims


def require_gpu() -> None:
    from ...nvidia.device import has_gpu

    if not has_gpu():
        raise NoGpu(
            "a live Inductor capture needs a CUDA GPU (without one torch.compile writes C++ kernels); "
            "record TORCH_LOGS=output_code on a GPU and use --log"
        )


def make_inputs(specs: Sequence[str], device: str = "cuda", seed: int = 0) -> list[Any]:
    import torch

    generator = torch.Generator(device=device).manual_seed(seed)
    out = []
    for spec in specs:
        dtype_name, dims = parse_input(spec)
        dtype = getattr(torch, dtype_name)
        if dtype.is_floating_point:
            out.append(torch.randn(dims, device=device, dtype=torch.float32, generator=generator).to(dtype))
        elif dtype == torch.bool:
            out.append(torch.rand(dims, device=device, generator=generator) > 0.5)
        else:
            out.append(torch.randint(-100, 100, dims, device=device, generator=generator).to(dtype))
    return out


def capture_live(
    fn: Callable, inputs: list[Any], mode: str | None = None, options: dict | None = None, profile_runs: int = 20
) -> tuple[list[OutputCode], dict[str, LaunchConfig], dict[str, Any], dict[str, tuple[float, int]]]:
    """``(output codes, chosen launch configs, whole-function timing, per-kernel (us, calls))``."""
    import torch

    require_gpu()
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    compiled = torch.compile(fn, mode=mode, options=options)
    # Inductor points Triton at torch's own ptxas and cache (TRITON_PTXAS_PATH, TRITON_CACHE_DIR) for
    # the rest of the process; irscope's own compiles afterwards should not change toolchain midway.
    saved = {k: v for k, v in os.environ.items() if k.startswith("TRITON_")}
    try:
        _, sources = run_and_get_code(compiled, *inputs)
    except Exception as exc:
        raise UsageError(f"torch.compile failed: {exception_line(exc)}") from exc
    finally:
        inductor_ptxas = os.environ.get("TRITON_PTXAS_PATH")
        for key in [k for k in os.environ if k.startswith("TRITON_")]:
            if key not in saved:
                del os.environ[key]
        os.environ.update(saved)
    outputs = [
        parse_output_code(src, graph=f"[{i}]") for i, src in enumerate(sources) if "async_compile.triton(" in src
    ]
    names = {k.name for o in outputs for k in o.kernels}
    chosen = _chosen_configs(names)
    timing = _timing(fn, compiled, inputs)
    timing["inductor_ptxas"] = inductor_ptxas
    per_kernel = _profile(compiled, inputs, names, profile_runs)
    return outputs, chosen, timing, per_kernel


def _chosen_configs(names: set[str]) -> dict[str, LaunchConfig]:
    """The config each kernel's CachingAutotuner launched, read from the loaded output modules."""
    from torch._inductor.codecache import PyCodeCache

    chosen: dict[str, LaunchConfig] = {}
    for module in list(getattr(PyCodeCache, "modules", [])):
        for name in names & set(vars(module)):
            launchers = getattr(getattr(module, name), "launchers", None) or []
            if launchers:
                config = launchers[0].config
                chosen[name] = LaunchConfig.of(dict(config.kwargs), int(config.num_warps), int(config.num_stages))
    return chosen


def _timing(fn: Callable, compiled: Callable, inputs: list[Any]) -> dict[str, Any]:
    import torch
    from triton.testing import do_bench

    eager = do_bench(lambda: fn(*inputs), warmup=25, rep=200, return_mode="median")
    fast = do_bench(lambda: compiled(*inputs), warmup=25, rep=200, return_mode="median")
    return {
        "eager_us": eager * 1e3,
        "compiled_us": fast * 1e3,
        "speedup": eager / fast if fast else None,
        "device": torch.cuda.get_device_name(0),
        "method": "triton.testing.do_bench median, L2 flushed",
    }


def _profile(compiled: Callable, inputs: list[Any], names: set[str], runs: int) -> dict[str, tuple[float, int]]:
    """Per kernel: mean device time per launch (us) and launches per call, from the torch profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    compiled(*inputs)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            compiled(*inputs)
        torch.cuda.synchronize()
    out: dict[str, tuple[float, int]] = {}
    for event in prof.key_averages():
        if event.key in names:
            total = getattr(event, "device_time_total", None) or getattr(event, "cuda_time_total", 0)
            out[event.key] = (total / max(event.count, 1), max(event.count // runs, 1))
    return out


def load_function(target: str) -> Callable:
    """``path/to/file.py:fn`` -> the function (the file is imported: it is the user's code)."""
    from pathlib import Path

    from ...frontends.triton.kernel_files import load_module

    path_text, _, name = target.rpartition(":")
    if not path_text or not name:
        raise UsageError(f"expected path/to/file.py:function, got {target!r}")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    module = load_module(path.resolve())
    fn = getattr(module, name, None)
    if not callable(fn):
        raise UsageError(f"{path} has no function {name!r}")
    return fn
