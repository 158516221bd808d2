"""A CUDA C++ kernel as irscope sees it: a ``__global__`` function of a ``.cu`` file, compiled by nvcc."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

from ...arch import Target
from ...errors import KernelFileError, ParameterError
from ...paths import CUDA_SOURCES, cache_dir
from ...stages import Stage
from ...storage.files import atomic_write
from ...types import Config, KernelId
from ..base import Compiled, Kernel, KernelHandle
from .compile import FLAGS, compile_cuda, nvcc_version
from .inline import HOST_ONLY_INCLUDE, InlineSource, device_side, torch_host_side
from .names import choose
from .source import kernels, tunable_macros
from .tokens import config_header, flag_values


class CudaKernel(Kernel):
    frontend = "cuda"
    stages = (Stage.PTX, Stage.SASS)

    def __init__(
        self,
        file: str,
        name: str,
        text: str | None = None,
        device_code: str | None = None,
        spec_file: str | None = None,
    ) -> None:
        self.file = file
        self.name = name
        self._text = text
        # A load_inline kernel (inline.py): the device code nvcc compiles, numbered as in the Python file.
        self.device_code = device_code
        # The spec file the user named (--spec): Python, so imported only on their say-so.
        self.spec_file = spec_file
        self._spec: Any = False  # not looked for yet

    @property
    def spec(self) -> Any:
        """The kernel's CudaSpec: from the spec file the user named, or a built-in's ``<stem>_spec.py``; else None."""
        if self._spec is False:
            from ..cubin import builtin_spec_file, find_spec, import_specs

            named = Path(self.spec_file) if self.spec_file else None
            path = named or builtin_spec_file(self.file)
            self._spec = find_spec(import_specs(path), self.name, self.file) if path and path.is_file() else None
            if named is not None and self._spec is None:
                raise ParameterError(f"{named} declares no CudaSpec for {self.name} in {Path(self.file).name}")
        return self._spec

    def with_spec_file(self, path: Path) -> CudaKernel:
        if not path.is_file():
            raise KernelFileError(f"no such spec file: {path}")
        return CudaKernel(self.file, self.name, self._text, self.device_code, str(path.resolve()))

    def __repr__(self) -> str:
        return f"CudaKernel({self.name!r}, {self.file!r})"

    def source(self) -> str:
        if self._text is None:
            self._text = read_source(Path(self.file))
        return self._text

    def identity(self) -> KernelId:
        digest = hashlib.sha256(self.source().encode("utf-8", errors="surrogatepass")).hexdigest()
        return KernelId(self.name, self.file, digest)

    def macros(self) -> dict[str, Any]:
        return tunable_macros(self.device_code if self.device_code is not None else self.source())

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """The file's tunable macros (``#ifndef``/``#define``) and the compiler flags, all compile-time values;
        with a spec, also its launch shape (``block``) and its sizes."""
        from ..cubin import merge_macros, spec_parameters

        spec = self.spec
        table = merge_macros(self.macros(), spec)
        for name, (default, sweep, _) in FLAGS.items():
            table.setdefault(name, {"default": default, "sweep": list(sweep), "kind": "constexpr"})
        if spec is not None:
            table.update(spec_parameters(spec))
        return table

    @property
    def can_launch(self) -> bool:
        return self.spec is not None

    def no_launch_reason(self) -> str:
        return no_spec_line(self.name, self.file)

    def launch(self, config: Config, device: str = "cuda", seed: int = 0) -> Any:
        """Compiled for this GPU, loaded from its cubin and ready to run with the spec's inputs."""
        from ..cubin import cubin_launch

        if self.spec is None:
            raise ParameterError(no_spec_line(self.name, self.file))
        return cubin_launch(self, self.spec, config, device, seed)

    @property
    def description(self) -> str:
        """The spec's description, else the first line of the comment that opens the file."""
        if self.spec is not None and self.spec.description:
            return self.spec.description
        first = self.source().lstrip().splitlines()[:1]
        return first[0].lstrip("/ ").strip() if first and first[0].lstrip().startswith("//") else ""

    def handle(self) -> KernelHandle:
        return KernelHandle(
            self.frontend, self.file, self.name, {"spec_file": self.spec_file} if self.spec_file else {}
        )

    def cache_material(self) -> dict[str, Any]:
        return {"source_sha": self.identity().source_hash, "nvcc": nvcc_version()}

    def check_config(self, config: Config) -> None:
        values = {**config.constexprs, **config.options}
        flag_values(values)
        config_header(values, self.macros())

    def compile(self, config: Config, target: Target) -> Compiled:
        values = {**config.constexprs, **config.options}  # the block shape and sizes do not reach nvcc
        if self.device_code is None:
            return compile_cuda(self.file, self.name, values, self.macros(), target.nvidia_capability("CUDA C++"))
        with tempfile.TemporaryDirectory(prefix="irscope-inline-") as tmp:
            cu = Path(tmp) / "inline.cu"  # its #line names the Python file: this name is never shown
            cu.write_text(self.device_code, encoding="utf-8")
            return compile_cuda(str(cu), self.name, values, self.macros(), target.nvidia_capability("CUDA C++"))


