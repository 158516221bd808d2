"""A Triton kernel as irscope sees it: a ``@triton.jit`` function, its file, and how to build its inputs.

A kernel file either declares a ``KernelSpec`` beside the function (sizes, example
tensors, tunables, a torch reference), or declares nothing and is compiled from
argument types given in the syntax of Triton's own ahead-of-time compiler:
``"*fp32:16, *fp32:16, i32, i32:16, 1024"`` (``:16`` = divisible by 16, a bare
value = a constexpr).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from ...arch import CaptureMode, Target
from ...errors import KernelNotFound, ParameterError
from ...records import AutotunerRun
from ...spec import TRITON_DEFAULT_OPTIONS, KernelSpec, kernel_specs
from ...stages import Stage
from ...types import Config, KernelId
from ..base import Compiled, Kernel, KernelHandle, Launch
from ..files import import_file, module_name, said


@dataclass(frozen=True)
class SignatureArg:
    """One argument of a user-given signature: a type (with hint) or a constexpr value."""

    type: str | None  # "*fp32", "i32", ... ; None for a constexpr
    hint: int | None = None  # 16: divisible by 16; 1: equal to 1
    value: Any = None  # the constexpr's value


# Environment variables that change what Triton generates (see triton/knobs.py).
CODEGEN_ENV = (
    "TRITON_F32_DEFAULT", "TRITON_DEFAULT_FP_FUSION", "TRITON_DISABLE_LINE_INFO", "TRITON_OVERRIDE_ARCH",
    "TRITON_DEBUG", "TRITON_INSTRUMENTATION_MODE", "TRITON_KERNEL_OVERRIDE", "TRITON_OVERRIDE_DIR",
    "TRITON_ENABLE_ASAN", "TRITON_LIBDEVICE_PATH", "TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH",
    "TRITON_MOCK_PTX_VERSION", "DISABLE_PTXAS_OPT", "PTXAS_OPTIONS", "LLVM_EXTRACT_DI_LOCAL_VARIABLES",
    "TRITON_NVDISASM_PATH", "USE_IR_LOC",
)



class TritonKernel(Kernel):
    """A resolved Triton kernel: the JIT function, where it lives and how to build its inputs."""

    frontend = "triton"
    stages = (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS)

    def __init__(self, fn: Any, file: str, spec: KernelSpec | None = None,
                 signature: tuple[SignatureArg, ...] | None = None, *, source_text: str | None = None,
                 inductor: bool = False) -> None:
        from .autotune import unwrap

        # fn may be wrapped by @triton.autotune / @triton.heuristics: those are kept in ``tuning``, and ``fn`` is
        # the JITFunction inside (made to apply the heuristics when it is launched).
        self.tuning = unwrap(fn)
        self.fn = fn if self.tuning is None else self.tuning.launcher()  # triton.runtime.jit.JITFunction
        self.file = file
        self.spec = spec
        self.signature = signature
        # Set for a kernel rebuilt from text (rebuild.py): its source is this text, not the file's.
        self.source_text = source_text
        self.inductor = inductor  # rebuilt with the modules Inductor's kernels use
        # Rebuilt with its heuristics' values taken from the configs a program ran (irscope run), not evaluated.
        self.recorded_heuristics = False
        # The launches a program made of it (irscope run), by replay.launch_key: bench reruns those.
        self.recorded_launches: dict[str, Any] = {}
        self._inputs: dict[tuple, tuple[Any, Any]] = {}
        self._tuned_table: dict[str, dict[str, Any]] | None = None  # prune_configs_by runs once

    def __repr__(self) -> str:
        return f"TritonKernel({self.name!r}, {self.file!r})"

    @property
    def name(self) -> str:
        return self.fn.fn.__name__

    def identity(self) -> KernelId:
        return KernelId(self.name, self.file, self.fn.cache_key)

    def handle(self) -> KernelHandle:
        extra: dict[str, Any] = {} if self.signature is None else {"signature": [asdict(a) for a in self.signature]}
        if self.source_text is not None:  # a worker rebuilds it from the text too, never from the file
            extra.update(source_text=self.source_text, inductor=self.inductor)
            if self.recorded_heuristics:
                extra["heuristics"] = "recorded"
        if self.recorded_launches:
            extra["launches"] = self.recorded_launches
        return KernelHandle(self.frontend, self.file, self.name, extra)

    def source(self) -> str:
        return self.source_text if self.source_text is not None else super().source()

    def constexpr_names(self) -> list[str]:
        return [p.name for p in self.fn.params if p.is_constexpr]

    def def_line(self) -> int:
        """The line of the ``def`` (Triton's own line numbers start there)."""
        offset = next((i for i, line in enumerate(self.fn.raw_src) if line.lstrip().startswith("def ")), 0)
        return self.fn.starting_line_number + offset

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        if self.tuning is not None:  # the autotuner's configs and the heuristics' names (see autotune.py)
            if self._tuned_table is None:
                self._tuned_table = self.tuning.table(self, self._declared_table())
            return {n: dict(p) for n, p in self._tuned_table.items()}
        return self._declared_table()

    def _declared_table(self) -> dict[str, dict[str, Any]]:
        if self.spec is not None:
            table = {n: {"default": t.default, "sweep": list(t.values()), "kind": "constexpr"}
                     for n, t in self.spec.constexprs.items()}
            table.update({n: {"default": t.default, "sweep": list(t.values()), "kind": "option"}
                          for n, t in self.spec.options().items()})
            table.update({n: {"default": v, "sweep": [v], "kind": "size"} for n, v in self.spec.sizes.items()})
            return table
        table = {}
        sig = self.signature or ()
        for p in self.fn.params:
            if p.is_constexpr:
                given = sig[p.num].value if p.num < len(sig) and sig[p.num].type is None else None
                default = given if given is not None else (p.default if p.has_default else None)
                table[p.name] = {"default": default, "sweep": [default], "kind": "constexpr"}
        table.update({n: {"default": v, "sweep": [v], "kind": "option"} for n, v in TRITON_DEFAULT_OPTIONS.items()})
        return table

    def cache_material(self) -> dict[str, Any]:
        import triton
        from triton._C.libtriton import get_cache_invalidating_env_vars

        env = {k: os.environ[k] for k in CODEGEN_ENV if k in os.environ}
        env.update(get_cache_invalidating_env_vars())
        return {
            "env": sorted(env.items()),
            "file_sha": _file_sha(self.file) if self.source_text is None else _text_sha(self.source_text),
            "triton_hash": self.fn.cache_key,  # Triton's dependency hash: helpers in other files count too
            "signature": None if self.signature is None else [asdict(a) for a in self.signature],
            "triton": triton.__version__,
        }

    def compile(self, config: Config, target: Target) -> Compiled:
        from .compile import compile_aot, compile_jit

        if target.mode is CaptureMode.JIT and self.spec is not None:
            return compile_jit(self, config)
        return compile_aot(self, config, target.capability)

    @property
    def records_passes(self) -> bool:
        return True

    def compile_passes(self, config: Config, target: Target) -> Compiled:
        from .compile import compile_aot

        # Ahead of time on either machine: the JIT gives the same IR (tests/gpu/test_jit_equals_aot.py).
        return compile_aot(self, config, target.capability, passes=True)

    @property
    def description(self) -> str:
        return self.spec.description if self.spec is not None else ""

    @property
    def can_launch(self) -> bool:
        return self.spec is not None or bool(self.recorded_launches)

    def example_inputs(self, config: Config, device: str = "cuda", seed: int = 0) -> tuple[Any, Any]:
        """The namespace the spec's callables see for ``config``, on filled example tensors, and the
        outputs the reference expects of them (None: no reference). Tensors are kept per size."""
        from .inputs import example_namespace

        if self.spec is None:
            raise ParameterError(f"{self.name} declares no KernelSpec: no example inputs to launch it with")
        spec = self.spec
        key = (tuple(sorted(config.sizes.items())), device, seed)
        if key not in self._inputs:
            if len(self._inputs) > 2:  # keep GPU memory bounded across sizes
                self._inputs.clear()
            ns = example_namespace(self, config, device=device, fill=True, seed=seed)
            expected = spec.reference(ns) if spec.reference is not None else None
            if expected is not None and not isinstance(expected, (tuple, list)):
                expected = (expected,)
            self._inputs[key] = (ns, expected)
        inputs, expected = self._inputs[key]
        return spec.namespace(config.values(), {n: getattr(inputs, n) for n in spec.tensors}), expected

    def launch(self, config: Config, device: str = "cuda", seed: int = 0) -> Launch:
        from .compile import triton_cache_for
        from .inputs import launch_arguments

        if self.spec is None and self.recorded_launches:  # a program's kernel (irscope run): as it launched it
            from .replay import launch_key, replay

            return replay(self, config, self.recorded_launches.get(launch_key(config)), device, seed)
        ns, expected = self.example_inputs(config, device, seed)
        spec = self.spec
        args, kwargs = launch_arguments(self, config, ns)
        grid = spec.grid(ns)
        fn = self.fn

        def first() -> Any:
            # Compiles through the JIT, from the Triton cache folder capture filled.
            with triton_cache_for(self.file):
                return fn[grid](*args, **kwargs)

        def run() -> Any:
            return fn[grid](*args, **kwargs)

        values = config.values()
        return Launch(first=first, run=run, outputs={n: getattr(ns, n) for n in spec.outputs()}, expected=expected,
                      tolerance=lambda name: spec.tolerance_for(spec.tensors[name].dtype),
                      bytes_moved=spec.bytes_for(values), flops=spec.flops_for(values))

    @property
    def autotuned(self) -> bool:
        return self.tuning is not None and self.tuning.autotuner is not None

    def run_autotuner(self, config: Config, device: str = "cuda", seed: int = 0) -> AutotunerRun:
        from .tuner import run_autotuner

        return run_autotuner(self, config, device, seed)


def _file_sha(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


# ------------------------------------------------------------------ finding kernels in files


def kernel_names(path: Path) -> list[str]:
    """The kernels a file declares: those with a KernelSpec, else every @triton.jit function (autotuned or not)."""
    from .autotune import jit_of

    module = load_module(path)
    specs = [jit_of(spec.kernel).__name__ for spec in kernel_specs(vars(module))]
    return specs or list(_jit_functions(module))


def builtin_kernels(directory: Path) -> list[TritonKernel]:
    """Every kernel with a spec in the ``.py`` files of ``directory``, in file order."""
    from .autotune import jit_of

    out = []
    for path in sorted(p for p in directory.glob("*.py") if not p.name.startswith("_")):
        module = load_module(path)
        jit_fns = _jit_functions(module)
        for spec in kernel_specs(vars(module)):
            out.append(TritonKernel(jit_fns.get(jit_of(spec.kernel).__name__, spec.kernel), str(path), spec))
    return out


def kernel_in_file(path: Path, kernel_name: str | None, signature: str | None) -> TritonKernel:
    from .autotune import check_signature, jit_of

    module = load_module(path)
    jit_fns = _jit_functions(module)
    specs = {jit_of(spec.kernel).__name__: spec for spec in kernel_specs(vars(module))}
    if kernel_name is None:
        candidates = kernel_names(path)
        if len(candidates) != 1:
            raise KernelNotFound(f"{path} holds {len(candidates)} kernels ({', '.join(candidates) or 'none'}); name one as {path}:NAME")
        kernel_name = candidates[0]
    fn = jit_fns.get(kernel_name) or (specs[kernel_name].kernel if kernel_name in specs else None)
    if fn is None:
        raise KernelNotFound(f"no @triton.jit kernel named {kernel_name!r} in {path}; found: {', '.join(jit_fns) or 'none'}")
    spec = specs.get(kernel_name)
    parsed = parse_signature(signature, jit_of(fn)) if signature else None
    if spec is None and parsed is None:  # how the file itself launched it, where it did so at import
        parsed = _launched_signature(module, fn)
    if spec is None and parsed is None:
        raise ParameterError(
            f"{kernel_name} in {path} declares no KernelSpec; give its argument types with "
            f"--signature, e.g. --signature \"*fp32:16, *fp32:16, i32:16, 1024\""
        )
    kernel = TritonKernel(fn, str(path), None if parsed else spec, parsed)
    if parsed and kernel.tuning is not None:
        check_signature(kernel)  # a heuristic that reads an argument -S gives only as a type: one line, now
    return kernel


def _launched_signature(module: Any, fn: Any) -> tuple[SignatureArg, ...] | None:
    """The signature of the first launch of ``fn`` that importing ``module`` recorded (gpu_free.py), if any.

    The constexprs its ``@triton.autotune`` configs or ``@triton.heuristics`` set are left to them:
    the launch holds only the values of the one config the stand-in driver let through.
    """
    from .autotune import jit_of, unwrap
    from .gpu_free import example_launches, signature_of

    jit = jit_of(fn)
    launches = example_launches(module, jit.fn.__name__)
    if not launches:
        return None
    signature = signature_of(launches[0], jit)
    tuning = unwrap(fn)
    if signature is None or tuning is None:
        return signature
    tuned = tuning.tuned_names() | {name for name, _, _ in tuning.heuristics()}
    return tuple(SignatureArg(None) if p.name in tuned and p.is_constexpr else arg
                 for p, arg in zip(jit.params, signature))


def kernel_with_signature(path: Path, name: str, signature: tuple[SignatureArg, ...]) -> TritonKernel:
    """A kernel compiled from a stored signature (a session of an Inductor kernel, say)."""
    fn = _jit_functions(load_module(path)).get(name)
    if fn is None:
        raise KernelNotFound(f"no @triton.jit kernel named {name!r} in {path}")
    return TritonKernel(fn, str(path), None, signature)


def _jit_functions(module: Any) -> dict[str, Any]:
    """The module's kernels by name; a decorated kernel is its outermost decorator's object.

    A bare ``@triton.jit`` function that a wrapper in the module wraps (``k = triton.autotune(...)(_k)``) is
    that wrapper under both names: it is how the module launches it, and how a worker finds it again.
    """
    from .autotune import jit_of

    found = {n: v for n, v in vars(module).items()
             if _is_jit_function(v) and jit_of(v).__module__ == module.__name__}
    outer: dict[int, Any] = {}
    for value in found.values():
        if jit_of(value) is not value:
            outer.setdefault(id(jit_of(value)), value)
    return {n: outer.get(id(v), v) for n, v in found.items()}


def _is_jit_function(value: Any) -> bool:
    """A ``@triton.jit`` function, bare or under ``@triton.autotune`` / ``@triton.heuristics``."""
    from .autotune import is_kernel

    return is_kernel(value)


def module_name_for(file: str) -> str:
    """The module name a kernel file gets: from its resolved path, so two files never share one."""
    return module_name("irscope_kernel", Path(file))


def load_module(path: Path) -> Any:
    """Import a kernel file by path (once per process), with errors as one line."""
    return import_file(path.resolve(), "irscope_kernel", "kernel file", _exec_module)


def _exec_module(loader: Any, module: Any) -> None:
    """Run the file; without a GPU, with a stand-in driver and its launches recorded, not run (gpu_free.py).

    What the file prints goes to stderr: irscope's stdout is data (a dump's listing, say).
    """
    from ...device import gpu_capability

    with contextlib.redirect_stdout(sys.stderr):
        if gpu_capability() is not None:
            loader.exec_module(module)
            return
        from ...arch import DEFAULT_CAPABILITY
        from .gpu_free import LAUNCHES, gpu_free_import

        with gpu_free_import(DEFAULT_CAPABILITY) as launches:
            try:
                loader.exec_module(module)
            except Exception as exc:  # noqa: BLE001
                # A file that checks its kernel's output at import (Triton's tutorials do) stops there
                # without a GPU: the stand-in's tensors hold no data. What it defined and launched
                # before that line is kept, and said.
                if not launches and not _jit_functions(module):
                    raise
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == module.__file__]
                where = f"{module.__file__}:{frames[-1].lineno}" if frames else module.__file__
                sys.stderr.write(f"irscope: note: {where}: the file stopped there while irscope imported it without "
                                 f"a GPU ({said(exc)}); kernels and launches before that line are kept\n")
            finally:
                setattr(module, LAUNCHES, launches)


# ------------------------------------------------------------------ signatures


# What an entry of --signature may be, as Triton's AOT compiler (triton/tools/compile.py) reads it.
SIGNATURE_FORMS = (
    "*fp32, *fp16:16 (a pointer; :16 = 16-byte aligned), i32, i64, i32:16 (an integer; :16 = divisible by 16), "
    "i32:1 (equal to 1: a constant, as the JIT makes it), fp32, bf16 (a float), 1024, 0.5 (a constant); "
    "a constexpr takes a value, or - to set it with -c"
)
_INTEGER_TYPES = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})


