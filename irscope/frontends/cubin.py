"""CUDA C++ and Numba kernels on a GPU: a ``CudaSpec``'s inputs, the cubin irscope compiled, one launch path.

Both frontends compile to a cubin ahead of time; on the GPU the same compile runs
for the device's own arch and the cubin is launched through the driver
(``nvidia/launch.py``), so what is timed is the binary whose PTX and SASS irscope
shows. A spec is found where a kernel engineer would keep it: in the kernel's own
Python file (Numba), or, for a ``.cu`` file or a ``load_inline`` file, in a spec
file the user names (``--spec``; a built-in's ``<stem>_spec.py`` beside it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import CompileFailed
from ..spec import CudaSpec, Tunable, cuda_specs, parse_block
from ..types import Config


def builtin_spec_file(kernel_file: str) -> Path | None:
    """A built-in ``.cu`` kernel's spec, ``<stem>_spec.py`` beside it; None for any other file.

    A spec file is Python: one beside a file someone downloaded is theirs, not the
    user's, so it runs only where the user names it (``--spec``).
    """
    from ..paths import builtin_kernels_dir

    path = Path(kernel_file)
    if path.parent.resolve() != builtin_kernels_dir().resolve():
        return None
    return path.with_name(f"{path.stem}_spec.py")


def import_specs(path: Path) -> list[CudaSpec]:
    """The CudaSpecs a Python file declares (the file runs: irscope's own, or one the user named)."""
    from .files import import_file

    return list(cuda_specs(vars(import_file(path, "irscope_spec", "the spec file"))))


def find_spec(specs: list[CudaSpec], kernel: str, kernel_file: str | None = None) -> CudaSpec | None:
    """The spec for ``kernel`` (and, for CUDA C++, naming ``kernel_file`` where the spec names a source)."""
    for spec in specs:
        if spec.name != kernel:
            continue
        if kernel_file is None or spec.source is None:
            return spec
        # source is relative to the spec file, which sits beside the kernel file
        if Path(spec.source).name == Path(kernel_file).name:
            return spec
    return None


def spec_parameters(spec: CudaSpec) -> dict[str, dict[str, Any]]:
    """The table rows a spec adds: its block shape (an option) and its sizes (macros: ``merge_macros``)."""
    table: dict[str, dict[str, Any]] = {
        "block": {"default": spec.block.default, "sweep": list(spec.block.values()), "kind": "option"}
    }
    for name, value in spec.sizes.items():
        table[name] = {"default": value, "sweep": [value], "kind": "size"}
    return table


def merge_macros(macros: dict[str, Any], spec: CudaSpec | None) -> dict[str, dict[str, Any]]:
    """The file's macros as table rows, with the spec's sweeps where it gives them."""
    given = dict(spec.macros) if spec is not None else {}
    return {
        name: {
            "default": given.get(name, Tunable(value)).default,
            "sweep": list(given.get(name, Tunable(value)).values()),
            "kind": "constexpr",
        }
        for name, value in macros.items()
    }


_INPUTS: dict[tuple, tuple[Any, Any]] = {}
_BUILDS: dict[tuple, Any] = {}


def cubin_launch(kernel: Any, spec: CudaSpec, config: Config, device: str = "cuda", seed: int = 0, numba: bool = False):
    """``kernel`` (a CudaKernel or NumbaKernel) compiled for this GPU and ready to run with ``spec``'s inputs."""
    import torch

    from ..arch import CaptureMode, Target
    from ..nvidia.launch import CubinFunction, NumbaArray
    from ..stages import Stage
    from .base import Launch
    from .examples import example_inputs

    major, minor = torch.cuda.get_device_capability()
    # The block shape and the sizes do not change the binary: variants that differ only there share one compile.
    build = (kernel.handle().key(), tuple(sorted(config.constexprs.items())), major * 10 + minor)
    if build not in _BUILDS:
        _BUILDS[build] = kernel.compile(Config(dict(config.constexprs)), Target(major * 10 + minor, CaptureMode.AOT))
    compiled = _BUILDS[build]
    if compiled.error is not None or compiled.cubin is None:
        raise CompileFailed(f"{kernel.name}: {compiled.error or 'no cubin'}")
    key = (id(spec), tuple(sorted(config.sizes.items())), device, seed)
    if key not in _INPUTS:
        if len(_INPUTS) > 2:  # keep GPU memory bounded across sizes
            _INPUTS.clear()
        _INPUTS[key] = example_inputs(spec, config, device, seed)
    inputs, expected = _INPUTS[key]
    ns = spec.namespace(config.values(), {n: getattr(inputs, n) for n in spec.tensors})
    args = [NumbaArray(a) if numba and isinstance(a, torch.Tensor) else a for a in spec.args(ns)]
    grid = tuple(int(g) for g in spec.grid(ns))
    block = parse_block(config.options.get("block", spec.block.default))
    function = CubinFunction(compiled.cubin, compiled.options["entry"], compiled.stages[Stage.PTX])
    prepared = function.prepare(args)

    def run() -> None:
        function.launch(grid, block, prepared)

    def first() -> Any:
        run()
        return function

    return Launch.from_spec(spec, config, ns, expected, first, run)