def no_spec_line(name: str, file: str) -> str:
    """What bench says of a kernel with no spec: where one goes, and that it is used only when named."""
    beside = Path(file).with_name(f"{Path(file).stem}_spec.py")
    have = "there is one" if beside.is_file() else "declare one"
    return (
        f"{name} has no CudaSpec (example inputs, grid, reference) to launch with: {have} in {beside.name} "
        f"and name it with --spec {beside} (a spec file is Python, run only when you name it)"
    )


def read_source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KernelFileError(f"no such kernel file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelFileError(f"cannot read {path}: {exc}") from None


def kernel_in_file(path: Path, name: str | None) -> CudaKernel:
    text = read_source(path)
    name = choose(kernels(text), name, path, "__global__ kernel")
    device_code = None
    if HOST_ONLY_INCLUDE.search(text):
        # A torch extension's source (what a load_inline call built): its host functions need torch's
        # headers; the device code alone compiles, its lines numbered as in the file.
        device_code = device_side(InlineSource(text, 1), str(path))
    return CudaKernel(str(path), name, text, device_code)


def kernel_from_text(text: str, name: str | None) -> CudaKernel:
    """A ``__global__`` kernel of CUDA C++ source given as a string (as ``load_inline``'s ``cuda_sources``).

    nvcc compiles files: the text is written to the cache under its own hash (the same text is
    the same file, so its compiles are cached as a file's are, and workers read it as any ``.cu``),
    and its lines are the string's. A string with torch's host code (a ``load_inline`` source)
    compiles its device side only, as a ``load_inline`` file's strings do.
    """
    # Chosen first, so that a name that fits none or several is said of the string, as name= names it.
    name = choose(kernels(text), name, "the CUDA source string", "__global__ kernel", lambda n: f"name={n!r}")
    path = _written(text)
    kernel = kernel_in_file(path, name)
    if kernel.device_code is None and torch_host_side(text):
        kernel.device_code = device_side(InlineSource(text, 1), str(path))
    return kernel


def _written(text: str) -> Path:
    """``<cache>/cuda-sources/<hash>.cu`` holding ``text``, written atomically where it is not there already."""
    data = text.encode("utf-8", errors="surrogatepass")
    path = cache_dir() / CUDA_SOURCES / f"{hashlib.sha256(data).hexdigest()[:24]}.cu"
    try:
        if path.is_file() and not path.is_symlink() and path.read_bytes() == data:
            return path
        atomic_write(path, data, refuse=KernelFileError)
    except OSError as exc:
        raise KernelFileError(f"cannot write the CUDA source to {path}: {exc.strerror or exc}") from None
    return path


def inline_kernel(path: Path, name: str | None) -> CudaKernel:
    """A ``__global__`` kernel of a ``load_inline`` call's CUDA sources in the Python file ``path``."""
    from .inline import device_side, inline_sources

    text = read_source(path)
    found = {k: source for source in inline_sources(path, text) for k in kernels(source.text)}
    name = choose(list(found), name, path, "load_inline __global__ kernel")
    source = next(source for decl, source in found.items() if name.partition("<")[0] == decl.name)
    return CudaKernel(str(path), name, text, device_side(source, str(path)))