def parse_signature(text: str, fn: Any) -> tuple[SignatureArg, ...]:
    """Parse ``"*fp32:16, i32, 1, 1024"``: one entry per kernel parameter, in order.

    As Triton's AOT compiler: a bare number is a constant for any parameter, and
    ``:1`` makes an integer the constant 1, the way the JIT compiles every int
    argument equal to 1 (a unit stride, say).
    """
    from ...kernel import parse_value

    parts = [p.strip() for p in text.split(",")]
    params = list(fn.params)
    if len(parts) != len(params):
        # Constexprs may be left out of the signature and set with -c instead.
        params = [p for p in fn.params if not p.is_constexpr]
        if len(parts) != len(params):
            names = ", ".join(p.name for p in fn.params)
            raise ParameterError(
                f"--signature has {len(parts)} entries but {fn.fn.__name__} takes {len(fn.params)} "
                f"({len(params)} without constexprs): {names}"
            )
    given = dict(zip((p.name for p in params), parts))
    out = []
    for param in fn.params:
        part = given.get(param.name, "")
        if param.is_constexpr:
            if part in ("", "-", "constexpr"):
                out.append(SignatureArg(None))
                continue
            try:
                out.append(SignatureArg(None, None, parse_value(param.name, part)))
            except ParameterError:
                raise _bad_entry(part, param.name, "not a value for a constexpr") from None
            continue
        out.append(_signature_entry(part, param.name))
    return tuple(out)


def _signature_entry(part: str, name: str) -> SignatureArg:
    """One entry for a parameter that is not a constexpr: a type with its hint, or a constant."""
    value = _constant(part)
    if value is not None:
        return SignatureArg(None, None, value)
    ty, colon, hint = (s.strip() for s in part.partition(":"))
    if not is_type(ty):
        raise _bad_entry(part, name, "not a type or a number")
    if not colon:
        return SignatureArg(ty)
    if hint == "16" and (ty.startswith("*") or ty in _INTEGER_TYPES):
        return SignatureArg(ty, 16)
    if hint == "1" and ty in _INTEGER_TYPES:
        return SignatureArg(ty, 1)
    why = ("a pointer takes :16 only" if ty.startswith("*") else
           "the hints are :16 and :1" if ty in _INTEGER_TYPES else f"{ty} takes no hint")
    raise _bad_entry(part, name, f"hint :{hint} ({why})")


def _constant(text: str) -> int | float | None:
    """A bare number, read as Triton's AOT compiler reads one (int first, then float); else None."""
    for read in (int, lambda t: int(t, 0), float):
        try:
            return read(text)
        except ValueError:
            pass
    return None


def _bad_entry(part: str, name: str, why: str) -> ParameterError:
    return ParameterError(f"--signature entry {part!r} for {name}: {why}; accepted: {SIGNATURE_FORMS}")


def signature_from_json(data: Any) -> tuple[SignatureArg, ...]:
    """A stored signature (a list of {"type", "hint", "value"}), read as data."""
    if not isinstance(data, list):
        raise ParameterError("a stored kernel signature must be a list")
    out = []
    for item in data:
        if not isinstance(item, Mapping):
            raise ParameterError("a stored kernel signature entry must be an object")
        ty, hint = item.get("type"), item.get("hint")
        if ty is not None and not is_type(str(ty)):
            raise ParameterError(f"stored signature type {ty!r} is not a Triton type")
        if hint not in (None, 1, 16):
            raise ParameterError(f"stored signature hint {hint!r} is not 1 or 16")
        out.append(SignatureArg(None if ty is None else str(ty), hint, item.get("value")))
    return tuple(out)


_SCALAR_TYPES = {"i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64",
                 "fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64"}


def is_type(text: str) -> bool:
    """Is ``text`` a Triton scalar type or a pointer to one (``*fp32``, ``*kfp16``, ``i32``)?"""
    text = text.strip()
    return text.lstrip("*").removeprefix("k") in _SCALAR_TYPES if text.startswith("*") else text in _SCALAR_TYPES
